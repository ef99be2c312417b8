//! Tests for `theme`: the built-ins, error messages that point at the mistake, and NO_COLOR.

use super::*;

fn all_builtins() -> Vec<Theme> {
    Theme::builtin_names()
        .iter()
        .map(|n| Theme::builtin(n).unwrap_or_else(|e| panic!("{n}: {e}")))
        .collect()
}

#[test]
fn every_builtin_parses_and_sets_every_role() {
    assert_eq!(Theme::builtin_names(), ["dark", "light", "high-contrast"]);
    let embedded: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
    assert_eq!(embedded, Theme::builtin_names());
    for theme in all_builtins() {
        for role in ROLE_NAMES {
            let style = theme.role(role).unwrap();
            assert_ne!(style, Style::new(), "{}: role {role} is unset", theme.name);
        }
        assert!(!theme.no_color);
    }
    assert_eq!(ROLE_NAMES.len(), 41);
    assert_eq!(BADGE_ROLES.len(), BADGE_COUNT);
}

#[test]
fn remote_text_never_looks_like_local_text() {
    for theme in all_builtins() {
        for t in [theme.clone(), theme.clone().without_color()] {
            assert_ne!(t.remote_text, t.text, "{}", t.name);
            assert_ne!(t.remote_text, t.user_text, "{}", t.name);
            assert!(
                t.remote_text.add_modifier.contains(Modifier::ITALIC),
                "{}",
                t.name
            );
        }
    }
}

#[test]
fn builtin_badges_are_distinct_in_colour_and_without() {
    for theme in all_builtins() {
        for t in [theme.clone(), theme.without_color()] {
            let styles: Vec<Style> = BADGE_ROLES.iter().map(|r| t.role(r).unwrap()).collect();
            for (i, a) in styles.iter().enumerate() {
                for (j, b) in styles.iter().enumerate().skip(i + 1) {
                    assert_ne!(a, b, "{}: {} vs {}", t.name, BADGE_ROLES[i], BADGE_ROLES[j]);
                }
            }
        }
    }
}

#[test]
fn without_color_drops_colours_and_keeps_modifiers() {
    for theme in all_builtins() {
        let mono = theme.clone().without_color();
        assert!(mono.no_color);
        for role in ROLE_NAMES {
            let before = theme.role(role).unwrap();
            let after = mono.role(role).unwrap();
            assert_eq!(after.fg, None, "{role}");
            assert_eq!(after.bg, None, "{role}");
            assert_eq!(after.underline_color, None, "{role}");
            // Built-in badges are already distinct, so nothing is replaced: the role's own modifiers
            // stay, with its `no_color_modifiers` added.
            assert_eq!(
                after.add_modifier,
                before.add_modifier | theme.no_color_modifiers[role_index(role).unwrap()],
                "{}: {role}",
                theme.name
            );
        }
        // What must still stand out in monochrome does.
        assert!(mono.selection.add_modifier.contains(Modifier::REVERSED));
        assert!(mono.flag.add_modifier.contains(Modifier::REVERSED));
    }
}

/// Dim is the look of secondary text and of the waiting badges under NO_COLOR; in colour it is never used,
/// because dim text is unreadable (see the contrast tests), so these roles keep it through
/// `no_color_modifiers`.
#[test]
fn secondary_roles_are_dim_under_no_color_and_never_in_colour() {
    for theme in all_builtins() {
        for role in ROLE_NAMES {
            let style = theme.role(role).unwrap();
            assert!(
                !style.add_modifier.contains(Modifier::DIM),
                "{}: {role} is dim in colour",
                theme.name
            );
        }
    }
    for name in ["dark", "light"] {
        let mono = Theme::builtin(name).unwrap().without_color();
        for role in [
            "dim",
            "remote_label",
            "submitted",
            "connecting",
            "disconnected",
        ] {
            assert!(
                mono.role(role)
                    .unwrap()
                    .add_modifier
                    .contains(Modifier::DIM),
                "{name}: {role} is not dim under NO_COLOR"
            );
        }
        // The italic of remote labels and the underline of the lost link stay too.
        assert!(mono.remote_label.add_modifier.contains(Modifier::ITALIC));
        assert!(
            mono.disconnected
                .add_modifier
                .contains(Modifier::UNDERLINED)
        );
    }
}

#[test]
fn no_color_modifiers_apply_only_without_colour_and_are_inherited() {
    let text = "extends = \"dark\"\n[accent]\nfg = \"red\"\nno_color_modifiers = [\"bold\", \"underlined\"]\n";
    let theme = Theme::from_toml("t", text).unwrap();
    assert_eq!(theme.accent, Style::new().fg(Color::Red));
    assert_eq!(
        theme.clone().without_color().accent,
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    );
    // Inherited from the base with the role...
    assert!(
        theme
            .clone()
            .without_color()
            .submitted
            .add_modifier
            .contains(Modifier::DIM)
    );
    // ...and replaced with it: a role table given anew sets both.
    let theme = Theme::from_toml("t", "extends = \"dark\"\n[submitted]\nfg = \"blue\"\n").unwrap();
    assert_eq!(theme.without_color().submitted, Style::new());
    let e = err("extends = \"dark\"\n[dim]\nno_color_modifiers = [\"hidden\"]\n");
    assert!(
        e.contains("line 3") && e.contains("role 'dim'") && e.contains("'hidden'"),
        "{e}"
    );
}

#[test]
fn background_is_read_inherited_and_checked() {
    assert_eq!(Theme::builtin("dark").unwrap().background, Background::Dark);
    assert_eq!(
        Theme::builtin("light").unwrap().background,
        Background::Light
    );
    assert_eq!(
        Theme::builtin("high-contrast").unwrap().background,
        Background::Dark
    );
    // A user theme on the light one is for a light terminal too (its code is highlighted for white).
    let mine = Theme::from_toml("solarized-ish", "extends = \"light\"\n").unwrap();
    assert_eq!(mine.background, Background::Light);
    let mine = Theme::from_toml("t", "extends = \"light\"\nbackground = \"dark\"\n").unwrap();
    assert_eq!(mine.background, Background::Dark);
    let e = err("extends = \"dark\"\n\nbackground = \"grey\"\n");
    assert!(
        e.contains("line 3") && e.contains("\"dark\" or \"light\""),
        "{e}"
    );
}

#[test]
fn without_color_falls_back_when_a_themes_badges_collide() {
    // Badges told apart only by colour.
    let mut text = String::from("extends = \"dark\"\n");
    for (i, badge) in BADGE_ROLES.iter().enumerate() {
        text.push_str(&format!("[{badge}]\nfg = \"indexed:{}\"\n", i + 1));
    }
    let theme = Theme::from_toml("colour-only", &text).unwrap();
    assert_eq!(theme.completed, Style::new().fg(Color::Indexed(5)));
    let mono = theme.without_color();
    for (badge, modifier) in BADGE_ROLES.iter().zip(MONOCHROME_BADGES) {
        assert_eq!(
            mono.role(badge).unwrap(),
            Style::new().add_modifier(modifier)
        );
    }
    for (i, a) in MONOCHROME_BADGES.iter().enumerate() {
        for b in MONOCHROME_BADGES.iter().skip(i + 1) {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn colours_parse_in_every_documented_form() {
    assert_eq!(parse_color("cyan"), Ok(Color::Cyan));
    assert_eq!(parse_color("Light-Red"), Ok(Color::LightRed));
    assert_eq!(parse_color("dark_grey"), Ok(Color::DarkGray));
    assert_eq!(parse_color("reset"), Ok(Color::Reset));
    assert_eq!(parse_color("#1a2B3c"), Ok(Color::Rgb(0x1a, 0x2b, 0x3c)));
    assert_eq!(parse_color("indexed:208"), Ok(Color::Indexed(208)));
    assert_eq!(parse_color("Indexed: 0"), Ok(Color::Indexed(0)));
    for bad in [
        "blurple",
        "#12345",
        "#1234567",
        "#gg0000",
        "indexed:256",
        "indexed:-1",
        "208",
        "",
    ] {
        assert!(parse_color(bad).is_err(), "{bad} should not parse");
    }
    // Multi-byte input after '#' must not panic on a char boundary.
    assert!(parse_color("#ééé").is_err());
}

#[test]
fn full_theme_file_round_trips_every_key() {
    let text = "extends = \"light\"\n\
                [remote_text]\n\
                fg = \"#d7afff\"\n\
                bg = \"indexed:17\"\n\
                modifiers = [\"italic\", \"Crossed-Out\", \"bold\"]\n";
    let theme = Theme::from_toml("mine", text).unwrap();
    assert_eq!(theme.name, "mine");
    assert_eq!(
        theme.remote_text,
        Style::new()
            .fg(Color::Rgb(0xd7, 0xaf, 0xff))
            .bg(Color::Indexed(17))
            .add_modifier(Modifier::ITALIC | Modifier::CROSSED_OUT | Modifier::BOLD)
    );
    // Everything else is inherited.
    assert_eq!(theme.flag, Theme::builtin("light").unwrap().flag);
}

#[test]
fn inline_tables_and_dotted_keys_work_too() {
    let text = "extends = \"dark\"\nerror = { fg = \"red\" }\nok.fg = \"green\"\n";
    let theme = Theme::from_toml("t", text).unwrap();
    assert_eq!(theme.error, Style::new().fg(Color::Red));
    assert_eq!(theme.ok, Style::new().fg(Color::Green));
}

fn err(text: &str) -> String {
    Theme::from_toml("t", text).unwrap_err()
}

#[test]
fn errors_name_the_role_the_key_and_the_line() {
    let e = err("extends = \"dark\"\n\n[txet]\nfg = \"red\"\n");
    assert!(
        e.contains("line 3") && e.contains("unknown role 'txet'"),
        "{e}"
    );

    let e = err("extends = \"dark\"\n[text]\nfg = \"red\"\nfgg = \"blue\"\n");
    assert!(
        e.contains("line 4") && e.contains("role 'text'") && e.contains("unknown key 'fgg'"),
        "{e}"
    );

    let e = err("extends = \"dark\"\n[title]\nmodifiers = [\"bold\"]\nbg = \"blurple\"\n");
    assert!(
        e.contains("line 4")
            && e.contains("role 'title'")
            && e.contains("bg")
            && e.contains("'blurple'"),
        "{e}"
    );

    let e = err("extends = \"dark\"\n[flag]\nmodifiers = [\n  \"bold\",\n  \"hidden\",\n]\n");
    assert!(
        e.contains("line 5") && e.contains("role 'flag'") && e.contains("'hidden'"),
        "{e}"
    );

    let e = err("extends = \"dark\"\n[flag]\nmodifiers = \"bold\"\n");
    assert!(e.contains("line 3") && e.contains("must be a list"), "{e}");

    let e = err("extends = \"dark\"\n[flag]\nfg = 3\n");
    assert!(
        e.contains("line 3") && e.contains("fg must be a string"),
        "{e}"
    );

    let e = err("extends = \"dark\"\ntext = \"red\"\n");
    assert!(
        e.contains("line 2") && e.contains("role 'text' must be a table"),
        "{e}"
    );

    let e = err("extends = \"solarized\"\n");
    assert!(e.contains("line 1") && e.contains("solarized"), "{e}");

    let e = err("[text]\nfg = \"red\"\n[text]\nbg = \"red\"\n");
    assert!(e.contains("line 3") && e.contains("invalid TOML"), "{e}");
}

#[test]
fn a_theme_without_extends_must_define_every_role() {
    let e = err("[text]\nfg = \"red\"\n");
    assert!(e.contains("missing roles: dim, title"), "{e}");
    assert!(e.contains("disconnected"), "{e}");
    assert!(!e.contains("missing roles: text"), "{e}");
}

#[test]
fn unknown_builtin_is_an_error_that_lists_the_builtins() {
    let e = Theme::builtin("solarized").unwrap_err();
    assert!(
        e.contains("solarized") && e.contains("dark, light, high-contrast"),
        "{e}"
    );
}

#[test]
fn load_takes_a_builtin_name_or_a_path() {
    assert_eq!(
        Theme::load("light").unwrap(),
        Theme::builtin("light").unwrap()
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.toml");
    std::fs::write(
        &path,
        "extends = \"high-contrast\"\n[accent]\nfg = \"#ff0000\"\n",
    )
    .unwrap();
    let theme = Theme::load(path.to_str().unwrap()).unwrap();
    assert_eq!(theme.name, "mine");
    assert_eq!(theme.accent, Style::new().fg(Color::Rgb(255, 0, 0)));

    std::fs::write(&path, "extends = \"dark\"\n[accent]\nfg = \"nope\"\n").unwrap();
    let e = Theme::load(path.to_str().unwrap()).unwrap_err();
    assert!(
        e.contains("mine.toml") && e.contains("line 3") && e.contains("'nope'"),
        "{e}"
    );

    let e = Theme::load("/nonexistent/theme.toml").unwrap_err();
    assert!(
        e.contains("not a built-in theme") && e.contains("/nonexistent/theme.toml"),
        "{e}"
    );
}

#[test]
fn no_color_requested_follows_the_convention() {
    // `std::env::set_var` is unsafe in edition 2024 (and the crate forbids unsafe code), and would
    // race with other tests; so each case runs a probe test in a child process with its own env.
    let run = |value: Option<&str>| {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = std::process::Command::new(exe);
        // The probe's test name, from this module's path without the crate name (so it survives moves).
        let probe = module_path!()
            .split_once("::")
            .map(|(_, m)| format!("{m}::no_color_probe"))
            .unwrap();
        cmd.args(["--exact", &probe, "--nocapture", "--ignored"]);
        cmd.env_remove("NO_COLOR");
        if let Some(v) = value {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).contains("NO_COLOR_PROBE=true")
    };
    assert!(!run(None));
    assert!(!run(Some("")));
    assert!(run(Some("1")));
    assert!(run(Some("0")), "any non-empty value counts, even 0");
}

#[test]
#[ignore = "helper for no_color_requested_follows_the_convention, run in a child process"]
fn no_color_probe() {
    println!("NO_COLOR_PROBE={}", no_color_requested());
}
