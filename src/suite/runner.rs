//! Running a suite: each agent the cases name is resolved and connected once, then the cases run with at most
//! `jobs` at a time (each under its own deadline), `repeat` times over, and every finished case is reported
//! through the progress callback as it ends, so a terminal can draw a bar and the console a page.

use std::collections::BTreeMap;

use futures::StreamExt;

use super::expand::Case;
use super::report::RunReport;
use super::run::{Agent, CaseResult, run_case};
use crate::remote::connect::agent::{self, AgentTarget};
use crate::remote::error::one_line;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Cases at a time.
    pub jobs: usize,
    /// Each case this many times (a flakiness measure: the pass rate per case).
    pub repeat: u32,
    /// Only cases whose name contains this (case-insensitive).
    pub filter: Option<String>,
    /// Said in the report: the suite files run.
    pub suites: Vec<String>,
    /// Said in the report: the binding and protocol asked for, if any.
    pub binding: Option<String>,
    pub protocol: Option<String>,
    /// Set to `true` to stop the run: the cases running are cut off, the ones not started are not, and the
    /// report has every case (those as "not run").
    pub stop: Option<tokio::sync::watch::Receiver<bool>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 4,
            repeat: 1,
            filter: None,
            suites: Vec::new(),
            binding: None,
            protocol: None,
            stop: None,
        }
    }
}

/// Where a run stands: `done` of `total` cases finished, and the last one.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub last: &'a CaseResult,
}

/// The cases `filter` keeps.
pub fn filtered(cases: Vec<Case>, filter: Option<&str>) -> Vec<Case> {
    match filter {
        None => cases,
        Some(f) => {
            let f = f.to_lowercase();
            cases
                .into_iter()
                .filter(|c| c.name.to_lowercase().contains(&f))
                .collect()
        }
    }
}

/// Run `cases`; `resolve` turns a case's agent (a name or a URL) into a target, with the command line's or
/// the console's overrides applied.
pub async fn run(
    cases: &[Case],
    opts: &Options,
    resolve: &(dyn Fn(&str) -> Result<AgentTarget, String> + Sync),
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> RunReport {
    let started = chrono::Utc::now();
    let clock = std::time::Instant::now();
    known_secrets(cases);
    let mut stop = opts.stop.clone();
    // A stop asked while the agents connect (one may take its whole timeout) ends the run there too.
    let connected = tokio::select! {
        agents = connect_all(cases, resolve) => Some(agents),
        () = stop_asked(stop.as_mut()) => None,
    };
    let stopped_connecting = connected.is_none();
    let agents = connected.unwrap_or_default();
    let repeat = opts.repeat.max(1);
    let work: Vec<(&Case, u32)> = (1..=repeat)
        .flat_map(|attempt| cases.iter().map(move |c| (c, attempt)))
        .collect();
    let total = work.len();
    // Collected first: a stream over a mapping closure that borrows the cases is not `Send` to the compiler
    // (its lifetimes are not general enough), and the console runs a suite on a spawned task.
    let jobs: Vec<_> = work
        .iter()
        .copied()
        .enumerate()
        .map(|(i, (case, attempt))| {
            let agent = agents
                .get(&case.agent)
                .map(|r| r.as_ref().map_err(String::as_str))
                .unwrap_or(Err("agent not resolved"));
            async move { (i, run_case(case, attempt, agent).await) }
        })
        .collect();
    let mut running = futures::stream::iter(jobs).buffer_unordered(opts.jobs.max(1));
    // Each case's result in the order of `work`, filled as they end.
    let mut results: Vec<Option<CaseResult>> = (0..total).map(|_| None).collect();
    let mut done = 0;
    let stopped = stopped_connecting
        || loop {
            let next = tokio::select! {
                r = running.next() => r,
                () = stop_asked(stop.as_mut()) => break true,
            };
            let Some((i, r)) = next else {
                break false;
            };
            if let Some(slot) = results.get_mut(i) {
                done += 1;
                progress(Progress {
                    done,
                    total,
                    last: slot.insert(r),
                });
            }
        };
    drop(running);
    let cases = results
        .into_iter()
        .zip(&work)
        .map(|(r, (case, attempt))| {
            r.unwrap_or_else(|| CaseResult::not_run(case, *attempt, STOPPED))
        })
        .collect();
    let mut report = RunReport::new(started, clock.elapsed(), opts, cases);
    report.stopped = stopped;
    report
}

/// Why a case of a stopped run has no result.
pub const STOPPED: &str = "not run to its end: the run was stopped";

/// Returns once `true` is sent; never without a switch, or when its sender is gone without sending it.
async fn stop_asked(rx: Option<&mut tokio::sync::watch::Receiver<bool>>) {
    let asked = match rx {
        Some(rx) => rx.wait_for(|s| *s).await.is_ok(),
        None => false,
    };
    if !asked {
        std::future::pending::<()>().await;
    }
}

/// The tokens the cases may answer auth-required with are secrets from the start: what an agent echoes of one
/// is redacted in every case and every run alike, not only after a case has sent it (a console that ran the
/// suite before would otherwise see a change between two runs where the agent did the same).
fn known_secrets(cases: &[Case]) {
    let vars = cases
        .iter()
        .flat_map(|c| &c.reply)
        .filter_map(|r| r.credential_env.as_deref());
    for var in vars {
        if let Ok(token) = std::env::var(var)
            && !token.trim().is_empty()
        {
            crate::trust::redact::register_secret(token.trim());
        }
    }
}

/// Each agent named once: resolved and connected, or why not (every case on it fails with that reason).
async fn connect_all(
    cases: &[Case],
    resolve: &(dyn Fn(&str) -> Result<AgentTarget, String> + Sync),
) -> BTreeMap<String, Result<Agent, String>> {
    let mut out = BTreeMap::new();
    for case in cases {
        if out.contains_key(&case.agent) {
            continue;
        }
        let agent = match resolve(&case.agent) {
            Err(e) => Err(e),
            Ok(target) => connect(target).await,
        };
        out.insert(case.agent.clone(), agent);
    }
    out
}

async fn connect(target: AgentTarget) -> Result<Agent, String> {
    let said = |e: crate::remote::error::RemoteError| one_line(&e.message);
    let own = target.own_http().map_err(said)?;
    let (fetcher, http) = match own {
        Some(o) => (o.fetcher, o.http),
        None => (
            std::sync::Arc::new(
                crate::remote::card::CardFetcher::new(target.timeout).map_err(said)?,
            ),
            crate::remote::http::http_client(target.timeout).map_err(said)?,
        ),
    };
    let conn = agent::connect(&target, &http, &fetcher)
        .await
        .map_err(said)?;
    Ok(Agent { target, conn })
}
