//! Shell completions (`a2a-console completions bash|zsh|fish|elvish|powershell`), by clap_complete's dynamic
//! engine: the script the shell sources calls the binary back at each Tab, so subcommands and flags always match
//! the installed version, and agent names come from the config file as it is at that moment (a script generated
//! once would offer the agents configured on the day it was written).

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};

use super::args::Cli;
use crate::markup::json_view::needs_escape;

/// The variable that switches the binary into answering a completion request. Ours rather than clap's
/// default `COMPLETE`, which is generic enough to be set for something else in a user's environment.
pub const COMPLETE_VAR: &str = "A2A_CONSOLE_COMPLETE";

/// The shell whose completion request this process answers (`bash`, `zsh`, …), read before clap clears it.
static ASKING: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The shells a registration script can be printed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

impl Shell {
    fn completer(self) -> &'static dyn EnvCompleter {
        match self {
            Shell::Bash => &Bash,
            Shell::Zsh => &Zsh,
            Shell::Fish => &Fish,
            Shell::Elvish => &Elvish,
            Shell::Powershell => &Powershell,
        }
    }
}

/// Answer a completion request when the shell's script called us for one (then exit); otherwise return and
/// let the program run. Must run before anything writes to stdout.
pub fn answer_if_asked() {
    // clap removes the variable before it calls our completers: keep which shell is asking for them.
    if let Ok(shell) = std::env::var(COMPLETE_VAR) {
        let _ = ASKING.set(shell);
    }
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(COMPLETE_VAR)
        .complete();
}

/// The script that registers completions for `shell`, calling back `program` (the running binary's path when
/// known, so completion works even where the binary is not on PATH).
pub fn registration(shell: Shell, program: &str) -> Result<String, std::io::Error> {
    let mut out = Vec::new();
    shell.completer().write_registration(
        COMPLETE_VAR,
        "a2a-console",
        "a2a-console",
        program,
        &mut out,
    )?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// What `a2a-console completions SHELL` prints.
pub fn print(shell: Shell) -> Result<(), std::io::Error> {
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| "a2a-console".to_string());
    let script = registration(shell, &program)?;
    use std::io::Write as _;
    std::io::stdout().write_all(script.as_bytes())
}

/// Configured agent names, with their URL as the description, for an `AGENT` argument. The config is the one
/// the command being completed would use: its `--config FILE` if it has one, else the usual discovery.
///
/// Each name is written as the shell asking must read it (see [`quoted_for`]), so a name like `$(rm -rf ~)`
/// or `a; b` completes to one quoted word that runs nothing.
pub fn agent_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let words: Vec<OsString> = std::env::args_os().collect();
    let explicit = config_flag(&words);
    let Ok((config, _)) = crate::config::load(explicit.as_deref()) else {
        return Vec::new();
    };
    let shell = ASKING.get().map(String::as_str).unwrap_or_default();
    let prefix = current.to_string_lossy();
    config
        .agents
        .iter()
        .filter_map(|a| Some((a.name.clone()?, a.url.clone())))
        .filter_map(|(name, url)| {
            let word = quoted_for(shell, &name)?;
            typed_so_far(&prefix, &name, &word).then_some((word, url))
        })
        .map(|(word, url)| CompletionCandidate::new(word).help(Some(one_line(&url).into())))
        .collect()
}

/// Whether what the user typed so far is the start of this name: as typed raw (`bil`), or as the start of
/// the quoted word we offer (`'bil`, `$'a\x3b`), or with its opening quote dropped.
fn typed_so_far(typed: &str, name: &str, word: &str) -> bool {
    let unquoted = typed
        .strip_prefix("$'")
        .or_else(|| typed.strip_prefix(['\'', '"']))
        .unwrap_or(typed);
    name.starts_with(typed) || word.starts_with(typed) || name.starts_with(unquoted)
}

/// The URL as the description: one line, no control characters (fish and PowerShell cut value from help at a
/// tab, zsh at a line break).
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if needs_escape(c) { ' ' } else { c })
        .collect()
}

/// `name` as one bash word that is exactly it: bare when plain, ANSI-C quoted (`$'\xHH'`) when it holds
/// controls or quoting characters, else single-quoted.
pub fn bash_word(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:@%+=/".contains(c));
    if plain {
        name.to_string()
    } else if name.chars().any(needs_escape) || name.contains(['\'', '\\', '*', '?', '[', ']']) {
        ansi_c_quote(name)
    } else {
        format!("'{name}'")
    }
}

/// `name` as one word of `shell`'s command line, or `None` when that shell's completion cannot carry it
/// faithfully (then it is not offered; the user can still type it).
///
/// - bash inserts what we print as it is, and reads our output unquoted (word splitting on `\x0b`, then
///   globbing): so a name that is not plain is single-quoted, or ANSI-C quoted (`$'…'`, with `\xHH` for every
///   quote, backslash, glob character and control character) when single quotes cannot hold it.
/// - zsh (`compadd`), fish and elvish quote the word themselves when they insert it; they take one
///   candidate per line, so a name with a control character (a line break would make two) is left out.
/// - PowerShell inserts the text as it is: single-quoted (with `'` and its typographic look-alikes doubled,
///   as PowerShell reads all four as quotes), names with control characters left out.
pub fn quoted_for(shell: &str, name: &str) -> Option<String> {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:@%+=/".contains(c));
    // Controls, and what a terminal draws as nothing or reorders (bidi controls, zero-width characters):
    // a completed word must look like what it is.
    let has_control = name.chars().any(needs_escape);
    match shell {
        "bash" => Some(bash_word(name)),
        _ if has_control => None,
        "powershell" if plain => Some(name.to_string()),
        "powershell" => {
            let mut out = String::from("'");
            for c in name.chars() {
                if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
                    out.push(c);
                }
                out.push(c);
            }
            out.push('\'');
            Some(out)
        }
        _ => Some(name.to_string()),
    }
}

/// bash's `$'…'`: printable ASCII other than quotes, backslashes and glob characters as it is, non-ASCII
/// printable characters as they are, everything else as `\xHH` (ASCII) or `\uHHHH` / `\UHHHHHHHH`.
fn ansi_c_quote(name: &str) -> String {
    let mut out = String::from("$'");
    for c in name.chars() {
        match c {
            '\'' | '\\' | '*' | '?' | '[' | ']' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_ascii() && !c.is_control() => out.push(c),
            c if c.is_ascii() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if needs_escape(c) && (c as u32) <= 0xFFFF => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if needs_escape(c) => out.push_str(&format!("\\U{:08x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The value of the last `--config FILE` / `--config=FILE` among the words being completed.
fn config_flag(words: &[OsString]) -> Option<PathBuf> {
    let mut found = None;
    let mut it = words.iter().map(|w| w.to_string_lossy());
    while let Some(w) = it.next() {
        if w == "--config" {
            found = it.next().map(|v| PathBuf::from(v.as_ref()));
        } else if let Some(v) = w.strip_prefix("--config=") {
            found = Some(PathBuf::from(v));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_flag_is_read_from_the_words_in_both_spellings_and_the_last_wins() {
        let w = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(config_flag(&w(&["a2a-console", "card", ""])), None);
        assert_eq!(
            config_flag(&w(&[
                "x",
                "--",
                "a2a-console",
                "--config",
                "a.toml",
                "card"
            ])),
            Some(PathBuf::from("a.toml"))
        );
        assert_eq!(
            config_flag(&w(&["x", "--config=a.toml", "--config", "b.toml"])),
            Some(PathBuf::from("b.toml"))
        );
        // A trailing `--config` with nothing after it names no file.
        assert_eq!(config_flag(&w(&["x", "--config"])), None);
    }

    #[test]
    fn every_shell_gets_a_script_that_calls_the_program_back_with_our_variable() {
        for shell in [
            Shell::Bash,
            Shell::Zsh,
            Shell::Fish,
            Shell::Elvish,
            Shell::Powershell,
        ] {
            let s = registration(shell, "/opt/bin/a2a-console").unwrap_or_default();
            assert!(s.contains(COMPLETE_VAR), "{shell:?}: {s}");
            assert!(s.contains("/opt/bin/a2a-console"), "{shell:?}: {s}");
        }
    }
}
