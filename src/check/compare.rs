//! What changed between two runs of `check` on the same agent ("2 new failures, 1 fixed"), and the one-line
//! verdict the agent list shows. The earlier run is read back from the store as the JSON `check --json`
//! prints, so this reads JSON, not the report type.

use std::collections::BTreeMap;

use serde_json::Value;

use super::report::Report;
use super::requirement::{Level, Verdict};

/// The differences between the last run and this one, by finding (`id [interface]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Failing now, not failing then.
    pub new_failures: Vec<String>,
    /// Warned about now, passing then.
    pub new_warnings: Vec<String>,
    /// Failing or warned about then, passing now.
    pub fixed: Vec<String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.new_failures.is_empty() && self.new_warnings.is_empty() && self.fixed.is_empty()
    }

    /// One line: "2 new failures (a, b) · 1 fixed (c)", or "nothing changed".
    pub fn line(&self) -> String {
        if self.is_empty() {
            return "nothing changed".into();
        }
        let part = |n: usize, what: &str, names: &[String]| {
            let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
            let more = if names.len() > 3 { ", …" } else { "" };
            format!("{n} {what} ({}{more})", shown.join(", "))
        };
        let mut parts = Vec::new();
        if !self.new_failures.is_empty() {
            let what = if self.new_failures.len() == 1 {
                "new failure"
            } else {
                "new failures"
            };
            parts.push(part(self.new_failures.len(), what, &self.new_failures));
        }
        if !self.new_warnings.is_empty() {
            let what = if self.new_warnings.len() == 1 {
                "new warning"
            } else {
                "new warnings"
            };
            parts.push(part(self.new_warnings.len(), what, &self.new_warnings));
        }
        if !self.fixed.is_empty() {
            parts.push(part(self.fixed.len(), "fixed", &self.fixed));
        }
        parts.join(" · ")
    }
}

/// Each finding's verdict in a stored report, by `id [interface]`.
fn verdicts(report: &Value) -> BTreeMap<String, String> {
    report
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let id = f.get("id")?.as_str()?;
            let name = match f.get("on").and_then(Value::as_str) {
                Some(on) => format!("{id} [{on}]"),
                None => id.to_string(),
            };
            Some((name, f.get("verdict")?.as_str()?.to_string()))
        })
        .collect()
}

/// What changed from `previous` (a stored report) to `now`.
pub fn compare(previous: &Value, now: &Report) -> Changes {
    let then = verdicts(previous);
    let mut c = Changes::default();
    for f in &now.findings {
        let name = f.name();
        let was = then.get(&name).map(String::as_str);
        match (f.verdict.label(), was) {
            ("FAIL", Some(w)) if w != "FAIL" => c.new_failures.push(name),
            ("FAIL", None) => c.new_failures.push(name),
            ("WARN", Some("PASS")) => c.new_warnings.push(name),
            ("PASS", Some("FAIL" | "WARN")) => c.fixed.push(name),
            _ => {}
        }
    }
    c
}

/// The agent list's verdict of a report: `check 41/44 ✓`, or `check 2 MUST ✗` when MUSTs fail. Kept beside
/// the report in the store, so a start-up shows it without reading reports back.
pub fn badge(report: &Report) -> String {
    if report.card_name.is_none() {
        return "check: no card".into();
    }
    let must_fails = report
        .findings
        .iter()
        .filter(|f| f.verdict == Verdict::Fail && f.level == Level::Must)
        .count();
    let t = &report.summary.total;
    if must_fails > 0 {
        format!("check {must_fails} MUST ✗")
    } else {
        format!("check {}/{} ✓", t.pass, t.judged())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::report::{Finding, Outcome, SCHEMA, Summary};

    fn report(findings: Vec<Finding>) -> Report {
        Report {
            schema: SCHEMA,
            agent: "a".into(),
            url: "http://127.0.0.1:1".into(),
            card_name: Some("A".into()),
            started_at: "t".into(),
            elapsed_ms: 1,
            active: false,
            requests_sent: 1,
            request_budget: 1,
            summary: Summary::of(&findings),
            findings,
        }
    }

    #[test]
    fn new_failures_warnings_and_fixes_are_told_apart() {
        let before = report(vec![
            Finding::new("discovery.etag", None, Outcome::pass("ok")),
            Finding::new(
                "jsonrpc.parse-error",
                Some("JSONRPC 1.0 x"),
                Outcome::fail("no"),
            ),
            Finding::new("discovery.cache-control", None, Outcome::pass("ok")),
        ]);
        let stored = serde_json::to_value(&before).unwrap();
        assert_eq!(compare(&stored, &before), Changes::default());
        assert_eq!(compare(&stored, &before).line(), "nothing changed");
        let after = report(vec![
            Finding::new("discovery.etag", None, Outcome::fail("gone")),
            Finding::new(
                "jsonrpc.parse-error",
                Some("JSONRPC 1.0 x"),
                Outcome::pass("ok"),
            ),
            Finding::new("discovery.cache-control", None, Outcome::pass("ok")),
            Finding::new(
                "jsonrpc.method-not-found",
                Some("JSONRPC 1.0 x"),
                Outcome::fail("new"),
            ),
        ]);
        let c = compare(&stored, &after);
        // The ETag requirement is a SHOULD: its miss is a WARN.
        assert_eq!(c.new_warnings, vec!["discovery.etag".to_string()]);
        assert_eq!(
            c.new_failures,
            vec!["jsonrpc.method-not-found [JSONRPC 1.0 x]".to_string()]
        );
        assert_eq!(
            c.fixed,
            vec!["jsonrpc.parse-error [JSONRPC 1.0 x]".to_string()]
        );
        assert_eq!(
            c.line(),
            "1 new failure (jsonrpc.method-not-found [JSONRPC 1.0 x]) · 1 new warning (discovery.etag) · 1 fixed (jsonrpc.parse-error [JSONRPC 1.0 x])"
        );
        assert_eq!(badge(&after), "check 1 MUST ✗");
        assert_eq!(badge(&before), "check 1 MUST ✗");
        let good = report(vec![Finding::new(
            "discovery.etag",
            None,
            Outcome::pass("ok"),
        )]);
        assert_eq!(badge(&good), "check 1/1 ✓");
    }
}
