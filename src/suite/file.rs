//! The suite file as written (TOML): cases, the message each sends, answers to interrupted states, what is
//! expected, and rows of values for parametrised cases. Unknown keys are refused, so a misspelt expectation
//! fails the load instead of quietly checking nothing. `suite.example.toml` at the repository's root is the
//! annotated example.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A whole file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// The agent of every case that names none (a configured agent's name, or a URL).
    pub agent: Option<String>,
    /// Seconds a case may take when it says nothing (`expect.max_seconds`); the runner's default otherwise.
    pub max_seconds: Option<f64>,
    #[serde(default)]
    pub cases: Vec<CaseSpec>,
}

/// One case as written; rows make several of it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    pub name: String,
    pub agent: Option<String>,
    /// The message's text.
    pub message: Option<String>,
    /// A data part sent with (or instead of) the text.
    pub data: Option<toml::Value>,
    /// Files attached, relative to the suite file's folder.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Send this skill's first example (from the agent's card) as the text, when `message` is not given.
    pub skill: Option<String>,
    /// Answers to interrupted states, used in order.
    #[serde(default)]
    pub reply: Vec<ReplySpec>,
    #[serde(default)]
    pub expect: ExpectSpec,
    /// One case per row; `{column}` in the strings above is replaced by the row's value.
    #[serde(default)]
    pub rows: Vec<BTreeMap<String, toml::Value>>,
}

/// An answer to the next interrupted state.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplySpec {
    /// `input-required` or `auth-required`.
    pub when: String,
    pub message: Option<String>,
    /// For `auth-required` only: the environment variable that holds the bearer token to send with the
    /// answer (a secret is never written in a suite file).
    pub credential_env: Option<String>,
}

/// What must hold when the case is over. Everything is optional; an empty `expect` passes when the task
/// reaches a state at all.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// The final state (`completed`, `input-required`, …).
    pub state: Option<String>,
    /// The exact sequence of states seen (each state once per stretch: `["submitted", "working",
    /// "completed"]`).
    pub states: Option<Vec<String>>,
    /// How many artifacts.
    pub artifacts: Option<usize>,
    /// Artifact names that must all appear.
    #[serde(default)]
    pub artifact_names: Vec<String>,
    /// Media types that must all appear among the artifacts' parts.
    #[serde(default)]
    pub media_types: Vec<String>,
    /// A regular expression that must match the artifacts' and the agent's messages' text.
    pub text: Option<String>,
    /// JSONPath checks on the artifacts' data parts.
    #[serde(default)]
    pub json: Vec<JsonSpec>,
    /// The case fails, and stops waiting, past this many seconds.
    pub max_seconds: Option<f64>,
    /// Most seconds from sending to the first event.
    pub max_first_event_seconds: Option<f64>,
    /// Most events (stream events, replies and polls that changed something).
    pub max_events: Option<usize>,
    /// No untrusted-content flag (escape sequences, hidden characters, prompt injection, …) on anything
    /// the agent sent.
    pub no_flags: Option<bool>,
}

/// One JSONPath check: the path must select something on a data part, and what it selects must satisfy
/// every predicate given.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonSpec {
    pub path: String,
    /// The selected value equals this (TOML's value read as JSON).
    pub equals: Option<toml::Value>,
    /// The selected value is a string that matches this regular expression.
    pub matches: Option<String>,
    /// `false`: the path must select nothing.
    pub exists: Option<bool>,
    /// The selected value is a number at least / at most this.
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// A suite file read from disk, and where it is (attachments are found next to it).
#[derive(Clone, Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub file: SuiteFile,
}

/// Read and parse a suite file; the error names the file and, from the TOML parser, the line.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Loaded {
        path: path.to_path_buf(),
        file,
    })
}

/// Parse a suite from its text.
pub fn parse(text: &str) -> Result<SuiteFile, String> {
    let file: SuiteFile = toml::from_str(text).map_err(|e| e.to_string())?;
    if file.cases.is_empty() {
        return Err("no [[cases]]".into());
    }
    for c in &file.cases {
        for r in &c.reply {
            match (r.when.as_str(), &r.message, &r.credential_env) {
                ("input-required", Some(_), None) => {}
                ("input-required", None, _) => {
                    return Err(format!(
                        "case {:?}: a reply to input-required needs a message",
                        c.name
                    ));
                }
                ("input-required", _, Some(_)) => {
                    return Err(format!(
                        "case {:?}: credential_env answers auth-required only",
                        c.name
                    ));
                }
                ("auth-required", _, Some(_)) => {}
                ("auth-required", _, None) => {
                    return Err(format!(
                        "case {:?}: a reply to auth-required needs credential_env (the environment \
                         variable holding the token; never the token itself)",
                        c.name
                    ));
                }
                (other, _, _) => {
                    return Err(format!(
                        "case {:?}: reply when = {other:?}: expected input-required or auth-required",
                        c.name
                    ));
                }
            }
        }
        if c.message.is_none() && c.data.is_none() && c.skill.is_none() && c.files.is_empty() {
            return Err(format!(
                "case {:?}: nothing to send (message, data, files or skill)",
                c.name
            ));
        }
    }
    Ok(file)
}

/// A TOML value as JSON (datetimes become their text).
pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// A suite file as lists and titles name it: its file name (the whole path when it has none).
pub fn shown_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |f| f.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issues_minimal_form_parses() {
        let f = parse(
            r#"
[[cases]]
name = "echo {word}"
agent = "pypeer"
message = "echo {word}"
[[cases.reply]]
when = "input-required"
message = "blue"
[cases.expect]
state = "completed"
text = "{word}"
media_types = ["application/json"]
max_seconds = 10
[[cases.expect.json]]
path = "$.language"
equals = "rust"
[[cases.rows]]
word = "alpha"
"#,
        )
        .unwrap();
        let c = &f.cases[0];
        assert_eq!(c.reply[0].message.as_deref(), Some("blue"));
        assert_eq!(c.expect.json[0].path, "$.language");
        assert_eq!(c.rows.len(), 1);
    }

    #[test]
    fn a_typo_or_a_secret_in_the_file_is_refused() {
        let typo = parse(
            "[[cases]]\nname = \"a\"\nmessage = \"x\"\n[cases.expect]\nstat = \"completed\"\n",
        );
        assert!(typo.unwrap_err().contains("stat"));
        let auth = parse(
            "[[cases]]\nname = \"a\"\nmessage = \"x\"\n[[cases.reply]]\nwhen = \"auth-required\"\nmessage = \"tok\"\n",
        );
        assert!(auth.unwrap_err().contains("credential_env"));
        assert!(parse("").unwrap_err().contains("no [[cases]]"));
    }
}
