//! Suites from the console: a suite file run on one agent in the background (its progress to the agent
//! list, the run kept on the store's thread and compared there with the last run of the same suite on the
//! same agent, then its page to the app), and a tab's task appended to a suite file as a case.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::app::ids::AgentId;
use crate::app::msg::Msg;
use crate::remote::connect::agent::AgentTarget;
use crate::store::Store;
use crate::suite::record::Recording;
use crate::suite::report::RunReport;
use crate::tui::runtime::Runtime;
use crate::tui::suite_page::{Kept, page};

/// How many kept runs are looked through for the last run of the same suite on the same agent.
const LOOK_BACK: usize = 50;

impl Runtime {
    pub(super) fn run_suite(&mut self, agent: AgentId, target: Box<AgentTarget>, path: PathBuf) {
        let tx = self.tx.clone();
        let jobs = self.writer.as_ref().and_then(|w| w.jobs());
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        self.suite_stops.insert(agent, stop_tx);
        tokio::spawn(async move {
            let report = match run(agent, &target, path, stop, &tx).await {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Msg::SuiteDone {
                        agent,
                        result: Err(e),
                    });
                    return;
                }
            };
            let label = target.label.clone();
            // Shown unkept when there is no store, or its thread is gone.
            let unkept = page(&report, &label, None);
            let answer = tx.clone();
            let queued = jobs.is_some_and(|jobs| {
                jobs.run(move |store| {
                    let mut report = report;
                    let kept = keep(store, &mut report);
                    let shown = page(&report, &label, kept.as_ref());
                    let _ = answer.send(Msg::SuiteDone {
                        agent,
                        result: Ok(Box::new(shown)),
                    });
                })
            });
            if !queued {
                let _ = tx.send(Msg::SuiteDone {
                    agent,
                    result: Ok(Box::new(unkept)),
                });
            }
        });
    }

    pub(super) fn stop_suite(&mut self, agent: AgentId) {
        if let Some(stop) = self.suite_stops.remove(&agent) {
            let _ = stop.send(true);
        }
    }

    pub(super) fn record_case(&mut self, path: PathBuf, recording: Box<Recording>) {
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Msg::Saved(append_case(&path, *recording)));
        });
    }
}

/// Load, expand and run the suite at `path` with every case on `target`.
async fn run(
    agent: AgentId,
    target: &AgentTarget,
    path: PathBuf,
    stop: tokio::sync::watch::Receiver<bool>,
    tx: &tokio::sync::mpsc::UnboundedSender<Msg>,
) -> Result<RunReport, String> {
    let shown = path.display().to_string();
    let loaded = tokio::task::spawn_blocking(move || crate::suite::file::load(&path))
        .await
        .map_err(|e| e.to_string())??;
    let cases = crate::suite::expand::expand(&loaded, Some(&target.url))?;
    if cases.is_empty() {
        return Err(format!("{shown} has no case"));
    }
    let opts = crate::suite::runner::Options {
        suites: vec![shown],
        stop: Some(stop),
        ..Default::default()
    };
    // Typed as the runner takes them: a spawned future needs these closures general over their lifetimes.
    let resolve: &(dyn Fn(&str) -> Result<AgentTarget, String> + Sync) = &|_| Ok(target.clone());
    let failed = AtomicUsize::new(0);
    let progress_tx = tx.clone();
    let progress: &(dyn Fn(crate::suite::runner::Progress<'_>) + Sync) = &move |p| {
        if !p.last.passed {
            failed.fetch_add(1, Ordering::Relaxed);
        }
        let _ = progress_tx.send(Msg::SuiteProgress {
            agent,
            done: p.done,
            total: p.total,
            failed: failed.load(Ordering::Relaxed),
        });
    };
    Ok(crate::suite::runner::run(&cases, &opts, resolve, progress).await)
}

/// Keep the run; find the last run of the same suite files on the same agent and compare with it.
fn keep(store: &Store, report: &mut RunReport) -> Option<Kept> {
    let earlier = store.runs(LOOK_BACK).unwrap_or_default();
    let id = match store.keep_run(report) {
        Ok(id) => id,
        Err(e) => {
            tracing::warn!("the suite run is not kept: {e}");
            return None;
        }
    };
    report.id = id;
    let agent = report.cases.first().map(|c| c.agent_url.clone());
    let suites = report.suites.join(", ");
    let previous = earlier
        .iter()
        .filter(|r| r.suites == suites)
        .filter_map(|r| {
            let before = store.kept_run(r.id).ok().flatten()?;
            let same_agent = before.cases.first().map(|c| c.agent_url.clone()) == agent;
            same_agent.then_some(before)
        })
        .next()
        .map(|before| (before.id, crate::suite::compare::runs(&before, report)));
    Some(Kept { id, previous })
}

/// Append the case to the file at `path` (created when missing); the status line's words.
fn append_case(path: &std::path::Path, mut rec: Recording) -> Result<String, String> {
    // The suite file finds attachments next to itself: a path the user typed here is made whole.
    rec.files = rec
        .files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let mut added = None;
    crate::files::edit_text(path, true, |existing, label| {
        let crate::suite::record::Appended { text, name, cases } =
            crate::suite::record::append(existing, &rec)
                .map_err(|e| format!("{label} was left as it was: {e}"))?;
        added = Some((name, cases));
        Ok(Some(text))
    })?;
    let (name, cases) = added.unwrap_or_default();
    Ok(format!(
        "case {name:?} written to {} ({cases} case{}); `a2a-console test {}` runs it",
        path.display(),
        if cases == 1 { "" } else { "s" },
        path.display()
    ))
}
