//! Tests for `keymap`: key-string parsing and formatting, terminal quirks, defaults, overrides and
//! context precedence.

use super::*;
use crossterm::event::{KeyEventState, KeyModifiers};

fn ev(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

fn p(s: &str) -> KeyBinding {
    parse_key(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn overrides(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs
        .iter()
        .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
        .collect()
}

#[test]
fn parses_every_documented_form() {
    let cases: &[(&str, KeyCode, KeyModifiers)] = &[
        ("q", KeyCode::Char('q'), KeyModifiers::NONE),
        ("?", KeyCode::Char('?'), KeyModifiers::NONE),
        ("ctrl-p", KeyCode::Char('p'), KeyModifiers::CONTROL),
        ("Ctrl+P", KeyCode::Char('p'), KeyModifiers::CONTROL),
        ("CONTROL-w", KeyCode::Char('w'), KeyModifiers::CONTROL),
        ("ctrl-w", KeyCode::Char('w'), KeyModifiers::CONTROL),
        ("alt-1", KeyCode::Char('1'), KeyModifiers::ALT),
        ("meta+1", KeyCode::Char('1'), KeyModifiers::ALT),
        ("shift-tab", KeyCode::BackTab, KeyModifiers::NONE),
        ("backtab", KeyCode::BackTab, KeyModifiers::NONE),
        ("BackTab", KeyCode::BackTab, KeyModifiers::NONE),
        ("enter", KeyCode::Enter, KeyModifiers::NONE),
        ("Return", KeyCode::Enter, KeyModifiers::NONE),
        ("alt-enter", KeyCode::Enter, KeyModifiers::ALT),
        ("shift-enter", KeyCode::Enter, KeyModifiers::SHIFT),
        ("esc", KeyCode::Esc, KeyModifiers::NONE),
        ("up", KeyCode::Up, KeyModifiers::NONE),
        ("pgdn", KeyCode::PageDown, KeyModifiers::NONE),
        ("PageUp", KeyCode::PageUp, KeyModifiers::NONE),
        ("f1", KeyCode::F(1), KeyModifiers::NONE),
        ("F12", KeyCode::F(12), KeyModifiers::NONE),
        ("space", KeyCode::Char(' '), KeyModifiers::NONE),
        ("J", KeyCode::Char('J'), KeyModifiers::NONE),
        ("shift-j", KeyCode::Char('J'), KeyModifiers::NONE),
        ("Shift-J", KeyCode::Char('J'), KeyModifiers::NONE),
        ("j", KeyCode::Char('j'), KeyModifiers::NONE),
        ("ctrl-shift-p", KeyCode::Char('P'), KeyModifiers::CONTROL),
        ("alt-J", KeyCode::Char('j'), KeyModifiers::ALT),
        (
            "ctrl-alt-x",
            KeyCode::Char('x'),
            KeyModifiers::CONTROL.union(KeyModifiers::ALT),
        ),
        ("-", KeyCode::Char('-'), KeyModifiers::NONE),
        ("+", KeyCode::Char('+'), KeyModifiers::NONE),
        ("ctrl--", KeyCode::Char('-'), KeyModifiers::CONTROL),
        ("ctrl++", KeyCode::Char('+'), KeyModifiers::CONTROL),
        ("  g  ", KeyCode::Char('g'), KeyModifiers::NONE),
        ("é", KeyCode::Char('é'), KeyModifiers::NONE),
    ];
    for (s, code, mods) in cases {
        assert_eq!(
            p(s),
            KeyBinding {
                code: *code,
                modifiers: *mods
            },
            "{s}"
        );
    }
}

#[test]
fn bad_key_strings_are_errors_that_quote_them() {
    for bad in [
        "", "ctrl-", "hyper-x", "foo", "ctrl-foo", "f0", "f25", "shift-1", "shift-?", "\u{7}",
    ] {
        let e = parse_key(bad).unwrap_err();
        if !bad.is_empty() {
            assert!(e.contains(bad.trim_end_matches('-')), "{bad}: {e}");
        }
    }
}

#[test]
fn format_gives_readable_names_and_round_trips() {
    let cases = [
        ("q", "q"),
        ("?", "?"),
        ("ctrl-p", "Ctrl-P"),
        ("ctrl-shift-p", "Ctrl-Shift-P"),
        ("alt-1", "Alt-1"),
        ("shift-tab", "Shift-Tab"),
        ("backtab", "Shift-Tab"),
        ("enter", "Enter"),
        ("alt-enter", "Alt-Enter"),
        ("shift-enter", "Shift-Enter"),
        ("esc", "Esc"),
        ("up", "Up"),
        ("pgdn", "PgDn"),
        ("f1", "F1"),
        ("space", "Space"),
        ("ctrl-w", "Ctrl-W"),
        ("J", "J"),
        ("shift-j", "J"),
        ("alt-shift-j", "Alt-Shift-J"),
        ("ctrl--", "Ctrl--"),
        ("super-k", "Super-k"),
        ("ctrl-alt-shift-super-delete", "Ctrl-Alt-Shift-Super-Delete"),
    ];
    for (input, shown) in cases {
        let k = p(input);
        assert_eq!(format_key(&k), shown, "{input}");
        assert_eq!(p(shown), k, "{shown} must parse back to {input}");
    }
    // Every default binding round-trips too.
    for a in Keymap::all_actions() {
        for k in a.default_keys() {
            assert_eq!(p(&format_key(k)), *k, "{a}: {}", format_key(k));
        }
    }
}

#[test]
fn default_bindings_are_already_normalised() {
    for a in Keymap::all_actions() {
        for k in a.default_keys() {
            assert_eq!(KeyBinding::new(k.code, k.modifiers), *k, "{a}");
        }
    }
}

#[test]
fn terminal_quirks_map_to_the_same_binding() {
    let km = Keymap::defaults();
    let g = Context::Global;
    // Shift-Tab: BackTab with SHIFT (crossterm on unix), bare BackTab, or Tab + SHIFT.
    for e in [
        ev(KeyCode::BackTab, KeyModifiers::SHIFT),
        ev(KeyCode::BackTab, KeyModifiers::NONE),
        ev(KeyCode::Tab, KeyModifiers::SHIFT),
    ] {
        assert_eq!(km.action(g, &e), Some(Action::FocusPrev), "{e:?}");
    }
    assert_eq!(
        km.action(g, &ev(KeyCode::Tab, KeyModifiers::NONE)),
        Some(Action::FocusNext)
    );

    // Shifted letter: 'J', 'J' + SHIFT, or 'j' + SHIFT (kitty protocol).
    let al = Context::AgentList;
    for e in [
        ev(KeyCode::Char('J'), KeyModifiers::NONE),
        ev(KeyCode::Char('J'), KeyModifiers::SHIFT),
        ev(KeyCode::Char('j'), KeyModifiers::SHIFT),
    ] {
        assert_eq!(km.action(al, &e), Some(Action::ToggleRawCard), "{e:?}");
    }
    assert_eq!(
        km.action(al, &ev(KeyCode::Char('j'), KeyModifiers::NONE)),
        Some(Action::Down)
    );

    // '?' often arrives with SHIFT because Shift was needed to type it.
    assert_eq!(
        km.action(g, &ev(KeyCode::Char('?'), KeyModifiers::SHIFT)),
        Some(Action::Help)
    );

    // Enter vs Alt-Enter vs Shift-Enter vs Ctrl-J in compose.
    let c = Context::Compose;
    assert_eq!(
        km.action(c, &ev(KeyCode::Enter, KeyModifiers::NONE)),
        Some(Action::Send)
    );
    assert_eq!(
        km.action(c, &ev(KeyCode::Enter, KeyModifiers::ALT)),
        Some(Action::Newline)
    );
    assert_eq!(
        km.action(c, &ev(KeyCode::Enter, KeyModifiers::SHIFT)),
        Some(Action::Newline)
    );
    assert_eq!(
        km.action(c, &ev(KeyCode::Char('j'), KeyModifiers::CONTROL)),
        Some(Action::Newline)
    );

    // Ctrl-Shift-P under the kitty protocol is not Ctrl-P.
    assert_eq!(
        km.action(g, &ev(KeyCode::Char('p'), KeyModifiers::CONTROL)),
        Some(Action::Palette)
    );
    assert_eq!(
        km.action(
            g,
            &ev(
                KeyCode::Char('P'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            )
        ),
        None
    );

    // Lock-key and HYPER/META bits reported by the kitty protocol do not break a match.
    let mut e = ev(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL | KeyModifiers::HYPER,
    );
    e.state = KeyEventState::CAPS_LOCK;
    assert_eq!(km.action(c, &e), Some(Action::Quit));

    // Releases never act; repeats do.
    let mut release = ev(KeyCode::Char('q'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    assert_eq!(km.action(g, &release), None);
    let mut repeat = ev(KeyCode::Down, KeyModifiers::NONE);
    repeat.kind = KeyEventKind::Repeat;
    assert_eq!(
        km.action(Context::TaskTab, &repeat),
        Some(Action::ScrollDown)
    );
}

#[test]
fn defaults_have_no_conflicts_and_do_not_shadow_globals() {
    let keys: BTreeMap<Action, Vec<KeyBinding>> = Keymap::all_actions()
        .iter()
        .map(|a| (*a, a.default_keys().to_vec()))
        .collect();
    check_conflicts(&keys).unwrap();
    assert!(Keymap::with_overrides(&BTreeMap::new()).is_ok());

    let globals: Vec<KeyBinding> = Keymap::all_actions()
        .iter()
        .filter(|a| a.context() == Context::Global)
        .flat_map(|a| a.default_keys().iter().copied())
        .collect();
    // The panes must not hide a global key. A modal may (the help's `q` closes it instead of quitting): there
    // only Back and Quit's named keys reach the globals.
    let panes = [
        Context::AgentList,
        Context::TaskTab,
        Context::Compose,
        Context::Edit,
        Context::Scroll,
    ];
    for a in Keymap::all_actions()
        .iter()
        .filter(|a| panes.contains(&a.context()))
    {
        for k in a.default_keys() {
            // The one deliberate shadow: in a tab, `n` is "next match" while a search is active and runs
            // `new_task` itself otherwise (its description says so, so help shows it).
            if *a == Action::SearchNext
                && *k == KeyBinding::new(KeyCode::Char('n'), KeyModifiers::NONE)
            {
                continue;
            }
            // And where text is typed, Ctrl-W deletes a word as in a shell (issue [10] item 7): closing the tab is
            // the global Ctrl-W everywhere else.
            if *a == Action::DeleteWordBack
                && *k == KeyBinding::new(KeyCode::Char('w'), KeyModifiers::CONTROL)
            {
                continue;
            }
            assert!(
                !globals.contains(k),
                "{a} shadows a global on {}",
                format_key(k)
            );
        }
        if a.context().types_text() {
            for k in a.default_keys() {
                assert!(
                    !k.is_plain_char(),
                    "{a} would eat typed text on {}",
                    format_key(k)
                );
            }
        }
    }
}

#[test]
fn every_action_has_a_unique_name_a_description_and_a_default_key() {
    let all = Keymap::all_actions();
    for (i, a) in all.iter().enumerate() {
        assert_eq!(Action::from_name(a.name()), Some(*a));
        assert!(
            a.name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{a}"
        );
        assert!(
            !a.description().is_empty() && !a.description().contains('\n'),
            "{a}"
        );
        assert!(!a.default_keys().is_empty(), "{a} has no default key");
        assert!(all.iter().skip(i + 1).all(|b| b.name() != a.name()));
    }
    for name in [
        "quit",
        "help",
        "palette",
        "new_task",
        "focus_next",
        "focus_prev",
        "jump_tab_1",
        "jump_tab_9",
        "next_tab",
        "prev_tab",
        "close_tab",
        "cancel_task",
        "refresh_card",
        "toggle_raw_card",
        "show_card",
        "show_skills",
        "use_example",
        "add_agent",
        "remove_agent",
        "send",
        "newline",
        "history_prev",
        "history_next",
        "scroll_up",
        "scroll_down",
        "page_up",
        "page_down",
        "scroll_top",
        "scroll_bottom",
        "attach_file",
        "save_artifact",
        "reattach",
        "next_artifact",
        "fold_json",
        "board_mark",
        "board_clear_filters",
        "up",
        "down",
    ] {
        assert!(Action::from_name(name).is_some(), "missing action {name}");
    }
    assert_eq!(Action::from_name("nope"), None);
    assert_eq!(Action::JumpTab1.tab_index(), Some(0));
    assert_eq!(Action::JumpTab9.tab_index(), Some(8));
    assert_eq!(Action::Quit.tab_index(), None);
}

#[test]
fn required_default_keys() {
    let km = Keymap::defaults();
    let keys = |a| km.keys_for(a);
    assert_eq!(keys(Action::Quit), ["q", "Ctrl-C"]);
    assert_eq!(keys(Action::Help), ["?", "F1"]);
    assert_eq!(keys(Action::Palette), ["Ctrl-P"]);
    assert_eq!(keys(Action::NewTask), ["n"]);
    assert_eq!(keys(Action::FocusNext), ["Tab"]);
    assert_eq!(keys(Action::FocusPrev), ["Shift-Tab"]);
    assert_eq!(keys(Action::JumpTab5), ["Alt-5"]);
    assert_eq!(keys(Action::NextTab), ["]"]);
    assert_eq!(keys(Action::PrevTab), ["["]);
    assert_eq!(keys(Action::CloseTab), ["Ctrl-W"]);
    assert_eq!(keys(Action::CancelTask), ["c"]);
    assert_eq!(keys(Action::RefreshCard), ["r"]);
    assert_eq!(keys(Action::ToggleRawCard), ["J"]);
    assert_eq!(keys(Action::ShowSkills), ["s"]);
    assert_eq!(keys(Action::UseExample), ["Enter"]);
    assert_eq!(keys(Action::AddAgent), ["a"]);
    assert_eq!(keys(Action::RemoveAgent), ["d"]);
    assert_eq!(keys(Action::Send), ["Enter"]);
    assert_eq!(
        keys(Action::Newline),
        ["Alt-Enter", "Shift-Enter", "Ctrl-J"]
    );
    assert_eq!(keys(Action::HistoryPrev), ["Up"]);
    assert_eq!(keys(Action::ScrollUp), ["Up", "k"]);
    assert_eq!(keys(Action::ScrollDown), ["Down", "j"]);
    assert_eq!(keys(Action::ScrollTop), ["g", "Home"]);
    assert_eq!(keys(Action::ScrollBottom), ["G", "End"]);
    assert_eq!(keys(Action::AttachFile), ["Ctrl-O"]);
    assert_eq!(keys(Action::SaveArtifact), ["S"]);
    assert_eq!(keys(Action::Reattach), ["R"]);
    assert_eq!(keys(Action::FoldJson), ["z"]);
}

#[test]
fn context_bindings_come_before_global_ones() {
    let km = Keymap::defaults();
    let plain = |c| ev(KeyCode::Char(c), KeyModifiers::NONE);
    let enter = ev(KeyCode::Enter, KeyModifiers::NONE);
    let up = ev(KeyCode::Up, KeyModifiers::NONE);

    // The same key means different things per context.
    assert_eq!(km.action(Context::Compose, &enter), Some(Action::Send));
    assert_eq!(km.action(Context::TaskTab, &enter), Some(Action::Compose));
    assert_eq!(
        km.action(Context::AgentList, &enter),
        Some(Action::UseExample)
    );
    assert_eq!(km.action(Context::Global, &enter), None);
    assert_eq!(km.action(Context::Compose, &up), Some(Action::HistoryPrev));
    assert_eq!(km.action(Context::TaskTab, &up), Some(Action::ScrollUp));
    assert_eq!(km.action(Context::AgentList, &up), Some(Action::Up));

    // Global keys reach every context...
    for ctx in Context::ALL {
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Char('p'), KeyModifiers::CONTROL)),
            Some(Action::Palette)
        );
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Action::Back)
        );
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Char('3'), KeyModifiers::ALT)),
            Some(Action::JumpTab3)
        );
    }
    // ...except plain characters in Compose, where they type.
    assert_eq!(km.action(Context::TaskTab, &plain('q')), Some(Action::Quit));
    assert_eq!(
        km.action(Context::AgentList, &plain('?')),
        Some(Action::Help)
    );
    for c in ['q', '?', 'n', ']', 'k', 'J', ' '] {
        assert_eq!(km.action(Context::Compose, &plain(c)), None, "{c:?}");
    }
    assert_eq!(
        km.action(Context::Compose, &ev(KeyCode::F(1), KeyModifiers::NONE)),
        Some(Action::Help)
    );

    // An override that puts a context key on a global's key shadows the global there only.
    let km = Keymap::with_overrides(&overrides(&[("show_skills", &["q"])])).unwrap();
    assert_eq!(
        km.action(Context::AgentList, &plain('q')),
        Some(Action::ShowSkills)
    );
    assert_eq!(km.action(Context::TaskTab, &plain('q')), Some(Action::Quit));
}

/// Issue [10] item 7: in the compose box and the prompts, readline's keys edit before any global key acts.
#[test]
fn text_fields_read_readline_keys_before_the_global_ones() {
    let km = Keymap::defaults();
    let c = |ch| ev(KeyCode::Char(ch), KeyModifiers::CONTROL);
    for ctx in [Context::Compose, Context::Prompt] {
        assert_eq!(
            km.action(ctx, &c('w')),
            Some(Action::DeleteWordBack),
            "{ctx}"
        );
        assert_eq!(km.action(ctx, &c('u')), Some(Action::KillToStart), "{ctx}");
        assert_eq!(km.action(ctx, &c('k')), Some(Action::KillToEnd), "{ctx}");
        assert_eq!(km.action(ctx, &c('a')), Some(Action::LineStart), "{ctx}");
        assert_eq!(km.action(ctx, &c('e')), Some(Action::LineEnd), "{ctx}");
        assert_eq!(km.action(ctx, &c('y')), Some(Action::Yank), "{ctx}");
        assert_eq!(km.action(ctx, &c('z')), Some(Action::Undo), "{ctx}");
        assert_eq!(km.action(ctx, &c('7')), Some(Action::Undo), "{ctx}: Ctrl-_");
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Char('b'), KeyModifiers::ALT)),
            Some(Action::WordLeft),
            "{ctx}"
        );
        assert_eq!(
            km.action(ctx, &ev(KeyCode::Backspace, KeyModifiers::ALT)),
            Some(Action::DeleteWordBack),
            "{ctx}"
        );
        // Global chords that are no editing key still reach the field's owner.
        assert_eq!(km.action(ctx, &c('c')), Some(Action::Quit), "{ctx}");
        assert_eq!(km.action(ctx, &c('p')), Some(Action::Palette), "{ctx}");
    }
    // Outside a text field the same keys keep their meaning.
    assert_eq!(km.action(Context::TaskTab, &c('w')), Some(Action::CloseTab));
    assert_eq!(
        km.action(Context::TaskTab, &c('u')),
        Some(Action::HalfPageUp)
    );
    // The field's own keys still come first.
    assert_eq!(
        km.action(Context::Compose, &ev(KeyCode::Enter, KeyModifiers::NONE)),
        Some(Action::Send)
    );
}

#[test]
fn editing_keys_are_remapped_by_name_and_never_to_a_typed_character() {
    let km = Keymap::with_overrides(&overrides(&[
        ("delete_word_back", &["alt-backspace"]),
        ("close_tab", &["ctrl-w"]),
        ("undo", &["ctrl-u"]),
        ("kill_to_start", &["alt-u"]),
    ]))
    .unwrap();
    let ctrl_w = ev(KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(
        km.action(Context::Compose, &ctrl_w),
        Some(Action::CloseTab),
        "unbound from editing, Ctrl-W closes the tab even while typing"
    );
    assert_eq!(
        km.action(
            Context::Prompt,
            &ev(KeyCode::Char('u'), KeyModifiers::CONTROL)
        ),
        Some(Action::Undo)
    );
    let e = Keymap::with_overrides(&overrides(&[("yank", &["y"])])).unwrap_err();
    assert!(
        e.contains("keys.yank") && e.contains("the compose box and the prompts"),
        "{e}"
    );
    let e = Keymap::with_overrides(&overrides(&[("undo", &["ctrl-y"])])).unwrap_err();
    assert!(e.contains("'yank'") && e.contains("'undo'"), "{e}");
}

#[test]
fn overrides_replace_an_actions_keys() {
    let km = Keymap::with_overrides(&overrides(&[
        ("quit", &["ctrl-q", "CTRL+Q"]),
        ("help", &[]),
        ("send", &["ctrl-s"]),
    ]))
    .unwrap();
    assert_eq!(km.keys_for(Action::Quit), ["Ctrl-Q"], "duplicates collapse");
    assert!(km.keys_for(Action::Help).is_empty());
    let g = Context::Global;
    assert_eq!(
        km.action(g, &ev(KeyCode::Char('q'), KeyModifiers::NONE)),
        None
    );
    assert_eq!(
        km.action(g, &ev(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        None
    );
    assert_eq!(
        km.action(g, &ev(KeyCode::Char('q'), KeyModifiers::CONTROL)),
        Some(Action::Quit)
    );
    assert_eq!(km.action(g, &ev(KeyCode::F(1), KeyModifiers::NONE)), None);
    let c = Context::Compose;
    assert_eq!(
        km.action(c, &ev(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        Some(Action::Send)
    );
    assert_eq!(km.action(c, &ev(KeyCode::Enter, KeyModifiers::NONE)), None);
    // Untouched actions keep their defaults.
    assert_eq!(km.keys_for(Action::Palette), ["Ctrl-P"]);
}

#[test]
fn override_errors_name_the_culprit() {
    let e = Keymap::with_overrides(&overrides(&[("quitt", &["q"])])).unwrap_err();
    assert!(e.contains("'quitt'"), "{e}");

    let e = Keymap::with_overrides(&overrides(&[("quit", &["ctrl-q", "hyper-q"])])).unwrap_err();
    assert!(e.contains("keys.quit") && e.contains("hyper-q"), "{e}");

    // Two actions on one key in one context: both named, plus the key and the context.
    let e = Keymap::with_overrides(&overrides(&[("help", &["ctrl-p"])])).unwrap_err();
    assert!(
        e.contains("'palette'")
            && e.contains("'help'")
            && e.contains("Ctrl-P")
            && e.contains("Global"),
        "{e}"
    );
    let e = Keymap::with_overrides(&overrides(&[("fold_json", &["S"])])).unwrap_err();
    assert!(
        e.contains("'save_artifact'") && e.contains("'fold_json'") && e.contains("Task"),
        "{e}"
    );

    // Freeing the key in the same overrides resolves it.
    assert!(
        Keymap::with_overrides(&overrides(&[
            ("help", &["ctrl-p"]),
            ("palette", &["ctrl-k"])
        ]))
        .is_ok()
    );

    // Same key in different contexts is fine.
    assert!(Keymap::with_overrides(&overrides(&[("show_card", &["c"])])).is_ok());

    // A plain character in Compose would stop the user typing it.
    let e = Keymap::with_overrides(&overrides(&[("send", &["s"])])).unwrap_err();
    assert!(e.contains("keys.send") && e.contains("'s'"), "{e}");
}

#[test]
fn help_rows_cover_every_action_once_grouped_by_context() {
    let km = Keymap::defaults();
    let rows = km.help_rows();
    assert_eq!(rows.len(), Keymap::all_actions().len());
    for a in Keymap::all_actions() {
        let row = rows.iter().find(|r| r.action == *a).unwrap();
        assert_eq!(row.name, a.name());
        assert_eq!(row.description, a.description());
        assert_eq!(row.context, a.context());
        assert_eq!(row.keys, km.keys_for(*a));
    }
    let order: Vec<Context> = rows.iter().map(|r| r.context).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(
        order, sorted,
        "rows are grouped Global, AgentList, TaskTab, Compose"
    );
    assert_eq!(rows[0].action, Action::Quit);
}

fn press(code: KeyCode) -> KeyEvent {
    ev(code, KeyModifiers::NONE)
}

#[test]
fn dialog_keys_are_actions_in_their_own_contexts() {
    let km = Keymap::defaults();
    let modal = |ctx, scrolls, code| km.modal_action(ctx, scrolls, &press(code));
    assert_eq!(
        modal(Context::Dialog, false, KeyCode::Char('y')),
        Some(Action::Confirm)
    );
    assert_eq!(
        modal(Context::Dialog, false, KeyCode::Enter),
        Some(Action::Confirm)
    );
    assert_eq!(
        km.modal_action(
            Context::Approval,
            true,
            &KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)
        ),
        Some(Action::ApproveDeviceFlow)
    );
    assert_eq!(
        modal(Context::Approval, true, KeyCode::Char('o')),
        None,
        "a bare letter decides nothing in the authorization dialog"
    );
    assert_eq!(
        modal(Context::Approval, true, KeyCode::Char('l')),
        Some(Action::Later)
    );
    assert_eq!(
        modal(Context::Save, false, KeyCode::Char('y')),
        Some(Action::ReplaceFile)
    );
    assert_eq!(
        modal(Context::Save, false, KeyCode::Enter),
        Some(Action::ChoosePart),
        "Enter chooses in the picker; it never replaces a file"
    );
    // Shared scrolling reaches every modal that scrolls, and Esc (back) every modal.
    assert_eq!(
        modal(Context::Viewer, true, KeyCode::PageDown),
        Some(Action::PageDown)
    );
    assert_eq!(
        modal(Context::Approval, true, KeyCode::Char('G')),
        Some(Action::ScrollBottom)
    );
    assert_eq!(
        modal(Context::Dialog, false, KeyCode::Esc),
        Some(Action::Back)
    );
    // In the viewer `q` closes; in a prompt it is text.
    assert_eq!(
        modal(Context::Viewer, true, KeyCode::Char('q')),
        Some(Action::CloseViewer)
    );
    assert_eq!(modal(Context::Prompt, true, KeyCode::Char('q')), None);
    assert_eq!(modal(Context::Prompt, true, KeyCode::Char('j')), None);
    assert_eq!(
        modal(Context::Prompt, true, KeyCode::Down),
        Some(Action::ScrollDown)
    );
}

#[test]
fn every_pane_reads_the_same_scroll_keys() {
    let km = Keymap::defaults();
    let cases = [
        (ev(KeyCode::PageDown, KeyModifiers::NONE), Action::PageDown),
        (
            ev(KeyCode::Char('f'), KeyModifiers::CONTROL),
            Action::PageDown,
        ),
        (ev(KeyCode::Char(' '), KeyModifiers::NONE), Action::PageDown),
        (ev(KeyCode::PageUp, KeyModifiers::NONE), Action::PageUp),
        (
            ev(KeyCode::Char('b'), KeyModifiers::CONTROL),
            Action::PageUp,
        ),
        (
            ev(KeyCode::Char('d'), KeyModifiers::CONTROL),
            Action::HalfPageDown,
        ),
        (
            ev(KeyCode::Char('u'), KeyModifiers::CONTROL),
            Action::HalfPageUp,
        ),
        (
            ev(KeyCode::Char('g'), KeyModifiers::NONE),
            Action::ScrollTop,
        ),
        (ev(KeyCode::Home, KeyModifiers::NONE), Action::ScrollTop),
        (
            ev(KeyCode::Char('G'), KeyModifiers::NONE),
            Action::ScrollBottom,
        ),
        (ev(KeyCode::End, KeyModifiers::NONE), Action::ScrollBottom),
    ];
    for ctx in [Context::AgentList, Context::TaskTab] {
        for (k, a) in &cases {
            assert_eq!(km.action(ctx, k), Some(*a), "{ctx}: {k:?}");
        }
    }
    // While typing they are the text box's (Space is a space).
    assert_eq!(
        km.action(Context::Compose, &press(KeyCode::Char(' '))),
        None
    );
    assert_eq!(
        km.action(Context::Compose, &press(KeyCode::Char('G'))),
        None
    );
}

#[test]
fn remapping_a_dialog_key_works_in_the_dialog_and_conflicts_are_refused() {
    let km =
        Keymap::with_overrides(&overrides(&[("deny", &["alt-x"]), ("confirm", &["j"])])).unwrap();
    assert_eq!(
        km.modal_action(
            Context::Approval,
            true,
            &KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT)
        ),
        Some(Action::Deny)
    );
    assert_ne!(
        km.modal_action(
            Context::Approval,
            true,
            &KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL)
        ),
        Some(Action::Deny),
        "the old key no longer denies"
    );
    assert_eq!(
        km.modal_action(Context::Dialog, false, &press(KeyCode::Char('j'))),
        Some(Action::Confirm)
    );
    // Two actions of one dialog on one key: refused, naming both and the context.
    let e = Keymap::with_overrides(&overrides(&[("deny", &["ctrl-y"])])).unwrap_err();
    assert!(
        e.contains("'approve_configured'") && e.contains("'deny'"),
        "{e}"
    );
    assert!(e.contains("Authorization"), "{e}");
    // The same key in two contexts is fine: `y` replaces in Save and confirms in Dialog.
    assert!(Keymap::with_overrides(&overrides(&[("replace_file", &["y"])])).is_ok());
    // A prompt types: a printable key cannot accept it.
    let e = Keymap::with_overrides(&overrides(&[("accept", &["a"])])).unwrap_err();
    assert!(e.contains("types text in a prompt"), "{e}");
    // The help and the README table follow the remap.
    assert!(km.markdown_table().contains("| `Alt-X` | `deny` |"));
}

/// The README's table between its markers is the generated one; `UPDATE_README=1` rewrites it.
#[test]
fn readme_key_table_matches_keymap() {
    const START: &str = "<!-- keys:start (generated from src/config/keymap.rs: UPDATE_README=1 cargo test --lib readme_key_table) -->\n";
    const END: &str = "<!-- keys:end -->";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let table = Keymap::defaults().markdown_table();
    let (Some(a), Some(b)) = (readme.find(START), readme.find(END)) else {
        panic!("README.md lacks the key table markers {START:?} … {END:?}");
    };
    let current = &readme[a + START.len()..b];
    let wanted = format!("\n{table}\n");
    if current != wanted && std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{START}{wanted}{}", &readme[..a], &readme[b..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    assert_eq!(
        current, wanted,
        "README.md's key table is out of date: run UPDATE_README=1 cargo test --lib readme_key_table"
    );
}
