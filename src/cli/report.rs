//! What the CLI says on stderr: errors, warnings and how to continue a waiting task. One line each: text
//! after `a2a-console: `, or, when the command was given `--json`, one JSON object per line with stable keys
//! (the README's "Command line" lists them), so a script reads stderr as it reads stdout.
//!
//! Whether the command was given `--json` is a property of the whole run, and errors are said from deep
//! places (the stream follower, the stdout writer that exits when the pipe closes), so it is one
//! process-wide switch set once at the start rather than a flag threaded through every caller.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use a2a::TaskState;
use serde_json::{Value, json};

use super::exit::Exit;
use super::output::safe_json;
use crate::remote::error::{ErrorKind, RemoteError};

static JSON: AtomicBool = AtomicBool::new(false);

/// Say everything as JSON from now on (the command was given `--json`).
pub fn set_json(on: bool) {
    JSON.store(on, Ordering::Relaxed);
}

pub fn json() -> bool {
    JSON.load(Ordering::Relaxed)
}

/// Whether a command line asks for JSON: `--json` before any `--` (after it, it is a message's text). For
/// clap's own errors, said before the command line is understood.
pub fn asks_for_json(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// The `kind` of an error, as scripts see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Usage,
    Transport,
    Agent,
    /// `card`: the pinned or configured key did not sign the card (exit 7).
    Alarm,
    /// stdout could not be written (exit 141).
    Output,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Usage => "usage",
            Kind::Transport => "transport",
            Kind::Agent => "agent",
            Kind::Alarm => "alarm",
            Kind::Output => "output",
        }
    }

    fn of(e: &RemoteError) -> Self {
        match e.kind {
            ErrorKind::Usage => Kind::Usage,
            ErrorKind::Transport => Kind::Transport,
            ErrorKind::Agent => Kind::Agent,
        }
    }
}

/// Write one line to stderr. A closed stderr is not worth failing over: the exit code still says it.
fn line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

fn json_line(v: &Value) {
    line(&safe_json(v, false));
}

/// The error that ends the command: said once, and its exit code returned.
pub fn fail(e: &RemoteError) -> Exit {
    let exit = Exit::for_error(e);
    said(Kind::of(e), &e.message, exit, e.code);
    exit
}

/// An error that ends the command with `exit`, from something other than a remote call (the config file,
/// the store, the completion script). Said as it is, as before: these are the user's own files' errors, and
/// a TOML error spans lines (under `--json` a line break is `\n` inside the string).
pub fn failure(kind: Kind, message: &str, exit: Exit) -> Exit {
    said(kind, message, exit, None);
    exit
}

fn said(kind: Kind, message: &str, exit: Exit, code: Option<i32>) {
    if json() {
        let mut v = json!({"error": message, "exit": exit.code(), "kind": kind.name()});
        if let (Some(code), Some(map)) = (code, v.as_object_mut()) {
            map.insert("code".into(), json!(code));
        }
        json_line(&v);
    } else if kind == Kind::Alarm {
        line(&format!("a2a-console: alarm: {message}"));
    } else {
        line(&format!("a2a-console: {message}"));
    }
}

/// An error a stream reported before it went on: said, and the stream is read further (JSON: no `exit`,
/// `"continuing": true`).
pub fn continuing(e: &RemoteError) {
    if json() {
        json_line(&json!({"error": e.message, "kind": Kind::of(e).name(), "continuing": true}));
    } else {
        line(&format!("a2a-console: {} (continuing)", e.message));
    }
}

/// Something the user should know that does not end the command (callers pass sanitised text, as before).
pub fn warning(message: &str) {
    if json() {
        json_line(&json!({"warning": message, "kind": "warning"}));
    } else {
        line(&format!("a2a-console: {message}"));
    }
}

/// How to run the CLI again on the same agent: its name or URL as typed, and the global options that pick
/// how it is reached, each one shell word.
pub struct Again {
    words: Vec<String>,
    agent: String,
}

impl Again {
    pub fn new(global: &super::GlobalOpts, agent: &str) -> Self {
        let mut words = Vec::new();
        let mut flag = |name: &str, value: &str| {
            words.push(name.to_string());
            words.push(word(value));
        };
        if let Some(c) = &global.config {
            flag("--config", &c.to_string_lossy());
        }
        if let Some(b) = &global.binding {
            flag("--binding", b);
        }
        if let Some(p) = &global.protocol {
            flag("--protocol", p);
        }
        if let Some(v) = &global.bearer_env {
            flag("--bearer-env", v);
        }
        for o in &global.allow_origins {
            flag("--allow-origin", o);
        }
        // `--header` values are left out: they may carry a credential, and this line is printed.
        Self {
            words,
            agent: word(agent),
        }
    }

    /// `a2a-console [global options] SUB AGENT REST…`; `rest` is shell words already.
    pub fn command(&self, sub: &str, rest: &[&str]) -> String {
        let mut all = vec!["a2a-console"];
        all.extend(self.words.iter().map(String::as_str));
        all.extend([sub, self.agent.as_str()]);
        all.extend_from_slice(rest);
        all.join(" ")
    }

    /// The command that answers task `id`.
    fn send(&self, id: &str) -> String {
        self.command("send", &["--task", &word(id), "'…'"])
    }
}

/// One shell word that is exactly `s`, with nothing a terminal acts on (controls come out as `$'\xHH'`).
fn word(s: &str) -> String {
    super::completions::bash_word(s)
}

/// The task waits for the user (exit 6): say how to continue it.
pub fn waiting(again: &Again, id: &str, state: &TaskState) -> Exit {
    let command = again.send(id);
    let (state_name, why) = match state {
        TaskState::AuthRequired => (
            "auth-required",
            "the agent needs authorization (give it as its message asks)",
        ),
        _ => ("input-required", "the agent is waiting for your answer"),
    };
    if json() {
        json_line(&json!({
            "kind": "waiting",
            "state": state_name,
            "task": id,
            "continue": command,
            "exit": Exit::Waiting.code(),
        }));
    } else {
        line(&format!("a2a-console: {why}; continue with: {command}"));
    }
    Exit::Waiting
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_asked_for_only_before_the_end_of_options() {
        let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert!(asks_for_json(args(&["a2a-console", "send", "--json"])));
        assert!(!asks_for_json(args(&[
            "a2a-console",
            "send",
            "a",
            "--",
            "--json"
        ])));
        assert!(
            !asks_for_json(args(&["--json", "send"])),
            "argv[0] is the program"
        );
    }

    #[test]
    fn the_command_to_continue_is_shell_words_with_the_same_globals() {
        let global = super::super::GlobalOpts {
            binding: Some("HTTP+JSON".into()),
            bearer_env: Some("TOKEN".into()),
            headers: vec!["Authorization: Bearer secret".into()],
            ..Default::default()
        };
        let again = Again::new(&global, "my agent");
        assert_eq!(
            again.send("t-1"),
            "a2a-console --binding HTTP+JSON --bearer-env TOKEN send 'my agent' --task t-1 '…'"
        );
        // A task id is the agent's: quoted so that it runs as one word and shows no control.
        let hostile = again.send("x; rm -rf ~\u{1b}[2J");
        assert!(
            hostile.contains("--task $'x; rm -rf ~\\x1b\\x5b2J'"),
            "{hostile}"
        );
        assert!(!hostile.contains('\u{1b}'));
    }
}
