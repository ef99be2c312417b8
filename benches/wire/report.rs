//! The wire bench's table and targets: per recording, each client's median wall time, its time over the raw
//! transfer's and over the SDK loop's (ratios taken within each round, then their median), its peak RSS, the
//! events it counted and whether every run counted; then the targets, each "ok" or "MISSED".

use crate::plan::{Client, Outcome, Plan};

/// Targets, printed next to the numbers.
const TARGET_VS_SDK: f64 = 2.0;
const TARGET_RSS_MB: f64 = 25.0;
const TARGET_BIG_SECS: f64 = 0.5;
const TARGET_VS_PYTHON: f64 = 15.0;

pub fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "MISSED" }
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// One client's runs of one recording, round by round (None: it did not run that round).
fn runs(rounds: &[Vec<Outcome>], client: Client) -> Vec<Option<&Outcome>> {
    rounds
        .iter()
        .map(|row| row.iter().find(|o| o.client == client))
        .collect()
}

/// `a / b` within each round where both ran and counted.
fn ratios(rounds: &[Vec<Outcome>], a: Client, b: Client) -> Vec<f64> {
    runs(rounds, a)
        .into_iter()
        .zip(runs(rounds, b))
        .filter_map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if x.ok() && y.ok() => Some(x.sample.secs / y.sample.secs),
            _ => None,
        })
        .collect()
}

fn list(v: &[f64], digits: usize) -> String {
    v.iter()
        .map(|x| format!("{x:.digits$}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Median seconds over the rounds that counted, and whether every run counted (with the first failure).
fn secs(rounds: &[Vec<Outcome>], client: Client) -> (f64, Vec<f64>, Result<(), String>) {
    let mine: Vec<&Outcome> = runs(rounds, client).into_iter().flatten().collect();
    let all: Vec<f64> = mine.iter().map(|o| o.sample.secs).collect();
    let good: Vec<f64> = mine
        .iter()
        .filter(|o| o.ok())
        .map(|o| o.sample.secs)
        .collect();
    let failed: Vec<&Outcome> = mine.iter().copied().filter(|o| !o.ok()).collect();
    let status = match failed.first() {
        None => Ok(()),
        Some(o) => Err(format!(
            "FAILED {}/{}: {}",
            failed.len(),
            mine.len(),
            o.verdict.as_ref().err().cloned().unwrap_or_default()
        )),
    };
    (median(good), all, status)
}

fn peak_kb(rounds: &[Vec<Outcome>], client: Client) -> u64 {
    runs(rounds, client)
        .into_iter()
        .flatten()
        .map(|o| o.sample.rss_kb)
        .max()
        .unwrap_or(0)
}

pub fn print(
    plan: &Plan<'_>,
    checks: &[Vec<Outcome>],
    timed: &[Vec<Vec<Outcome>>],
    ids: &[Outcome],
    rounds: usize,
    py_rounds: usize,
) {
    println!();
    for (c, case) in plan.cases.iter().enumerate() {
        let rows = &timed[c];
        println!(
            "{}: {} events, {:.1} MB of SSE; {rounds} timed rounds (ratios per round, then their median)",
            case.rec.name,
            case.rec.events,
            case.rec.body.len() as f64 / 1e6
        );
        println!(
            "  {:<36} {:>8} {:>9} {:>10} {:>7} {:>8}  {:<34} check",
            "client", "events", "wall s", "×transfer", "×SDK", "RSS MB", "per round (s)"
        );
        for client in plan.clients(py_rounds > 0) {
            let (med, all, status) = secs(rows, client);
            let counted = checks[c]
                .iter()
                .chain(rows.iter().flatten())
                .filter(|o| o.client == client)
                .find_map(|o| o.verdict.as_ref().ok().copied().flatten());
            let check_failed = checks[c]
                .iter()
                .find(|o| o.client == client && !o.ok())
                .and_then(|o| o.verdict.as_ref().err());
            let status = match (status, check_failed) {
                (Err(e), _) => e,
                (Ok(()), Some(e)) => format!("FAILED in the check round: {e}"),
                (Ok(()), None) => "ok".into(),
            };
            let vs = |b: Client| {
                let r = ratios(rows, client, b);
                if r.is_empty() {
                    "—".to_string()
                } else {
                    format!("{:.2}", median(r))
                }
            };
            println!(
                "  {:<36} {:>8} {:>9} {:>10} {:>7} {:>8.1}  {:<34} {status}",
                client.label(),
                counted.map_or("—".to_string(), |n| n.to_string()),
                if med.is_finite() {
                    format!("{med:.3}")
                } else {
                    "—".to_string()
                },
                vs(Client::Raw),
                vs(Client::Sdk),
                mb(peak_kb(rows, client)),
                list(&all, 3),
            );
        }
        println!();
    }
    let flood = &timed[0];
    let big = &timed[1];
    println!("targets");
    let console_ok = |rows: &[Vec<Outcome>]| secs(rows, Client::Console).2.is_ok();
    let per_round = ratios(flood, Client::Sdk, Client::Console);
    let speedup = median(per_round.clone());
    println!(
        "  console ≥ {TARGET_VS_SDK}× faster than the SDK bare loop (flood; SDK/console per round {}): {speedup:.2}×   {}",
        list(&per_round, 2),
        verdict(speedup >= TARGET_VS_SDK && console_ok(flood))
    );
    let rss = mb(peak_kb(flood, Client::Console));
    println!(
        "  console peak RSS < {TARGET_RSS_MB} MB (flood, highest of the rounds): {rss:.2} MB   {}",
        verdict(rss < TARGET_RSS_MB && console_ok(flood))
    );
    let big_secs = secs(big, Client::Console).0;
    println!(
        "  the 20 MB event through the console < {TARGET_BIG_SECS} s (median): {big_secs:.3} s   {}",
        verdict(big_secs < TARGET_BIG_SECS && console_ok(big))
    );
    if plan.python.is_some() && py_rounds > 0 {
        let per_round = ratios(flood, Client::Python, Client::Console);
        let speedup = median(per_round.clone());
        println!(
            "  console ≥ {TARGET_VS_PYTHON}× faster than the Python client (flood; Python/console per round {}): {speedup:.1}×   {}",
            list(&per_round, 1),
            verdict(speedup >= TARGET_VS_PYTHON && console_ok(flood))
        );
        let per_round = ratios(big, Client::Python, Client::Console);
        println!(
            "  (20 MB event: Python/console per round {}, median {:.1}×)",
            list(&per_round, 1),
            median(per_round.clone())
        );
    }
    println!();
    println!(
        "JSON-RPC ids: the replay server puts each request's id in every envelope, as the demo agent does. With the \
         recorded id left in instead ({} events of the echo stream):",
        plan.id_case.rec.events
    );
    for o in ids {
        println!(
            "  {:<36} {}",
            o.client.label(),
            match &o.verdict {
                Ok(_) => "does not check it (every event accepted)".to_string(),
                Err(e) => format!("refuses or fails: {e}"),
            }
        );
    }
}
