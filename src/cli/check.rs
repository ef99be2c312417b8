//! `a2a-console check AGENT`: runs the read-only check and prints it: one line per requirement grouped by
//! area (and interface), the evidence under each FAIL and WARN, a summary by area and level; or, with
//! `--json`, the report as one object; `--junit FILE` also writes JUnit XML. Progress goes to stderr when it
//! is a terminal. Every remote string in the report was sanitised when the finding was made.

use std::io::IsTerminal;
use std::path::Path;

use super::exit::Exit;
use super::print::{out, outln};
use crate::check::report::{Report, evidence_text};
use crate::check::requirement::Verdict;
use crate::remote::connect::agent::AgentTarget;

pub async fn run(
    target: &AgentTarget,
    opts: &crate::check::Options,
    json: bool,
    junit: Option<&Path>,
    verbose: bool,
) -> Exit {
    let tty = std::io::stderr().is_terminal();
    let progress = move |p: crate::check::Progress| {
        if tty {
            eprint!(
                "\r\x1b[2Kcheck: {}/{} requests · {}",
                p.sent,
                p.budget,
                crate::remote::error::one_line(&p.step)
            );
            if p.step == "done" {
                eprintln!();
            }
        }
    };
    let mut notes = Vec::new();
    let report = match crate::check::run(target, opts, &progress, &mut notes).await {
        Ok(r) => r,
        Err(e) => return super::fail(&e),
    };
    for n in &notes {
        super::report::warning(n);
    }
    let changes = keep(&target.url, &report);
    if let Some(path) = junit
        && let Err(e) = crate::files::replace(path, report.junit().as_bytes())
    {
        return super::report::failure(
            super::report::Kind::Usage,
            &format!("cannot write {}: {e}", path.display()),
            Exit::Usage,
        );
    }
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(s) => outln!("{s}"),
            Err(e) => {
                return super::report::failure(
                    super::report::Kind::Output,
                    &format!("cannot encode the report: {e}"),
                    Exit::OutputClosed,
                );
            }
        }
    } else {
        print_text(&report, verbose);
        if let Some(line) = &changes {
            outln!("{line}");
        }
    }
    // Nothing answered at all: the agent is unreachable, which is a transport failure, not a verdict on it.
    let unreachable = report.card_name.is_none()
        && report
            .findings
            .iter()
            .filter(|f| f.id == "discovery.well-known")
            .flat_map(|f| &f.evidence)
            .all(|e| e.status.is_none());
    if unreachable {
        Exit::Transport
    } else if report.summary.must_failed {
        Exit::CheckFailed
    } else {
        Exit::Done
    }
}

fn print_text(report: &Report, verbose: bool) {
    outln!(
        "check of {}{} at {}: {} of at most {} requests, {:.1} s, {}",
        report.agent,
        report
            .card_name
            .as_ref()
            .map(|n| format!(" (card: {n})"))
            .unwrap_or_default(),
        report.url,
        report.requests_sent,
        report.request_budget,
        report.elapsed_ms as f64 / 1000.0,
        if report.active {
            "with active probes (tasks were created)"
        } else {
            "read-only"
        }
    );
    let mut heading: Option<(String, Option<String>)> = None;
    for f in &report.findings {
        let this = (f.area.label().to_string(), f.on.clone());
        if heading.as_ref() != Some(&this) {
            outln!();
            match &f.on {
                Some(on) => outln!("{} · {on}", f.area.label()),
                None => outln!("{}", f.area.label()),
            }
            heading = Some(this);
        }
        outln!(
            "  {:<4}  {:<34} {:<6}  {:<22} {}",
            f.verdict.label(),
            f.id,
            f.level.label(),
            f.section,
            f.reason
        );
        let show = match f.verdict {
            Verdict::Fail | Verdict::Warn => true,
            Verdict::Skip => verbose,
            Verdict::Pass => false,
        };
        if show && !f.evidence.is_empty() {
            for line in evidence_text(&f.evidence).lines() {
                outln!("          {line}");
            }
        }
    }
    let t = &report.summary.total;
    outln!();
    outln!(
        "summary: {} PASS · {} FAIL · {} WARN · {} SKIP ({} requirements judged)",
        t.pass,
        t.fail,
        t.warn,
        t.skip,
        t.judged()
    );
    for (area, c) in &report.summary.by_area {
        outln!(
            "  {:<20} {:>3} pass {:>3} fail {:>3} warn {:>3} skip",
            area.label(),
            c.pass,
            c.fail,
            c.warn,
            c.skip
        );
    }
    for (level, c) in &report.summary.by_level {
        out!(
            "  {level:<20} {:>3} pass {:>3} fail {:>3} warn {:>3} skip\n",
            c.pass,
            c.fail,
            c.warn,
            c.skip
        );
    }
    if report.card_name.is_none() {
        outln!("verdict: no card could be read, so nothing else was judged");
    } else if report.summary.must_failed {
        outln!("verdict: a MUST requirement fails (exit 8)");
    } else {
        outln!("verdict: no MUST requirement fails");
    }
}

/// Keep the report in the local store and say what changed since the agent's last check (`None` when
/// there was none, or no store: a check runs the same without one).
fn keep(agent_url: &str, report: &Report) -> Option<String> {
    let path = crate::store::db_path()?;
    let store = match crate::store::Store::open(&path) {
        Ok(s) => s,
        Err(e) => {
            super::report::warning(&format!("the report is not kept: {e}"));
            return None;
        }
    };
    let previous = store.last_check(agent_url).ok().flatten();
    let json = serde_json::to_string(report).ok()?;
    let kept = crate::store::KeptCheck {
        report: json,
        badge: crate::check::compare::badge(report),
        must_failed: report.summary.must_failed,
    };
    if let Err(e) = store.save_check(agent_url, &kept) {
        super::report::warning(&format!("the report is not kept: {e}"));
    }
    let (at, prev) = previous?;
    let prev: serde_json::Value = serde_json::from_str(&prev).ok()?;
    Some(format!(
        "since the last check ({}): {}",
        at.format("%Y-%m-%d %H:%M UTC"),
        crate::check::compare::compare(&prev, report).line()
    ))
}
