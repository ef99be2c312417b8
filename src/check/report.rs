//! A check's result: one finding per requirement (per interface, for the binding ones), the summary by area
//! and level, and the two machine forms: the `--json` object (schema [`SCHEMA`], documented in the README) and
//! JUnit XML for CI systems.

use std::collections::BTreeMap;

use serde::Serialize;

use super::exchange::Exchange;
use super::requirement::{Area, Level, Requirement, Verdict, find};

/// Version of the `--json` shape: bumped when a field changes meaning or goes away (adding one does not).
pub const SCHEMA: u32 = 1;

/// What a probe concluded about one requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub reason: String,
    pub evidence: Vec<Exchange>,
}

impl Outcome {
    pub fn pass(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Pass, reason)
    }
    pub fn fail(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Fail, reason)
    }
    pub fn warn(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Warn, reason)
    }
    pub fn skip(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Skip, reason)
    }
    fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
        Self {
            verdict,
            reason: crate::trust::sanitize::sanitize_line(&reason.into()).0,
            evidence: Vec::new(),
        }
    }
    pub fn with(mut self, exchange: &Exchange) -> Self {
        self.evidence.push(exchange.clone());
        self
    }
    pub fn with_all<'a>(mut self, exchanges: impl IntoIterator<Item = &'a Exchange>) -> Self {
        self.evidence.extend(exchanges.into_iter().cloned());
        self
    }
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub id: &'static str,
    pub section: &'static str,
    pub level: Level,
    pub area: Area,
    pub title: &'static str,
    /// The official TCK's id for the same requirement, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tck: Option<&'static str>,
    /// The interface it was judged on (`JSONRPC 1.0 http://…`), for the per-interface requirements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    pub verdict: Verdict,
    pub reason: String,
    /// The requests and responses behind a verdict other than PASS (empty for a PASS and most SKIPs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Exchange>,
}

impl Finding {
    /// The finding for requirement `id`: a miss of anything weaker than a MUST is a WARN; a PASS keeps no
    /// evidence (the report shows evidence for what needs looking at).
    pub fn new(id: &str, on: Option<&str>, outcome: Outcome) -> Finding {
        let req = find(id).copied().unwrap_or(Requirement {
            id: "unknown",
            area: Area::Card,
            level: Level::Should,
            section: "§?",
            title: "a requirement missing from the catalogue",
        });
        let verdict = match outcome.verdict {
            Verdict::Fail if req.level != Level::Must => Verdict::Warn,
            v => v,
        };
        Finding {
            id: req.id,
            section: req.section,
            level: req.level,
            area: req.area,
            title: req.title,
            tck: super::requirement::tck_id(req.id),
            on: on.map(str::to_string),
            verdict,
            reason: outcome.reason,
            evidence: if verdict == Verdict::Pass {
                Vec::new()
            } else {
                outcome.evidence
            },
        }
    }

    /// `id` with the interface, the way a line and a JUnit test case name it.
    pub fn name(&self) -> String {
        match &self.on {
            Some(on) => format!("{} [{on}]", self.id),
            None => self.id.to_string(),
        }
    }
}

/// Counts of one area (or of everything).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub pass: usize,
    pub fail: usize,
    pub warn: usize,
    pub skip: usize,
}

impl Counts {
    fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::Warn => self.warn += 1,
            Verdict::Skip => self.skip += 1,
        }
    }
    /// Requirements judged (not skipped).
    pub fn judged(&self) -> usize {
        self.pass + self.fail + self.warn
    }
}

/// The summary at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: Counts,
    /// Per area, in report order.
    pub by_area: Vec<(Area, Counts)>,
    /// Per level: FAILs of a MUST, WARNs of a SHOULD, …
    pub by_level: BTreeMap<&'static str, Counts>,
    /// Whether any MUST failed (the exit code says so too).
    pub must_failed: bool,
}

impl Summary {
    pub fn of(findings: &[Finding]) -> Summary {
        let mut s = Summary::default();
        for f in findings {
            s.total.add(f.verdict);
            match s.by_area.iter_mut().find(|(a, _)| *a == f.area) {
                Some((_, c)) => c.add(f.verdict),
                None => {
                    let mut c = Counts::default();
                    c.add(f.verdict);
                    s.by_area.push((f.area, c));
                }
            }
            s.by_level
                .entry(f.level.label())
                .or_default()
                .add(f.verdict);
            if f.verdict == Verdict::Fail && f.level == Level::Must {
                s.must_failed = true;
            }
        }
        s.by_area.sort_by_key(|(a, _)| *a);
        s
    }
}

/// A whole check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub schema: u32,
    /// What the user named (a configured agent's name, or the URL).
    pub agent: String,
    pub url: String,
    /// The card's name, sanitised (absent when no card could be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_name: Option<String>,
    pub started_at: String,
    pub elapsed_ms: u64,
    /// Whether active probes ran (they create tasks on the agent).
    pub active: bool,
    pub requests_sent: usize,
    pub request_budget: usize,
    pub findings: Vec<Finding>,
    pub summary: Summary,
}

impl Report {
    /// The JUnit XML form: one test case per finding, FAIL as a failure (with its evidence), SKIP as skipped,
    /// WARN as a passing case whose output says WARN (a SHOULD does not break a build).
    pub fn junit(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let t = &self.summary.total;
        out.push_str(&format!(
            "<testsuites name=\"a2a-console check\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
            self.findings.len(),
            t.fail,
            t.skip,
            self.elapsed_ms as f64 / 1000.0
        ));
        out.push_str(&format!(
            "  <testsuite name=\"check {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" timestamp=\"{}\">\n",
            xml(&self.agent),
            self.findings.len(),
            t.fail,
            t.skip,
            xml(&self.started_at)
        ));
        for f in &self.findings {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\">\n",
                xml(f.area.label()),
                xml(&format!("{} {} {}", f.name(), f.level.label(), f.section))
            ));
            match f.verdict {
                Verdict::Fail => out.push_str(&format!(
                    "      <failure message=\"{}\">{}</failure>\n",
                    xml(&f.reason),
                    xml(&evidence_text(&f.evidence))
                )),
                Verdict::Skip => out.push_str(&format!(
                    "      <skipped message=\"{}\"/>\n",
                    xml(&f.reason)
                )),
                Verdict::Warn => out.push_str(&format!(
                    "      <system-out>WARN: {}\n{}</system-out>\n",
                    xml(&f.reason),
                    xml(&evidence_text(&f.evidence))
                )),
                Verdict::Pass => {}
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

/// Evidence as plain text (the CLI's lines and JUnit's failure bodies).
pub fn evidence_text(evidence: &[Exchange]) -> String {
    let mut out = String::new();
    for e in evidence {
        out.push_str(&format!("→ {} {}\n", e.method, e.url));
        for (k, v) in &e.request_headers {
            out.push_str(&format!("  {k}: {v}\n"));
        }
        if let Some(b) = &e.request_body {
            out.push_str(&format!("  {}\n", one_line(b)));
        }
        match (e.status, &e.error) {
            _ if e.grpc_status.is_some() => out.push_str(&format!(
                "← gRPC {} ({} ms)\n",
                e.grpc_status.as_deref().unwrap_or_default(),
                e.elapsed_ms
            )),
            (Some(s), _) => out.push_str(&format!("← {s} ({} ms)\n", e.elapsed_ms)),
            (None, Some(err)) => out.push_str(&format!("← {err}\n")),
            (None, None) => out.push_str("← nothing\n"),
        }
        for (k, v) in &e.response_headers {
            out.push_str(&format!("  {k}: {v}\n"));
        }
        if let Some(b) = &e.response_body {
            out.push_str(&format!("  {}\n", one_line(b)));
        }
        if let (Some(_), Some(err)) = (e.status, &e.error) {
            out.push_str(&format!("  ({err})\n"));
        }
    }
    out
}

/// A body excerpt on one line (line breaks shown as ⏎).
fn one_line(s: &str) -> String {
    s.replace("\r\n", "⏎").replace(['\n', '\r'], "⏎")
}

/// Text escaped for an XML attribute or element (JUnit files: `check`'s and `test`'s); characters XML 1.0
/// cannot carry at all are dropped.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missed_should_is_a_warn_and_a_pass_keeps_no_evidence() {
        let e = Exchange {
            method: "GET".into(),
            ..Exchange::default()
        };
        let f = Finding::new("discovery.etag", None, Outcome::fail("no ETag").with(&e));
        assert_eq!(f.verdict, Verdict::Warn);
        assert_eq!(f.evidence.len(), 1);
        let f = Finding::new("discovery.well-known", None, Outcome::pass("ok").with(&e));
        assert!(f.evidence.is_empty());
        let f = Finding::new(
            "jsonrpc.parse-error",
            Some("JSONRPC 1.0 x"),
            Outcome::fail("no"),
        );
        assert_eq!(f.verdict, Verdict::Fail);
        assert!(Summary::of(&[f]).must_failed);
    }

    #[test]
    fn junit_escapes_and_counts() {
        let findings = vec![
            Finding::new(
                "jsonrpc.parse-error",
                None,
                Outcome::fail("got <b>&\"x\"\u{1b}"),
            ),
            Finding::new("discovery.etag", None, Outcome::skip("n/a")),
        ];
        let r = Report {
            schema: SCHEMA,
            agent: "a&b".into(),
            url: "http://127.0.0.1".into(),
            card_name: None,
            started_at: "t".into(),
            elapsed_ms: 5,
            active: false,
            requests_sent: 1,
            request_budget: 2,
            summary: Summary::of(&findings),
            findings,
        };
        let x = r.junit();
        assert!(x.contains("failures=\"1\" skipped=\"1\""), "{x}");
        assert!(x.contains("check a&amp;b"));
        assert!(!x.contains('\u{1b}'));
        assert!(x.contains("got &lt;b&gt;&amp;&quot;x&quot;"), "{x}");
    }
}
