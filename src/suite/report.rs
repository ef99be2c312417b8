//! A suite run's report: every case's result (its checks, what was seen, its timings), the pass rate per case
//! over `--repeat`, and the totals. Kept in the store as this JSON (`schema` 1), printed by `--json FILE`, and
//! written as JUnit XML (one `testcase` per case and row, and per attempt with `--repeat`).

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::run::CaseResult;
use super::runner::Options;
use crate::check::report::xml as esc;

/// The report's JSON schema version.
pub const SCHEMA: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub schema: u32,
    /// The store's id for the run (0 until it is kept).
    #[serde(default)]
    pub id: i64,
    pub started_at: DateTime<Utc>,
    pub elapsed_ms: u64,
    pub suites: Vec<String>,
    pub binding: Option<String>,
    pub protocol: Option<String>,
    pub repeat: u32,
    pub cases: Vec<CaseResult>,
    /// Per case name: passes out of attempts.
    pub pass_rates: BTreeMap<String, PassRate>,
    pub passed: usize,
    pub failed: usize,
    /// The run was stopped before every case ended (the console's stop): those cases are failed, "not run".
    #[serde(default)]
    pub stopped: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassRate {
    pub passed: u32,
    pub runs: u32,
}

impl PassRate {
    pub fn percent(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            f64::from(self.passed) * 100.0 / f64::from(self.runs)
        }
    }
}

impl RunReport {
    pub fn new(
        started_at: DateTime<Utc>,
        elapsed: Duration,
        opts: &Options,
        cases: Vec<CaseResult>,
    ) -> Self {
        let mut pass_rates: BTreeMap<String, PassRate> = BTreeMap::new();
        for c in &cases {
            let r = pass_rates
                .entry(c.name.clone())
                .or_insert(PassRate { passed: 0, runs: 0 });
            r.runs += 1;
            r.passed += u32::from(c.passed);
        }
        let passed = cases.iter().filter(|c| c.passed).count();
        RunReport {
            schema: SCHEMA,
            id: 0,
            started_at,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            suites: opts.suites.clone(),
            binding: opts.binding.clone(),
            protocol: opts.protocol.clone(),
            repeat: opts.repeat.max(1),
            failed: cases.len() - passed,
            passed,
            cases,
            pass_rates,
            stopped: false,
        }
    }

    pub fn all_passed(&self) -> bool {
        self.failed == 0 && !self.cases.is_empty()
    }

    /// One line: "3 passed · 1 failed of 4 cases in 2.4 s" (", stopped" when it was).
    pub fn summary_line(&self) -> String {
        format!(
            "{} passed · {} failed of {} case run{} in {:.1} s{}",
            self.passed,
            self.failed,
            self.cases.len(),
            if self.cases.len() == 1 { "" } else { "s" },
            self.elapsed_ms as f64 / 1000.0,
            if self.stopped { ", stopped" } else { "" }
        )
    }

    /// A case's JUnit name: its name, and the attempt when the run repeats.
    pub fn case_label(&self, c: &CaseResult) -> String {
        if self.repeat > 1 {
            format!("{} (run {}/{})", c.name, c.attempt, self.repeat)
        } else {
            c.name.clone()
        }
    }

    /// JUnit XML: one `testsuite` for the whole run (all its files), one `testcase` per case, row and attempt.
    pub fn junit(&self) -> String {
        let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.push_str(&format!(
            "<testsuites name=\"a2a-console test\" tests=\"{}\" failures=\"{}\" time=\"{:.3}\">\n",
            self.cases.len(),
            self.failed,
            self.elapsed_ms as f64 / 1000.0
        ));
        x.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" timestamp=\"{}\">\n",
            esc(&self.suites.join(", ")),
            self.cases.len(),
            self.failed,
            self.started_at.format("%Y-%m-%dT%H:%M:%S")
        ));
        for c in &self.cases {
            x.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
                esc(&c.spec_name),
                esc(&self.case_label(c)),
                c.seen.total_ms as f64 / 1000.0
            ));
            if !c.passed {
                let first = failure_line(c);
                x.push_str(&format!(
                    "      <failure message=\"{}\">{}</failure>\n",
                    esc(&first),
                    esc(&failure_text(c))
                ));
            }
            x.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                esc(&format!(
                    "agent {} ({} {} at {}); task {}; states {}{}",
                    c.agent,
                    c.binding,
                    c.protocol,
                    c.agent_url,
                    c.seen.task_id.as_deref().unwrap_or("none"),
                    c.seen.states_line(),
                    // What the case got past: a CI reading only JUnit sees the agent needed a second look.
                    c.seen
                        .recovered
                        .iter()
                        .map(|r| format!("\nnote: {r}"))
                        .collect::<String>()
                ))
            ));
            x.push_str("    </testcase>\n");
        }
        x.push_str("  </testsuite>\n</testsuites>\n");
        x
    }
}

/// The first reason a case failed, in one line.
pub fn failure_line(c: &CaseResult) -> String {
    if let Some(e) = &c.error {
        return e.clone();
    }
    c.checks
        .iter()
        .find(|k| !k.passed)
        .map(|k| format!("{}: expected {}, saw {}", k.what, k.expected, k.seen))
        .unwrap_or_default()
}

/// Every reason, one per line.
pub fn failure_text(c: &CaseResult) -> String {
    let mut lines: Vec<String> = c.error.iter().cloned().collect();
    lines.extend(
        c.checks
            .iter()
            .filter(|k| !k.passed)
            .map(|k| format!("{}: expected {}, saw {}", k.what, k.expected, k.seen)),
    );
    lines.join("\n")
}
