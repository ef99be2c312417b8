//! `test SUITE.toml…`, `runs` and `compare`: suites run with a progress bar on a terminal (plain lines
//! otherwise), one PASS/FAIL line per case with each failing expectation and what was seen, the run kept in
//! the local store; the kept runs listed; two runs, or two stored tasks, compared.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::exit::Exit;
use super::print::outln;
use super::report::{self, Kind};
use super::{GlobalOpts, resolve_target};
use crate::config::Config;
use crate::store::Store;
use crate::suite::compare::{self, Comparison};
use crate::suite::observe::{KeptEvent, Observed, from_events};
use crate::suite::report::RunReport;
use crate::suite::run::CaseResult;
use crate::suite::runner::{self, Progress};
use crate::trust::sanitize::sanitize_line;

/// `test`'s flags.
pub struct TestArgs<'a> {
    pub suites: &'a [PathBuf],
    pub agent: Option<&'a str>,
    pub filter: Option<String>,
    pub repeat: u32,
    pub jobs: usize,
    pub junit: Option<&'a Path>,
    pub json: Option<&'a Path>,
    pub verbose: bool,
}

fn usage(message: &str) -> Exit {
    report::failure(Kind::Usage, message, Exit::Usage)
}

pub async fn test(config: &Config, global: &GlobalOpts, args: &TestArgs<'_>) -> Exit {
    let mut cases = Vec::new();
    for path in args.suites {
        let loaded = match crate::suite::file::load(path) {
            Ok(l) => l,
            Err(e) => return usage(&e),
        };
        match crate::suite::expand::expand(&loaded, args.agent) {
            Ok(c) => cases.extend(c),
            Err(e) => return usage(&format!("{}: {e}", path.display())),
        }
    }
    let cases = runner::filtered(cases, args.filter.as_deref());
    if cases.is_empty() {
        return usage("no case matches --filter");
    }
    let opts = runner::Options {
        jobs: args.jobs,
        repeat: args.repeat,
        filter: args.filter.clone(),
        suites: args
            .suites
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        binding: global.binding.clone(),
        protocol: global.protocol.clone(),
        stop: Some(stop_on_ctrl_c()),
    };
    let resolve = |name: &str| resolve_target(config, global, name).map_err(|e| e.message);
    let tty = std::io::stderr().is_terminal();
    let progress = move |p: Progress<'_>| progress_line(tty, &p);
    let mut run = runner::run(&cases, &opts, &resolve, &progress).await;
    if tty {
        eprintln!();
    }
    let (id, previous) = keep(&run).unwrap_or((0, None));
    run.id = id;
    print_run(&run, args.verbose, previous);
    if let Some(path) = args.junit
        && let Err(e) = crate::files::replace(path, run.junit().as_bytes())
    {
        return usage(&format!("cannot write {}: {e}", path.display()));
    }
    if let Some(path) = args.json {
        let written = serde_json::to_vec_pretty(&run)
            .map_err(|e| e.to_string())
            .and_then(|b| crate::files::replace(path, &b).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return usage(&format!("cannot write {}: {e}", path.display()));
        }
    }
    if run.all_passed() {
        Exit::Done
    } else {
        Exit::SuiteFailed
    }
}

/// Ctrl-C stops the run instead of killing it: the cases that ended are printed and kept, the others are
/// "not run" (and the exit code is 9, as for any case that did not pass).
fn stop_on_ctrl_c() -> tokio::sync::watch::Receiver<bool> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!();
            report::warning("stopping: the cases that ended are printed and kept");
            let _ = tx.send(true);
        }
    });
    rx
}

/// A bar redrawn in place on a terminal; one plain line per finished case otherwise.
fn progress_line(tty: bool, p: &Progress<'_>) {
    let verdict = if p.last.passed { "PASS" } else { "FAIL" };
    let name = sanitize_line(&p.last.name).0;
    if tty {
        const WIDTH: usize = 24;
        let filled = (p.done * WIDTH).checked_div(p.total).unwrap_or(WIDTH);
        eprint!(
            "\r\x1b[2K[{}{}] {}/{} · {verdict} {}",
            "#".repeat(filled),
            "·".repeat(WIDTH - filled),
            p.done,
            p.total,
            name
        );
    } else {
        eprintln!("[{}/{}] {verdict} {name}", p.done, p.total);
    }
}

/// The widest case name the name column grows to; a longer one is cut with `…`.
const NAME_COLUMN_MAX: usize = 56;

fn print_run(run: &RunReport, verbose: bool, previous: Option<i64>) {
    // One column for the names, as wide as the longest (up to a limit), so the agents line up.
    let labels: Vec<String> = run
        .cases
        .iter()
        .map(|c| sanitize_line(&run.case_label(c)).0)
        .collect();
    let width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(20, NAME_COLUMN_MAX);
    for (c, label) in run.cases.iter().zip(&labels) {
        let label = if label.chars().count() > width {
            let mut cut: String = label.chars().take(width - 1).collect();
            cut.push('…');
            cut
        } else {
            label.clone()
        };
        let over = if c.binding.is_empty() {
            String::new()
        } else {
            format!(" ({} {})", c.binding, c.protocol)
        };
        outln!(
            "{}  {:<width$} {}{over} {:.2} s, {}",
            if c.passed { "PASS" } else { "FAIL" },
            label,
            sanitize_line(&c.agent).0,
            c.seen.total_ms as f64 / 1000.0,
            c.seen.final_state.as_deref().unwrap_or("no state")
        );
        print_details(c, verbose);
    }
    if run.repeat > 1 {
        outln!();
        outln!("pass rate per case over {} runs:", run.repeat);
        for (name, r) in &run.pass_rates {
            outln!(
                "  {:>3.0}%  {}/{}  {}",
                r.percent(),
                r.passed,
                r.runs,
                sanitize_line(name).0
            );
        }
    }
    outln!();
    outln!("{}", run.summary_line());
    match previous {
        Some(p) if run.id > 0 => outln!(
            "kept as run {} (`a2a-console compare {p} {}` shows what changed since run {p})",
            run.id,
            run.id
        ),
        _ if run.id > 0 => outln!(
            "kept as run {} (`a2a-console runs` lists the kept runs)",
            run.id
        ),
        _ => {}
    }
}

fn print_details(c: &CaseResult, verbose: bool) {
    let agent = sanitize_line(&c.agent).0;
    if let Some(e) = &c.error {
        outln!("        error: {}", sanitize_line(e).0);
    }
    for k in c.checks.iter().filter(|k| verbose || !k.passed) {
        outln!("        {}", k.line(&agent));
    }
    // Shown under a PASS too: a team gating on the agent wants to know it needed a second try.
    for r in &c.seen.recovered {
        outln!("        note: agent {agent}: {r}");
    }
    if !c.passed {
        for a in &c.seen.anomalies {
            outln!("        protocol anomaly from agent {agent}: {a}");
        }
    }
}

/// Keep the run in the store: its id and the id of the run before it (`None` when there is no store, which a
/// run does not need).
fn keep(run: &RunReport) -> Option<(i64, Option<i64>)> {
    let path = crate::store::db_path()?;
    let kept = Store::open(&path).and_then(|store| {
        let previous = store.runs(1)?.first().map(|r| r.id);
        Ok((store.keep_run(run)?, previous))
    });
    match kept {
        Ok(ids) => Some(ids),
        Err(e) => {
            report::warning(&format!("the run is not kept: {e}"));
            None
        }
    }
}

fn open_store() -> Result<Store, String> {
    let path = crate::store::db_path().ok_or("no local store (no data directory)")?;
    Store::open(&path).map_err(|e| e.to_string())
}

/// `runs`: the kept runs, newest first.
pub fn runs(json: bool, last: usize) -> Exit {
    let listed = open_store().and_then(|s| s.runs(last).map_err(|e| e.to_string()));
    let runs = match listed {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    if json {
        let arr: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id,
                    "at": r.at.to_rfc3339(),
                    "suites": r.suites,
                    "passed": r.passed,
                    "failed": r.failed,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(arr));
        return Exit::Done;
    }
    if runs.is_empty() {
        outln!("no suite run is kept yet (`a2a-console test SUITE.toml` runs one)");
    }
    for r in &runs {
        outln!(
            "{:>5}  {}  {:>3} passed {:>3} failed  {}",
            r.id,
            r.at.format("%Y-%m-%d %H:%M:%S"),
            r.passed,
            r.failed,
            sanitize_line(&r.suites).0
        );
    }
    Exit::Done
}

/// A run or a task, as `compare` was given it.
enum Side {
    Run(Box<RunReport>),
    Task(String, Box<Observed>),
}

/// `compare A B`: two runs, or two tasks; with no arguments, the last two runs.
pub fn compare(a: Option<&str>, b: Option<&str>, json: bool) -> Exit {
    let store = match open_store() {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    let sides = match (a, b) {
        (Some(a), Some(b)) => side(&store, a).and_then(|x| Ok((x, side(&store, b)?))),
        (None, None) => last_two(&store),
        _ => Err("give two runs or two tasks (or nothing: the last two runs)".into()),
    };
    let comparison = match sides {
        Ok((Side::Run(x), Side::Run(y))) => compare::runs(&x, &y),
        Ok((Side::Task(la, x), Side::Task(lb, y))) => compare::tasks(&la, &x, &lb, &y),
        Ok(_) => return usage("compare a run with a run, or a task with a task"),
        Err(e) => return usage(&e),
    };
    print_comparison(&comparison, json);
    Exit::Done
}

fn last_two(store: &Store) -> Result<(Side, Side), String> {
    let runs = store.runs(2).map_err(|e| e.to_string())?;
    match runs.as_slice() {
        [newer, older] => Ok((
            side(store, &older.id.to_string())?,
            side(store, &newer.id.to_string())?,
        )),
        _ => Err(
            "fewer than two suite runs are kept: run `a2a-console test` twice, or name two tasks"
                .into(),
        ),
    }
}

/// A number names a kept run; anything else a stored task (its id or short id).
fn side(store: &Store, name: &str) -> Result<Side, String> {
    if let Ok(id) = name.parse::<i64>()
        && let Some(run) = store.kept_run(id).map_err(|e| e.to_string())?
    {
        return Ok(Side::Run(Box::new(run)));
    }
    let tasks = store.tasks().map_err(|e| e.to_string())?;
    let rec = super::stored::find_task(&tasks, name).map_err(|e| {
        if name.parse::<i64>().is_ok() {
            format!("{name} is neither a kept run (see `a2a-console runs`) nor a stored task")
        } else {
            e
        }
    })?;
    let events = store
        .events(&rec.agent_url, &rec.task_id)
        .map_err(|e| e.to_string())?;
    let kept: Vec<KeptEvent> = events
        .iter()
        .filter_map(|e| match crate::store::stream_response(&e.kind, &e.json) {
            Some(Ok(ev)) => Some(KeptEvent {
                at: e.at,
                event: Some(ev),
            }),
            Some(Err(_)) => None,
            None => (e.kind == crate::store::kind::USER).then_some(KeptEvent {
                at: e.at,
                event: None,
            }),
        })
        .collect();
    let label = format!(
        "task {} of {}",
        sanitize_line(&crate::task::short_id::tail(&rec.task_id, 8)).0,
        sanitize_line(&rec.agent_name).0
    );
    Ok(Side::Task(
        label,
        Box::new(from_events_skipping_open(&kept)),
    ))
}

/// Replay a stored task; a leading user message is the start of the clock, not an answer.
fn from_events_skipping_open(kept: &[KeptEvent]) -> Observed {
    match kept.first() {
        Some(k) if k.event.is_none() => {
            let mut seen = from_events(kept.get(1..).unwrap_or_default());
            // Timings from the user's message: shift them by the gap before the first event.
            if let Some(next) = kept.get(1) {
                let gap = u64::try_from((next.at - k.at).num_milliseconds()).unwrap_or(0);
                seen.first_event_ms = seen.first_event_ms.map(|m| m + gap);
                seen.total_ms += gap;
            }
            seen
        }
        _ => from_events(kept),
    }
}

fn print_comparison(c: &Comparison, json: bool) {
    for l in &c.lines {
        if json {
            outln!(
                "{}",
                serde_json::json!({
                    "kind": format!("{:?}", l.kind).to_lowercase(),
                    "depth": l.depth,
                    "text": l.text,
                })
            );
            continue;
        }
        outln!("{}", l.plain());
    }
    if !json {
        outln!();
        outln!("{} changed · {} unchanged", c.changed, c.same);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::report::failure_text;

    #[test]
    fn failure_text_lists_every_failed_expectation() {
        let c = CaseResult {
            name: "n".into(),
            spec_name: "n".into(),
            row: None,
            attempt: 1,
            agent: "a".into(),
            agent_url: "http://127.0.0.1:1".into(),
            binding: "JSONRPC".into(),
            protocol: "1.0".into(),
            passed: false,
            error: Some("boom".into()),
            checks: vec![],
            seen: Observed::default(),
        };
        assert_eq!(failure_text(&c), "boom");
    }
}
