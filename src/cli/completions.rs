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

/// The variable that switches the binary into answering a completion request. Ours rather than clap's
/// default `COMPLETE`, which is generic enough to be set for something else in a user's environment.
pub const COMPLETE_VAR: &str = "A2A_CONSOLE_COMPLETE";

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
pub fn agent_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let words: Vec<OsString> = std::env::args_os().collect();
    let explicit = config_flag(&words);
    let Ok((config, _)) = crate::config::load(explicit.as_deref()) else {
        return Vec::new();
    };
    let prefix = current.to_string_lossy();
    config
        .agents
        .iter()
        .filter_map(|a| Some((a.name.clone()?, a.url.clone())))
        .filter(|(name, _)| name.starts_with(prefix.as_ref()))
        .map(|(name, url)| CompletionCandidate::new(name).help(Some(url.into())))
        .collect()
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
