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
            format!(
                "[[agents]]\nname = \"{n}\"\nurl = \"http://127.0.0.1:{}\"\n\n",
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
