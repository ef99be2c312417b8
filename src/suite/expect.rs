//! Checking a case's expectations on what was seen: one result per expectation, each saying what was
//! expected and what was seen (sanitised, cut to one short line), so a failing case reads as its cause.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json_path::JsonPath;

use super::file::{ExpectSpec, JsonSpec, toml_to_json};
use super::observe::Observed;
use crate::trust::sanitize::sanitize_line;

/// One expectation, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// Which expectation: `state`, `text`, `json $.language`, …
    pub what: String,
    pub passed: bool,
    pub expected: String,
    /// What was seen (remote text, sanitised and cut).
    pub seen: String,
}

impl Checked {
    /// One line as the CLI and the console show it: `FAIL text: expected /x/ · agent NAME gave: y`. What the
    /// agent gave is said to be the agent's; a timing is the console's own measure (`took 1.2 s`).
    pub fn line(&self, agent: &str) -> String {
        let s = |x: &str| sanitize_line(x).0;
        let seen = if self.what.starts_with("max_") {
            format!("took {}", s(&self.seen))
        } else {
            format!("agent {agent} gave: {}", s(&self.seen))
        };
        format!(
            "{} {}: expected {} · {seen}",
            if self.passed { "ok  " } else { "FAIL" },
            s(&self.what),
            s(&self.expected)
        )
    }
}

/// The seconds a case may take when neither it nor its file says.
pub const DEFAULT_MAX_SECONDS: f64 = 60.0;

/// How much of a seen value is shown.
const SHOWN: usize = 160;

/// Judge every expectation. With no `state` or `states`, the case expects `completed` (what a regression
/// test of a task means unless told otherwise).
pub fn judge(e: &ExpectSpec, seen: &Observed) -> Vec<Checked> {
    let mut out = Vec::new();
    let final_state = seen.final_state.clone().unwrap_or_else(|| "none".into());
    let want_state = e
        .state
        .clone()
        .or_else(|| e.states.is_none().then(|| "completed".to_string()));
    if let Some(want) = want_state {
        out.push(check(
            "state",
            normal_state(&want) == normal_state(&final_state),
            want,
            final_state.clone(),
        ));
    }
    if let Some(want) = &e.states {
        let want: Vec<String> = want.iter().map(|s| normal_state(s)).collect();
        out.push(check(
            "states",
            want == seen.states,
            want.join(" → "),
            seen.states.join(" → "),
        ));
    }
    if let Some(n) = e.artifacts {
        out.push(check(
            "artifacts",
            seen.artifacts.len() == n,
            n.to_string(),
            seen.artifacts.len().to_string(),
        ));
    }
    let names: Vec<String> = seen
        .artifacts
        .iter()
        .filter_map(|a| a.name.clone())
        .collect();
    for want in &e.artifact_names {
        out.push(check(
            &format!("artifact name {want:?}"),
            names.contains(want),
            want.clone(),
            list(&names),
        ));
    }
    let media: Vec<String> = seen
        .artifacts
        .iter()
        .flat_map(|a| a.media_types.iter().cloned())
        .collect();
    for want in &e.media_types {
        out.push(check(
            &format!("media type {want}"),
            media.iter().any(|m| m.eq_ignore_ascii_case(want)),
            want.clone(),
            list(&media),
        ));
    }
    if let Some(re) = &e.text {
        out.push(text(re, seen));
    }
    for j in &e.json {
        out.push(json(j, seen));
    }
    let secs = |ms: u64| ms as f64 / 1000.0;
    let max = e.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS);
    out.push(check(
        "max_seconds",
        secs(seen.total_ms) <= max,
        format!("≤ {max} s"),
        format!("{:.2} s", secs(seen.total_ms)),
    ));
    if let Some(max) = e.max_first_event_seconds {
        out.push(check(
            "max_first_event_seconds",
            seen.first_event_ms.is_some_and(|ms| secs(ms) <= max),
            format!("≤ {max} s"),
            seen.first_event_ms
                .map_or("no event".into(), |ms| format!("{:.2} s", secs(ms))),
        ));
    }
    if let Some(max) = e.max_events {
        out.push(check(
            "max_events",
            seen.events <= max,
            format!("≤ {max}"),
            seen.events.to_string(),
        ));
    }
    if e.no_flags == Some(true) {
        out.push(check(
            "no_flags",
            seen.flags.is_empty(),
            "no untrusted-content flag".into(),
            list(&seen.flags),
        ));
    }
    out
}

fn check(what: &str, passed: bool, expected: String, seen: String) -> Checked {
    Checked {
        what: what.to_string(),
        passed,
        expected: shown(&expected),
        seen: shown(&seen),
    }
}

/// `TASK_STATE_INPUT_REQUIRED`, `input_required` and `input-required` are one state.
fn normal_state(s: &str) -> String {
    crate::task::phase::parse_state(s)
        .map(|st| crate::task::phase::state_name(&st).to_string())
        .unwrap_or_else(|_| s.trim().to_ascii_lowercase())
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// One line, sanitised, at most [`SHOWN`] characters.
pub fn shown(s: &str) -> String {
    let line = sanitize_line(&s.replace(['\n', '\r'], " ⏎ ")).0;
    if line.chars().count() > SHOWN {
        let cut: String = line.chars().take(SHOWN).collect();
        format!("{cut}…")
    } else {
        line
    }
}

/// The regex against the artifacts' text, then the agent's messages.
fn text(re: &str, seen: &Observed) -> Checked {
    let what = "text";
    let rx = match regex::Regex::new(re) {
        Ok(r) => r,
        Err(e) => return check(what, false, format!("/{re}/"), format!("bad regex: {e}")),
    };
    let texts: Vec<&str> = seen
        .artifacts
        .iter()
        .map(|a| a.text.as_str())
        .chain(seen.messages.iter().map(String::as_str))
        .collect();
    let hit = texts
        .iter()
        .find_map(|t| rx.find(t).map(|m| m.as_str().to_string()));
    match hit {
        Some(m) => check(what, true, format!("/{re}/"), m),
        None => check(
            what,
            false,
            format!("/{re}/"),
            if texts.is_empty() {
                "no text".into()
            } else {
                texts.join(" | ")
            },
        ),
    }
}

/// A JSONPath over every data part (artifacts first, in order); the first part where it selects something
/// is judged.
fn json(j: &JsonSpec, seen: &Observed) -> Checked {
    let what = format!("json {}", j.path);
    let path = match JsonPath::parse(&j.path) {
        Ok(p) => p,
        Err(e) => return check(&what, false, j.path.clone(), format!("bad JSONPath: {e}")),
    };
    let data: Vec<&Value> = seen.artifacts.iter().flat_map(|a| a.data.iter()).collect();
    let found: Option<Vec<Value>> = data
        .iter()
        .map(|d| path.query(d).all().into_iter().cloned().collect::<Vec<_>>())
        .find(|v| !v.is_empty());
    let expected = describe(j);
    let Some(values) = found else {
        let passed = j.exists == Some(false);
        let why = if data.is_empty() {
            "no data part"
        } else {
            "selects nothing"
        };
        return check(&what, passed, expected, why.into());
    };
    let value = if values.len() == 1 {
        values.into_iter().next().unwrap_or(Value::Null)
    } else {
        Value::Array(values)
    };
    let mut passed = j.exists != Some(false);
    if let Some(want) = &j.equals {
        passed &= loose_eq(&toml_to_json(want), &value);
    }
    if let Some(re) = &j.matches {
        passed &= match (regex::Regex::new(re), value.as_str()) {
            (Ok(rx), Some(s)) => rx.is_match(s),
            _ => false,
        };
    }
    if let Some(min) = j.min {
        passed &= value.as_f64().is_some_and(|n| n >= min);
    }
    if let Some(max) = j.max {
        passed &= value.as_f64().is_some_and(|n| n <= max);
    }
    check(&what, passed, expected, value.to_string())
}

/// JSON equality where numbers compare by value (TOML's `1` and JSON's `1.0` are the same number).
pub fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| loose_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| loose_eq(v, w)))
        }
        _ => a == b,
    }
}

fn describe(j: &JsonSpec) -> String {
    let mut parts = Vec::new();
    if let Some(v) = &j.equals {
        parts.push(format!("= {}", toml_to_json(v)));
    }
    if let Some(m) = &j.matches {
        parts.push(format!("~ /{m}/"));
    }
    if let Some(m) = j.min {
        parts.push(format!("≥ {m}"));
    }
    if let Some(m) = j.max {
        parts.push(format!("≤ {m}"));
    }
    if j.exists == Some(false) {
        parts.push("absent".into());
    }
    if parts.is_empty() {
        "present".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::observe::SeenArtifact;
    use super::*;

    fn seen() -> Observed {
        Observed {
            states: vec!["working".into(), "completed".into()],
            final_state: Some("completed".into()),
            events: 3,
            first_event_ms: Some(40),
            total_ms: 1200,
            artifacts: vec![SeenArtifact {
                name: Some("answer".into()),
                media_types: vec!["application/json".into()],
                text: "the word is alpha".into(),
                data: vec![serde_json::json!({"language": "rust", "stars": 5})],
                ..SeenArtifact::default()
            }],
            ..Observed::default()
        }
    }

    fn spec(toml_text: &str) -> ExpectSpec {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn passing_expectations_pass_and_each_failure_says_what_was_seen() {
        let ok = judge(
            &spec(
                "state = \"completed\"\nstates = [\"working\", \"completed\"]\nartifacts = 1\n\
                 artifact_names = [\"answer\"]\nmedia_types = [\"application/json\"]\ntext = \"alpha\"\n\
                 max_seconds = 2\nmax_first_event_seconds = 1\nmax_events = 3\nno_flags = true\n\
                 [[json]]\npath = \"$.language\"\nequals = \"rust\"\n[[json]]\npath = \"$.stars\"\nmin = 4\n\
                 [[json]]\npath = \"$.missing\"\nexists = false\n",
            ),
            &seen(),
        );
        assert!(ok.iter().all(|c| c.passed), "{ok:#?}");
        let bad = judge(
            &spec(
                "state = \"failed\"\ntext = \"beta\"\nmax_seconds = 1\n[[json]]\npath = \"$.language\"\nequals = \"go\"\n",
            ),
            &seen(),
        );
        let failed: Vec<(&str, &str)> = bad
            .iter()
            .filter(|c| !c.passed)
            .map(|c| (c.what.as_str(), c.seen.as_str()))
            .collect();
        assert_eq!(
            failed,
            [
                ("state", "completed"),
                ("text", "the word is alpha"),
                ("json $.language", "\"rust\""),
                ("max_seconds", "1.20 s"),
            ]
        );
    }

    #[test]
    fn no_state_expected_means_completed() {
        let mut s = seen();
        s.final_state = Some("input-required".into());
        let r = judge(&ExpectSpec::default(), &s);
        assert!(!r[0].passed);
        assert_eq!(r[0].expected, "completed");
    }
}
