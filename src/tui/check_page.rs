//! A check report as the console's page: a heading per area (and interface), one row per finding, its
//! evidence as the row's detail, the summary in the title and what changed since the last check.

use crate::app::msg::{CheckPage, CheckRow};
use crate::check::report::{Report, evidence_text};
use crate::check::requirement::Verdict;

/// The page of a report: a heading per area (and interface), a row per finding, its evidence as the detail.
pub fn page(report: &Report, previous: Option<&str>, label: &str) -> CheckPage {
    let t = &report.summary.total;
    let name = crate::remote::error::one_line(label);
    let title = format!(
        "Check of {name} · {} PASS · {} FAIL · {} WARN · {} SKIP · {} requests{}",
        t.pass,
        t.fail,
        t.warn,
        t.skip,
        report.requests_sent,
        if report.active { "" } else { ", read-only" }
    );
    let changed = previous
        .and_then(|p| serde_json::from_str::<serde_json::Value>(p).ok())
        .map(|p| crate::check::compare::compare(&p, report));
    let changes_alarm = changed.as_ref().is_some_and(|c| !c.new_failures.is_empty());
    let changes = changed.map(|c| c.line());
    let mut rows = Vec::new();
    let mut heading: Option<(&str, Option<&str>)> = None;
    // An area whose findings are all skipped for one reason (the active probes, unless asked for) is one row.
    let mut folded: Vec<(&str, Option<&str>)> = Vec::new();
    for f in &report.findings {
        let this = (f.area.label(), f.on.as_deref());
        let same: Vec<_> = report
            .findings
            .iter()
            .filter(|g| (g.area.label(), g.on.as_deref()) == this)
            .collect();
        if same.len() > 1
            && same
                .iter()
                .all(|g| g.verdict == Verdict::Skip && g.reason == f.reason)
        {
            if !folded.contains(&this) {
                folded.push(this);
                rows.push(CheckRow {
                    line: format!(
                        "{} · {} requirements skipped: {}",
                        f.area.label(),
                        same.len(),
                        f.reason
                    ),
                    verdict: Some("SKIP"),
                    detail: same
                        .iter()
                        .map(|g| {
                            format!(
                                "{} · {} · {} · {}",
                                g.id,
                                g.level.label(),
                                g.section,
                                g.title
                            )
                        })
                        .chain([String::new(), format!("skipped: {}", f.reason)])
                        .collect(),
                });
            }
            continue;
        }
        if heading != Some(this) {
            rows.push(CheckRow {
                line: match f.on.as_deref() {
                    Some(on) => format!("{} · {on}", f.area.label()),
                    None => f.area.label().to_string(),
                },
                verdict: None,
                detail: Vec::new(),
            });
            heading = Some(this);
        }
        let mut detail = vec![
            format!(
                "{} · {} · {} · {}",
                f.id,
                f.level.label(),
                f.section,
                f.verdict.label()
            ),
            format!("requirement: {}", f.title),
        ];
        if let Some(tck) = f.tck {
            detail.push(format!("official TCK: {tck}"));
        }
        if let Some(on) = &f.on {
            detail.push(format!("interface: {on}"));
        }
        detail.push(format!("seen: {}", f.reason));
        detail.push(String::new());
        if f.evidence.is_empty() {
            detail.push(match f.verdict {
                Verdict::Pass => "(a PASS keeps no evidence)".into(),
                _ => "(no request behind this finding)".into(),
            });
        }
        detail.extend(evidence_text(&f.evidence).lines().map(str::to_string));
        rows.push(CheckRow {
            line: format!(
                "{:<4}  {:<32} {:<6} {}",
                f.verdict.label(),
                f.id,
                f.level.label(),
                f.reason
            ),
            verdict: Some(f.verdict.label()),
            detail,
        });
    }
    let badge = crate::check::compare::badge(report);
    CheckPage {
        title,
        changes,
        changes_alarm,
        rows,
        badge,
        must_failed: report.summary.must_failed,
        kind: crate::app::msg::PageKind::Check,
    }
}
