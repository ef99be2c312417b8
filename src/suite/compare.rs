//! What changed between two runs of a suite (case by case), or between two tasks: the state sequence, the
//! artifacts (a line diff of text, a structural diff of JSON data, size and hash of files), the agent's
//! messages, the flags, and the timings ("+1.2 s to first event"). The result is a list of lines with a
//! kind each, printed by the CLI and drawn by the console the same way. Every line holds remote text already
//! sanitised when it was observed; JSON values are sanitised here as they are written out.

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::expect::shown;
use super::observe::{Observed, SeenArtifact};
use super::report::RunReport;
use super::run::CaseResult;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A case's (or the tasks') heading.
    Heading,
    /// Said for context: unchanged.
    Same,
    /// Something differs (a one-line "before → after").
    Changed,
    /// Only in the first (a diff's "-").
    Removed,
    /// Only in the second (a diff's "+").
    Added,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub kind: Kind,
    /// Indentation level (0 heading, 1 item, 2 detail).
    pub depth: u8,
    pub text: String,
}

impl Line {
    /// The line as plain text, indented by its depth and marked by its kind (`~` changed, `-` removed, `+`
    /// added), sanitised: how `compare` prints it and the console's suite page shows it. A diff's own lines
    /// (depth 2 and more) carry their `-`/`+` in their text already.
    pub fn plain(&self) -> String {
        let mark = match self.kind {
            _ if self.depth >= 2 => "",
            Kind::Heading => "",
            Kind::Same => "  ",
            Kind::Changed => "~ ",
            Kind::Removed => "- ",
            Kind::Added => "+ ",
        };
        format!(
            "{}{mark}{}",
            "  ".repeat(usize::from(self.depth)),
            crate::trust::sanitize::sanitize_line(&self.text).0
        )
    }
}

/// The comparison: its lines, and how many cases (or tasks) changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub lines: Vec<Line>,
    pub changed: usize,
    pub same: usize,
}

/// Timing changes smaller than this are noise, not news.
const TIMING_NOISE_MS: u64 = 250;
/// Lines of one text diff shown.
const DIFF_LINES: usize = 40;

fn line(kind: Kind, depth: u8, text: impl Into<String>) -> Line {
    Line {
        kind,
        depth,
        text: text.into(),
    }
}

/// Two runs, case by case (cases matched by name; with `--repeat`, the first attempt of each, plus the pass
/// rates).
pub fn runs(a: &RunReport, b: &RunReport) -> Comparison {
    let mut out = Comparison::default();
    out.lines.push(line(
        Kind::Heading,
        0,
        format!(
            "run {} ({}, {}) → run {} ({}, {})",
            a.id,
            a.started_at.format("%Y-%m-%d %H:%M:%S"),
            a.summary_line(),
            b.id,
            b.started_at.format("%Y-%m-%d %H:%M:%S"),
            b.summary_line()
        ),
    ));
    let first = |r: &'_ RunReport, name: &str| -> Option<CaseResult> {
        r.cases.iter().find(|c| c.name == name).cloned()
    };
    let mut names: Vec<&str> = a.cases.iter().map(|c| c.name.as_str()).collect();
    for c in &b.cases {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    names.dedup();
    let mut seen_names = Vec::new();
    for name in names {
        if seen_names.contains(&name) {
            continue;
        }
        seen_names.push(name);
        match (first(a, name), first(b, name)) {
            (Some(x), Some(y)) => {
                let mut lines = case_lines(&x, &y);
                if let (Some(ra), Some(rb)) = (a.pass_rates.get(name), b.pass_rates.get(name))
                    && (a.repeat > 1 || b.repeat > 1)
                    && ra != rb
                {
                    lines.push(line(
                        Kind::Changed,
                        1,
                        format!(
                            "pass rate: {}/{} ({:.0}%) → {}/{} ({:.0}%)",
                            ra.passed,
                            ra.runs,
                            ra.percent(),
                            rb.passed,
                            rb.runs,
                            rb.percent()
                        ),
                    ));
                }
                push_case(&mut out, &verdict_heading(name, &x, &y), lines);
            }
            (Some(x), None) => {
                out.changed += 1;
                out.lines.push(line(
                    Kind::Removed,
                    0,
                    format!("{name}: only in run {} ({})", a.id, pass(x.passed)),
                ));
            }
            (None, Some(y)) => {
                out.changed += 1;
                out.lines.push(line(
                    Kind::Added,
                    0,
                    format!("{name}: only in run {} ({})", b.id, pass(y.passed)),
                ));
            }
            (None, None) => {}
        }
    }
    out
}

fn pass(p: bool) -> &'static str {
    if p { "PASS" } else { "FAIL" }
}

fn verdict_heading(name: &str, x: &CaseResult, y: &CaseResult) -> String {
    if x.passed == y.passed {
        format!("{name}: {}", pass(x.passed))
    } else {
        format!("{name}: {} → {}", pass(x.passed), pass(y.passed))
    }
}

fn push_case(out: &mut Comparison, heading: &str, lines: Vec<Line>) {
    let changed = lines.iter().any(|l| l.kind != Kind::Same);
    if changed {
        out.changed += 1;
        out.lines.push(line(Kind::Heading, 0, heading));
        out.lines.extend(lines);
    } else {
        out.same += 1;
        out.lines
            .push(line(Kind::Same, 0, format!("{heading} (nothing changed)")));
    }
}

fn case_lines(x: &CaseResult, y: &CaseResult) -> Vec<Line> {
    let mut lines = Vec::new();
    if x.error != y.error {
        lines.push(line(
            Kind::Changed,
            1,
            format!(
                "error: {} → {}",
                x.error.as_deref().unwrap_or("none"),
                y.error.as_deref().unwrap_or("none")
            ),
        ));
    }
    let failing = |c: &CaseResult| -> Vec<String> {
        c.checks
            .iter()
            .filter(|k| !k.passed)
            .map(|k| k.what.clone())
            .collect()
    };
    let (fx, fy) = (failing(x), failing(y));
    for w in fy.iter().filter(|w| !fx.contains(w)) {
        if let Some(k) = y.checks.iter().find(|k| &k.what == w) {
            lines.push(line(
                Kind::Added,
                1,
                format!("now fails {w}: expected {}, saw {}", k.expected, k.seen),
            ));
        }
    }
    for w in fx.iter().filter(|w| !fy.contains(w)) {
        lines.push(line(Kind::Removed, 1, format!("no longer fails {w}")));
    }
    if x.binding != y.binding || x.protocol != y.protocol {
        lines.push(line(
            Kind::Changed,
            1,
            format!(
                "interface: {} {} → {} {}",
                x.binding, x.protocol, y.binding, y.protocol
            ),
        ));
    }
    lines.extend(observed(&x.seen, &y.seen));
    lines
}

/// Two tasks (kept by the console, or two cases' tasks).
pub fn tasks(label_a: &str, a: &Observed, label_b: &str, b: &Observed) -> Comparison {
    let mut out = Comparison::default();
    out.lines
        .push(line(Kind::Heading, 0, format!("{label_a} → {label_b}")));
    let lines = observed(a, b);
    if lines.iter().all(|l| l.kind == Kind::Same) {
        out.same = 1;
        out.lines.push(line(Kind::Same, 1, "nothing changed"));
    } else {
        out.changed = 1;
    }
    out.lines.extend(lines);
    out
}

/// What changed between two observed tasks.
pub fn observed(a: &Observed, b: &Observed) -> Vec<Line> {
    let mut lines = Vec::new();
    if a.states != b.states {
        lines.push(line(
            Kind::Changed,
            1,
            format!("states: {}; now {}", states(a), states(b)),
        ));
    } else {
        lines.push(line(Kind::Same, 1, format!("states: {}", states(a))));
    }
    timing(
        &mut lines,
        "to first event",
        a.first_event_ms,
        b.first_event_ms,
    );
    timing(&mut lines, "to the end", Some(a.total_ms), Some(b.total_ms));
    if a.events != b.events {
        lines.push(line(
            Kind::Changed,
            1,
            format!("events: {} → {}", a.events, b.events),
        ));
    }
    artifacts(&mut lines, &a.artifacts, &b.artifacts);
    if a.messages != b.messages {
        lines.push(line(Kind::Changed, 1, "agent messages:"));
        text_diff(&mut lines, &a.messages.join("\n"), &b.messages.join("\n"));
    }
    for f in b.flags.iter().filter(|f| !a.flags.contains(f)) {
        lines.push(line(Kind::Added, 1, format!("new flag: {f}")));
    }
    for f in a.flags.iter().filter(|f| !b.flags.contains(f)) {
        lines.push(line(Kind::Removed, 1, format!("flag gone: {f}")));
    }
    lines
}

fn states(o: &Observed) -> String {
    if o.states.is_empty() {
        o.final_state.clone().unwrap_or_else(|| "none".into())
    } else {
        o.states.join(" → ")
    }
}

fn timing(lines: &mut Vec<Line>, what: &str, a: Option<u64>, b: Option<u64>) {
    let secs = |ms: u64| ms as f64 / 1000.0;
    match (a, b) {
        (Some(x), Some(y)) => {
            let delta = i128::from(y) - i128::from(x);
            // Below the noise floor a signed delta ("-0.0 s") reads as a change; say it is the same.
            let (kind, text) = if delta.unsigned_abs() >= u128::from(TIMING_NOISE_MS) {
                let text = format!(
                    "{:+.1} s {what} ({:.2} s → {:.2} s)",
                    delta as f64 / 1000.0,
                    secs(x),
                    secs(y)
                );
                (Kind::Changed, text)
            } else {
                let text = format!(
                    "{what}: about the same ({:.2} s → {:.2} s)",
                    secs(x),
                    secs(y)
                );
                (Kind::Same, text)
            };
            lines.push(line(kind, 1, text));
        }
        (None, None) => {}
        (x, y) => lines.push(line(
            Kind::Changed,
            1,
            format!(
                "{what}: {} → {}",
                x.map_or("none".into(), |m| format!("{:.2} s", secs(m))),
                y.map_or("none".into(), |m| format!("{:.2} s", secs(m)))
            ),
        )),
    }
}

/// Artifacts are matched by name, then by id, then by position.
fn artifacts(lines: &mut Vec<Line>, a: &[SeenArtifact], b: &[SeenArtifact]) {
    let key = |x: &SeenArtifact, i: usize| {
        x.name
            .clone()
            .or_else(|| (!x.id.is_empty()).then(|| x.id.clone()))
            .unwrap_or_else(|| format!("#{}", i + 1))
    };
    let ka: Vec<String> = a.iter().enumerate().map(|(i, x)| key(x, i)).collect();
    let kb: Vec<String> = b.iter().enumerate().map(|(i, x)| key(x, i)).collect();
    let mut matched_b = vec![false; b.len()];
    for (i, x) in a.iter().enumerate() {
        let j = kb
            .iter()
            .enumerate()
            .position(|(j, k)| k == &ka[i] && !matched_b[j])
            .or_else(|| (i < b.len() && !matched_b[i] && a.len() == b.len()).then_some(i));
        match j.and_then(|j| b.get(j).map(|y| (j, y))) {
            Some((j, y)) => {
                matched_b[j] = true;
                one_artifact(lines, &ka[i], &kb[j], x, y);
            }
            None => lines.push(line(
                Kind::Removed,
                1,
                format!("artifact {} is gone", ka[i]),
            )),
        }
    }
    for (j, y) in b.iter().enumerate() {
        if !matched_b[j] {
            lines.push(line(
                Kind::Added,
                1,
                format!(
                    "new artifact {} ({} bytes of text, {} data part(s), {} file(s))",
                    kb[j],
                    y.text_bytes,
                    y.data.len(),
                    y.files.len()
                ),
            ));
        }
    }
}

fn one_artifact(lines: &mut Vec<Line>, ka: &str, kb: &str, x: &SeenArtifact, y: &SeenArtifact) {
    let name = if ka == kb {
        ka.to_string()
    } else {
        format!("{ka} → {kb}")
    };
    let mut changed = false;
    if x.media_types != y.media_types {
        changed = true;
        lines.push(line(
            Kind::Changed,
            1,
            format!(
                "artifact {name}: media types {} → {}",
                x.media_types.join(", "),
                y.media_types.join(", ")
            ),
        ));
    }
    if x.text_sha256 != y.text_sha256 {
        changed = true;
        lines.push(line(
            Kind::Changed,
            1,
            format!(
                "artifact {name}: text ({} → {} bytes)",
                x.text_bytes, y.text_bytes
            ),
        ));
        text_diff(lines, &x.text, &y.text);
    }
    // Numbers by value: one SDK sends 3, another 3.0 (the Python SDK's data parts go through protobuf's
    // Struct, whose numbers are doubles), and that is not a change.
    let same_data = x.data.len() == y.data.len()
        && x.data
            .iter()
            .zip(&y.data)
            .all(|(p, q)| super::expect::loose_eq(p, q));
    if !same_data {
        changed = true;
        lines.push(line(Kind::Changed, 1, format!("artifact {name}: data")));
        let n = x.data.len().max(y.data.len());
        for i in 0..n {
            let (p, q) = (x.data.get(i), y.data.get(i));
            let mut found = Vec::new();
            json_diff("$", p, q, &mut found);
            lines.extend(found);
        }
    }
    if x.files != y.files {
        changed = true;
        let desc = |f: &super::observe::SeenFile| {
            let name = f.name.clone().unwrap_or_else(|| "file".into());
            match (&f.bytes, &f.sha256, &f.url) {
                (Some(n), Some(h), _) => format!("{name} {n} B sha256 {}", &h[..h.len().min(12)]),
                (_, _, Some(u)) => format!("{name} at {u}"),
                _ => name,
            }
        };
        let n = x.files.len().max(y.files.len());
        for i in 0..n {
            match (x.files.get(i), y.files.get(i)) {
                (Some(p), Some(q)) if p != q => {
                    lines.push(line(Kind::Changed, 2, format!("{} → {}", desc(p), desc(q))))
                }
                (Some(p), None) => lines.push(line(Kind::Removed, 2, desc(p))),
                (None, Some(q)) => lines.push(line(Kind::Added, 2, desc(q))),
                _ => {}
            }
        }
    }
    if !changed {
        lines.push(line(Kind::Same, 1, format!("artifact {name}: unchanged")));
    }
}

/// A line diff of two texts, at most [`DIFF_LINES`] changed lines, with one line of context.
fn text_diff(lines: &mut Vec<Line>, a: &str, b: &str) {
    let diff = TextDiff::from_lines(a, b);
    let mut shown_lines = 0;
    for group in diff.grouped_ops(1) {
        for op in group {
            for change in diff.iter_changes(&op) {
                if shown_lines >= DIFF_LINES {
                    lines.push(line(Kind::Same, 2, "… (more changes)"));
                    return;
                }
                let text = shown(change.value().trim_end_matches(['\n', '\r']));
                let (kind, mark) = match change.tag() {
                    ChangeTag::Delete => (Kind::Removed, "- "),
                    ChangeTag::Insert => (Kind::Added, "+ "),
                    ChangeTag::Equal => (Kind::Same, "  "),
                };
                if kind != Kind::Same {
                    shown_lines += 1;
                }
                lines.push(line(kind, 2, format!("{mark}{text}")));
            }
        }
    }
}

/// A structural diff of two JSON values: one line per path that changed, was added or removed.
pub fn json_diff(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Line>) {
    if out.len() >= DIFF_LINES {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for (k, v) in x {
                json_diff(&child(path, k), Some(v), y.get(k), out);
            }
            for (k, v) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                json_diff(&child(path, k), None, Some(v), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                json_diff(&format!("{path}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        (Some(x), Some(y)) if super::expect::loose_eq(x, y) => {}
        (Some(x), Some(y)) => out.push(line(
            Kind::Changed,
            2,
            format!(
                "{}: {} → {}",
                shown(path),
                shown(&x.to_string()),
                shown(&y.to_string())
            ),
        )),
        (Some(x), None) => out.push(line(
            Kind::Removed,
            2,
            format!("- {}: {}", shown(path), shown(&x.to_string())),
        )),
        (None, Some(y)) => out.push(line(
            Kind::Added,
            2,
            format!("+ {}: {}", shown(path), shown(&y.to_string())),
        )),
        (None, None) => {}
    }
}

fn child(path: &str, key: &str) -> String {
    if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn art(name: &str, text: &str, data: Value) -> SeenArtifact {
        SeenArtifact {
            name: Some(name.into()),
            text: text.into(),
            text_sha256: format!("{:x}", text.len()) + text,
            text_bytes: text.len(),
            data: vec![data],
            ..SeenArtifact::default()
        }
    }

    #[test]
    fn states_timing_text_and_json_changes_are_each_said() {
        let a = Observed {
            states: vec!["working".into(), "completed".into()],
            first_event_ms: Some(100),
            total_ms: 900,
            artifacts: vec![art(
                "answer",
                "line one\nline two\n",
                serde_json::json!({"lang": "rust", "n": 1}),
            )],
            ..Observed::default()
        };
        let b = Observed {
            states: vec!["working".into(), "failed".into()],
            first_event_ms: Some(1300),
            total_ms: 1500,
            artifacts: vec![art(
                "answer",
                "line one\nline 2\n",
                serde_json::json!({"lang": "go", "extra": true}),
            )],
            ..Observed::default()
        };
        let c = tasks("task A", &a, "task B", &b);
        let text: Vec<String> = c.lines.iter().map(|l| l.text.clone()).collect();
        assert!(text.contains(&"states: working → completed; now working → failed".to_string()));
        assert!(
            text.contains(&"+1.2 s to first event (0.10 s → 1.30 s)".to_string()),
            "{text:#?}"
        );
        assert!(text.contains(&"- line two".to_string()));
        assert!(text.contains(&"+ line 2".to_string()));
        assert!(text.contains(&"$.lang: \"rust\" → \"go\"".to_string()));
        assert!(text.contains(&"- $.n: 1".to_string()));
        assert!(text.contains(&"+ $.extra: true".to_string()));
        assert_eq!(c.changed, 1);
        let same = tasks("a", &a, "b", &a);
        assert_eq!(same.changed, 0);
        assert!(same.lines.iter().all(|l| l.kind != Kind::Changed));
        // 3 and 3.0 are one number: not a change in the data.
        let mut ints = a.clone();
        ints.artifacts[0].data = vec![serde_json::json!({"lang": "rust", "n": 1})];
        let mut floats = a.clone();
        floats.artifacts[0].data = vec![serde_json::json!({"lang": "rust", "n": 1.0})];
        assert_eq!(tasks("a", &ints, "b", &floats).changed, 0);
        // A delta under the noise floor is not a signed "-0.0 s" change.
        assert!(
            same.lines
                .iter()
                .any(|l| l.text == "to first event: about the same (0.10 s → 0.10 s)")
        );
    }
}
