//! The wire benchmark: how fast, and in how much memory, a real A2A stream gets from the socket through each
//! client. One run records (once; kept in `target/bench-wire/`) a 100 000-event `flood` reply of the embedded
//! demo agent and a stream whose single artifact event is 20 MiB, replays each from a loopback server of ours
//! as fast as it can, and times, round by round and interleaved, separate processes that drink it:
//!
//! - the raw transfer: a plain reqwest client draining the body, and `curl -o /dev/null` when curl exists;
//! - the official Rust SDK's bare loop (`a2a-client-lf`: card, factory, `send_streaming_message`, count);
//! - the console's CLI path: the release `a2a-console send URL TEXT --stream --json > /dev/null`;
//! - the official Python client (`a2a-sdk` 1.3.0, `tests/peers/py_stream_client.py`) for a round or two, when
//!   `target/peers/py10` is installed.
//!
//! It prints a table (median wall time, per-round ratios to the transfer and to the SDK loop and their median,
//! peak RSS, the events each client counted) and the targets with "ok" or "MISSED"; it measures and reports,
//! it never fails on a target. A client that stops early, or counts other than every event, shows as FAILED.
//!
//! Run: `cargo bench --bench wire` (release profile; a few minutes). Options after `--`, or as environment:
//! `--rounds N` / `WIRE_BENCH_ROUNDS` (default 5), `--py-rounds N` / `WIRE_BENCH_PY_ROUNDS` (default 2),
//! `--no-python` / `WIRE_BENCH_PYTHON=0`; `WIRE_BENCH_CUT_AT=N` cuts every reply after N bytes (to see
//! early ends fail); `--serve` runs only the replay servers, to try or profile a client by hand. Only 127.0.0.1 is
//! contacted.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a measurement binary: failing loudly is right

mod clients;
#[path = "../shared/demo_card.rs"]
mod demo_card;
mod plan;
mod record;
mod replay;
mod report;
mod runner;

use std::time::Instant;

use plan::{Client, Outcome, Plan};
use runner::Stdout;

/// Timed rounds by default (each runs every client once on each recording).
const ROUNDS: usize = 5;
/// Rounds with the Python client by default (it is slow: tens of seconds per flood).
const PY_ROUNDS: usize = 2;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Child modes: this binary is also the wrapper that measures a client, and two of the clients.
    if let Some(i) = args.iter().position(|a| a == "--rusage") {
        std::process::exit(runner::wrap(&args[i + 1..]));
    }
    if let Some(i) = args.iter().position(|a| a == "--raw") {
        let arg = |k: usize| args.get(i + k).expect("--raw URL ID TEXT").as_str();
        std::process::exit(clients::raw(arg(1), arg(2), arg(3)));
    }
    if let Some(i) = args.iter().position(|a| a == "--sdk-loop") {
        let arg = |k: usize| args.get(i + k).expect("--sdk-loop BASE TEXT").as_str();
        std::process::exit(clients::sdk_loop(arg(1), arg(2)));
    }
    if args.iter().any(|a| a == "--serve") {
        serve();
        return;
    }
    parent(&args);
}

/// `--serve`: only the replay servers, for running and profiling a client by hand; until stdin closes.
fn serve() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let recs = rt.block_on(record::load_or_record(&record::dir()));
    let home = tempfile::tempdir().expect("temp dir");
    let plan = rt.block_on(Plan::new(&recs, home.path(), false));
    for case in plan.cases.iter().chain([&plan.id_case]) {
        println!(
            "{}: {} (send {:?}), JSON-RPC at {}",
            case.rec.name, case.server.base, case.rec.text, case.server.rpc_url
        );
    }
    println!("serving until stdin closes (Ctrl-D)");
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
}

/// `--name N` on the command line, else the environment variable, else `default`.
fn option(args: &[String], flag: &str, var: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .or_else(|| std::env::var(var).ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn parent(args: &[String]) {
    let total = Instant::now();
    let rounds = option(args, "--rounds", "WIRE_BENCH_ROUNDS", ROUNDS).max(1);
    let python_wanted = !args.iter().any(|a| a == "--no-python")
        && std::env::var("WIRE_BENCH_PYTHON").map_or(true, |v| v != "0");
    let py_rounds = option(args, "--py-rounds", "WIRE_BENCH_PY_ROUNDS", PY_ROUNDS).min(rounds);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let recs = rt.block_on(record::load_or_record(&record::dir()));
    let home = tempfile::tempdir().expect("temp dir");
    let plan = rt.block_on(Plan::new(&recs, home.path(), python_wanted));
    for case in &plan.cases {
        println!(
            "  {}: {} events, {:.1} MB of SSE, replayed from {}",
            case.rec.name,
            case.rec.events,
            case.rec.body.len() as f64 / 1e6,
            case.server.base
        );
    }
    if !plan.curl {
        println!("  (curl not found: no curl row)");
    }
    match (&plan.python, python_wanted) {
        (Some(py), _) => println!("  Python client: {py} ({py_rounds} round(s))"),
        (None, true) => println!("  (target/peers/py10/bin/python not found: no Python row)"),
        (None, false) => println!("  (Python client skipped)"),
    }

    // The untimed first round: every client once (the console's output counted line by line), which also
    // warms the page cache and the servers.
    println!("check round (untimed; the console's --json lines are counted here)…");
    let mut checks: Vec<Vec<Outcome>> = Vec::new();
    for case in &plan.cases {
        let mut row = Vec::new();
        for client in plan.clients(false) {
            let mode = if client == Client::Console {
                Stdout::CountLines
            } else {
                client.stdout()
            };
            let o = plan.run(client, case, mode);
            progress("check", case.rec.name, &o);
            row.push(o);
        }
        checks.push(row);
    }

    let mut timed: Vec<Vec<Vec<Outcome>>> = plan.cases.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        println!("round {}/{rounds}…", round + 1);
        for (c, case) in plan.cases.iter().enumerate() {
            let mut order = plan.clients(round < py_rounds);
            // Interleaved: the SDK loop and the console take turns going first.
            if round % 2 == 1 {
                order.reverse();
            }
            let mut row: Vec<Outcome> = order
                .into_iter()
                .map(|client| {
                    let o = plan.run(client, case, client.stdout());
                    progress(&format!("{}", round + 1), case.rec.name, &o);
                    o
                })
                .collect();
            row.sort_by_key(|o| o.client);
            timed[c].push(row);
        }
    }

    println!(
        "JSON-RPC ids: each client against envelopes that carry the recorded id, not the request's…"
    );
    let ids: Vec<Outcome> = plan
        .clients(true)
        .into_iter()
        .filter(|c| matches!(c, Client::Sdk | Client::Console | Client::Python))
        .map(|client| {
            let mode = if client == Client::Console {
                Stdout::CountLines
            } else {
                client.stdout()
            };
            let o = plan.run(client, &plan.id_case, mode);
            progress("ids", plan.id_case.rec.name, &o);
            o
        })
        .collect();

    report::print(&plan, &checks, &timed, &ids, rounds, py_rounds);
    println!("total bench time {:.1} s", total.elapsed().as_secs_f64());
}

fn progress(round: &str, case: &str, o: &Outcome) {
    println!(
        "  {round:>5} {case:<15} {:<34} {:>8.3} s {:>7.1} MB  {}",
        o.client.label(),
        o.sample.secs,
        o.sample.rss_kb as f64 / 1024.0,
        match &o.verdict {
            Ok(Some(n)) => format!("ok ({n} events)"),
            Ok(None) => "ok".to_string(),
            Err(why) => format!("FAILED: {why}"),
        }
    );
}
