//! A suite run as the console's page (the check report's page, one row per case): the totals in the title,
//! where the run was kept and what changed since the last run of the same suite on the same agent, and per
//! case its verdict, time and final state, with what was expected and what was seen as the row's detail.

use crate::app::msg::{CheckPage, CheckRow};
use crate::suite::compare::Comparison;
use crate::suite::report::RunReport;
use crate::suite::run::CaseResult;
use crate::trust::sanitize::sanitize_line;

/// Where the run was kept: its id, and the run it is compared with (with the comparison).
pub struct Kept {
    pub id: i64,
    pub previous: Option<(i64, Comparison)>,
}

/// The page of `run` on the agent called `agent` (`kept`: `None` when there is no store).
pub fn page(run: &RunReport, agent: &str, kept: Option<&Kept>) -> CheckPage {
    let agent = sanitize_line(agent).0;
    let files = files_of(run);
    let title = format!(
        "Suite {files} on {agent} · {} PASS · {} FAIL · {:.1} s{}",
        run.passed,
        run.failed,
        run.elapsed_ms as f64 / 1000.0,
        if run.stopped { " · stopped" } else { "" }
    );
    let mut rows = Vec::new();
    let changes = match kept {
        None => Some("not kept: the local store is off".to_string()),
        Some(Kept { id, previous: None }) => Some(format!(
            "kept as run {id} · the first run of this suite on this agent (`a2a-console runs` lists the runs)"
        )),
        Some(Kept {
            id,
            previous: Some((prev, cmp)),
        }) => {
            rows.push(changes_row(*prev, *id, cmp));
            Some(format!(
                "kept as run {id} · since run {prev}: {} · `a2a-console compare {prev} {id}`",
                changed_words(cmp.changed)
            ))
        }
    };
    for (i, c) in run.cases.iter().enumerate() {
        rows.push(case_row(i + 1, c, &agent));
    }
    // The verdict before the file's name: a narrow agent list cuts the end.
    let badge = format!(
        "suite {}/{} {} {files}",
        run.passed,
        run.cases.len(),
        if run.all_passed() { "✓" } else { "✗" }
    );
    let changes_alarm = kept
        .and_then(|k| k.previous.as_ref())
        .is_some_and(|(_, cmp)| cmp.changed > 0);
    CheckPage {
        title,
        changes,
        changes_alarm,
        rows,
        badge,
        must_failed: !run.all_passed(),
        kind: crate::app::msg::PageKind::Suite,
    }
}

fn files_of(run: &RunReport) -> String {
    let names: Vec<String> = run
        .suites
        .iter()
        .map(|s| crate::suite::file::shown_name(s))
        .collect();
    sanitize_line(&names.join(", ")).0
}

fn changed_words(n: usize) -> String {
    match n {
        0 => "nothing changed".into(),
        1 => "1 case changed".into(),
        n => format!("{n} cases changed"),
    }
}

/// The comparison with the last run, as a row whose detail is the whole comparison.
fn changes_row(prev: i64, id: i64, cmp: &Comparison) -> CheckRow {
    let detail = cmp.lines.iter().map(|l| l.plain()).collect();
    CheckRow {
        line: format!(
            "{:<4}  #Δ   since run {prev}: {} (Enter: what changed; `a2a-console compare {prev} {id}`)",
            if cmp.changed == 0 { "SAME" } else { "DIFF" },
            changed_words(cmp.changed)
        ),
        verdict: Some(if cmp.changed == 0 { "PASS" } else { "WARN" }),
        detail,
    }
}

fn case_row(n: usize, c: &CaseResult, agent: &str) -> CheckRow {
    let verdict = if c.passed { "PASS" } else { "FAIL" };
    let name = crate::app::names::ellipsize(&sanitize_line(&c.name).0, 32);
    let state = c.seen.final_state.as_deref().unwrap_or("no state");
    let why = if c.passed {
        String::new()
    } else {
        c.error
            .clone()
            .or_else(|| {
                c.checks
                    .iter()
                    .find(|k| !k.passed)
                    .map(|k| format!("{}: expected {}", k.what, k.expected))
            })
            .map(|w| format!(" · {}", sanitize_line(&w).0))
            .unwrap_or_default()
    };
    CheckRow {
        line: format!(
            "{verdict}  #{n:<3} {} {:>6.2} s  {}{why}",
            // Padded by columns, so a wide (CJK) name keeps the rows lined up.
            crate::app::names::fit_cols(&name, 32),
            c.seen.total_ms as f64 / 1000.0,
            sanitize_line(state).0
        ),
        verdict: Some(verdict),
        detail: case_detail(c, &name, agent),
    }
}

/// Everything about one case: what it expected and what the agent gave, the states, the timings, the
/// artifacts, the agent's messages and any flag or anomaly. The agent's words are marked as the agent's.
fn case_detail(c: &CaseResult, name: &str, agent: &str) -> Vec<String> {
    let s = |x: &str| sanitize_line(x).0;
    let mut d = vec![format!(
        "case {name} · {}",
        if c.passed { "PASS" } else { "FAIL" }
    )];
    if c.binding.is_empty() {
        d.push(format!("agent {agent} ({})", s(&c.agent_url)));
    } else {
        d.push(format!(
            "agent {agent} ({}) over {} {}",
            s(&c.agent_url),
            s(&c.binding),
            s(&c.protocol)
        ));
    }
    if let Some(id) = &c.seen.task_id {
        d.push(format!("task {}", s(id)));
    }
    d.push(String::new());
    if let Some(e) = &c.error {
        d.push(format!("error: {}", s(e)));
    }
    d.extend(c.checks.iter().map(|k| k.line(agent)));
    d.push(String::new());
    let o = &c.seen;
    d.push(format!("states: {}", s(&o.states_line())));
    d.push(format!("{} · {} events", o.timing_line(), o.events));
    for a in &o.artifacts {
        d.push(format!("artifact {}", s(&a.summary())));
    }
    for m in o.messages.iter().take(5) {
        for l in m.lines().take(3) {
            d.push(format!("agent {agent} said: {}", s(l)));
        }
    }
    for f in &o.flags {
        d.push(format!("flag: {}", s(f)));
    }
    for a in &o.anomalies {
        d.push(format!("protocol anomaly from agent {agent}: {}", s(a)));
    }
    for r in &o.recovered {
        d.push(format!("note: agent {agent}: {}", s(r)));
    }
    d
}
