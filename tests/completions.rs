//! Shell completions from the real binary in a real bash: the script `completions bash` prints is sourced, a
//! Tab is simulated the way bash's completion machinery calls the function, and the candidates offered are read
//! back. Agent names come from the config file live (the one `--config` names, when the line has one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

/// Complete `words` (the last one is the word under the cursor) in bash and return what bash would offer.
fn complete_in_bash(words: &[&str], config: &std::path::Path) -> Vec<String> {
    let script = common::cli(&["completions", "bash"]);
    assert_eq!(script.code, 0, "{}", script.all());
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("a2a-console.bash");
    std::fs::write(&reg, &script.stdout).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let driver = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\nCOMP_TYPE=9\n_clap_complete_a2a_console a2a-console '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        reg.display(),
        quoted.join(" "),
        words[cword],
        words.get(cword.wrapping_sub(1)).copied().unwrap_or("")
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(driver)
        .env("A2A_CONSOLE_CONFIG", config)
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn config_with(dir: &std::path::Path, file: &str, names: &[&str]) -> std::path::PathBuf {
    let body: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            // A JSON string is a TOML basic string too (`\"`, `\\`, `\n`, `\uXXXX`): any name can be written.
            format!(
                "[[agents]]\nname = {}\nurl = \"http://127.0.0.1:{}\"\n\n",
                serde_json::to_string(n).unwrap(),
                9100 + i
            )
        })
        .collect();
    let path = dir.join(file);
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn subcommands_complete_in_bash() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_with(dir.path(), "c.toml", &[]);
    let got = complete_in_bash(&["a2a-console", "su"], &config);
    assert!(got.iter().any(|c| c.starts_with("subscribe")), "{got:?}");
    assert!(got.iter().all(|c| c.starts_with("su")), "{got:?}");
}

#[test]
fn configured_agent_names_complete_where_an_agent_goes() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_with(dir.path(), "c.toml", &["billing", "bookings", "weather"]);
    let got = complete_in_bash(&["a2a-console", "card", "b"], &config);
    let names: Vec<&str> = got
        .iter()
        .map(|c| c.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(names, ["billing", "bookings"], "{got:?}");
    // The same for a subcommand with more before it.
    let got = complete_in_bash(&["a2a-console", "send", "w"], &config);
    assert!(got.iter().any(|c| c.starts_with("weather")), "{got:?}");
}

#[test]
fn an_explicit_config_on_the_line_is_the_one_whose_agents_complete() {
    let dir = tempfile::tempdir().unwrap();
    let usual = config_with(dir.path(), "usual.toml", &["alpha"]);
    let other = config_with(dir.path(), "other.toml", &["omega"]);
    let other = other.to_str().unwrap();
    let got = complete_in_bash(&["a2a-console", "--config", other, "get", ""], &usual);
    assert!(got.iter().any(|c| c.starts_with("omega")), "{got:?}");
    assert!(!got.iter().any(|c| c.starts_with("alpha")), "{got:?}");
}

#[test]
fn zsh_and_fish_scripts_call_the_binary_back() {
    for shell in ["zsh", "fish"] {
        let run = common::cli(&["completions", shell]);
        assert_eq!(run.code, 0, "{}", run.all());
        assert!(
            run.stdout.contains("A2A_CONSOLE_COMPLETE"),
            "{shell}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains(common::bin()),
            "{shell}: {}",
            run.stdout
        );
    }
    let bad = common::cli(&["completions", "tcsh"]);
    assert_eq!(bad.code, 2, "{}", bad.all());
}

/// Agent names that would run something if a completed command line took them as they are, each with the file
/// it would create (`touch`): a command substitution, backticks, a `;`, a line break, spaces and quotes, a
/// glob, and a `'` that would end single quotes early.
fn hostile_names(dir: &std::path::Path) -> Vec<(String, std::path::PathBuf)> {
    let f = |i: usize| dir.join(format!("pwned-{i}"));
    // Each starts with its own letter, typed before Tab so that it is the only candidate.
    let names = [
        format!("a$(touch {})", f(0).display()),
        format!("b`touch {}`", f(1).display()),
        format!("c; touch {}", f(2).display()),
        format!("d\ntouch {}", f(3).display()),
        format!("e it's \"q\" $(touch {})", f(4).display()),
        format!("f glob*?[a] && touch {}", f(5).display()),
    ];
    names
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, f(i)))
        .collect()
}

/// bash offers each hostile name as one quoted word, and a command line holding that word passes the name as
/// one argument and runs nothing (before, the names were offered raw: completing `$(touch …)` and pressing
/// Enter ran `touch`).
#[test]
fn hostile_agent_names_complete_to_quoted_words_that_run_nothing_in_bash() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (name, pwned)) in hostile_names(dir.path()).into_iter().enumerate() {
        let config = config_with(dir.path(), &format!("h{i}.toml"), &[name.as_str()]);
        let got = complete_in_bash(&["a2a-console", "card", &name[..1]], &config);
        assert_eq!(got.len(), 1, "{name:?}: one candidate, got {got:?}");
        let word = &got[0];
        assert_ne!(word, &name, "{name:?} offered unquoted");
        // The line as bash would run it once the word is completed: the arguments it gets, NUL-separated.
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\0' a2a-console card {word}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{word}");
        let args: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .split('\0')
            .map(str::to_string)
            .collect();
        assert_eq!(args, ["a2a-console", "card", name.as_str(), ""], "{word}");
        assert!(!pwned.exists(), "{word} ran a command");
    }
}

/// Type `a2a-console card ` and the first letter of the name, then Tab, in a real interactive shell (tmux), then put `printf` in front and a marker
/// after, press Enter, and read what the command received. `None` when the shell is not installed.
fn complete_interactively(
    shell: &str,
    dir: &std::path::Path,
    config: &std::path::Path,
    first: char,
) -> Option<Vec<String>> {
    let path = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {shell}"))
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let shell_path = String::from_utf8_lossy(&path.stdout).trim().to_string();
    let script = common::cli(&["completions", shell]);
    assert_eq!(script.code, 0, "{}", script.all());
    let reg = dir.join(format!("reg.{shell}"));
    std::fs::write(&reg, &script.stdout).unwrap();
    let start = match shell {
        "bash" => {
            let rc = dir.join("bashrc");
            std::fs::write(&rc, format!("PS1='$ '\nsource '{}'\n", reg.display())).unwrap();
            format!("{shell_path} --noprofile --rcfile '{}' -i", rc.display())
        }
        "zsh" => {
            let rc = dir.join(".zshrc");
            std::fs::write(
                &rc,
                format!(
                    "PS1='$ '\nbindkey -e\nautoload -Uz compinit\ncompinit -u -D\nsource '{}'\n",
                    reg.display()
                ),
            )
            .unwrap();
            format!("ZDOTDIR='{}' {shell_path} -i", dir.display())
        }
        "fish" => format!(
            "{shell_path} --no-config --private -i -C 'set -g fish_greeting; function fish_prompt; echo -n \\$\\ ; end; source {}'",
            reg.display()
        ),
        _ => unreachable!(),
    };
    let session = format!("a2a-compl-{shell}-{}", std::process::id());
    let out = dir.join(format!("args.{shell}"));
    let _ = std::fs::remove_file(&out);
    common::tmux_start(
        &session,
        &format!(
            "env A2A_CONSOLE_CONFIG='{}' HOME='{}' {start}",
            config.display(),
            dir.display()
        ),
    );
    let send = |keys: &[&str]| {
        let mut a = vec!["send-keys", "-t", session.as_str()];
        a.extend_from_slice(keys);
        common::tmux(&a);
    };
    common::wait_pane(&session, "the prompt", |p| p.contains('$'));
    send(&["-l", &format!("a2a-console card {first}")]);
    send(&["Tab"]);
    // Completion calls the binary back: give it its time by waiting for the line to change, or a second.
    let before = std::time::Instant::now();
    while before.elapsed() < std::time::Duration::from_secs(3) {
        let pane = common::tmux(&["capture-pane", "-p", "-t", &session]);
        if !pane
            .trim_end()
            .ends_with(&format!("a2a-console card {first}"))
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The cursor is after the completed word: the marker goes there, `printf` in front.
    send(&["-l", &format!(" > '{}'; echo DONE-4\"\"2", out.display())]);
    send(&["C-a"]);
    send(&["-l", "printf '%s\\n' "]);
    send(&["Enter"]);
    common::wait_pane(&session, "the command to run", |p| {
        p.lines().any(|l| l.trim() == "DONE-42")
    });
    common::tmux(&["kill-session", "-t", &session]);
    Some(
        std::fs::read_to_string(&out)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

/// The same names completed by a person at a real bash, zsh and fish prompt (those installed): what the command
/// receives is the name as one argument, or nothing at all where the shell cannot carry the name (a line
/// break in zsh and fish); nothing ever runs.
#[test]
fn hostile_agent_names_completed_at_a_real_prompt_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let names = hostile_names(dir.path());
    let mut tried = Vec::new();
    for shell in ["bash", "zsh", "fish"] {
        for (i, (name, pwned)) in names.iter().enumerate() {
            let config = config_with(dir.path(), &format!("{shell}{i}.toml"), &[name.as_str()]);
            let first = name.chars().next().unwrap();
            let Some(args) = complete_interactively(shell, dir.path(), &config, first) else {
                eprintln!("{shell} is not installed: not tried");
                break;
            };
            tried.push(shell);
            assert!(
                !pwned.exists(),
                "{shell}: completing {name:?} ran a command"
            );
            let shown: Vec<&str> = name.lines().collect();
            let expected: Vec<&str> = ["a2a-console", "card"].into_iter().chain(shown).collect();
            let nothing = ["a2a-console", "card", &name[..1]];
            assert!(
                args == expected || (shell != "bash" && name.contains('\n') && args == nothing),
                "{shell}: {name:?} arrived as {args:?}"
            );
        }
    }
    assert!(tried.contains(&"bash"), "bash must be there");
}
