//! The subcommands that read (or prune) the local store and never touch the network: history, export, audit,
//! prune.

use super::Command;
use super::output::safe_json;
use super::print::{out, outln};
use crate::remote::error::one_line;

/// Apply retention now, vacuum, and say what went.
pub(super) fn prune(keep: crate::store::Retention) -> Result<(), String> {
    let path = crate::store::db_path().ok_or("no data directory for the local store")?;
    if !path.exists() {
        outln!("no local store at {}: nothing to prune", path.display());
        return Ok(());
    }
    let store = crate::store::Store::open(&path).map_err(|e| e.to_string())?;
    let p = store.prune(keep, true).map_err(|e| e.to_string())?;
    outln!(
        "pruned {}: {} task(s) and {} event(s) older than {} days or past {} MiB, {} audit entr(ies) older than {} days; {:.1} MiB → {:.1} MiB in use",
        path.display(),
        p.tabs,
        p.events,
        keep.keep_days,
        keep.max_mb,
        p.audit,
        keep.audit_keep_days,
        p.bytes_before as f64 / 1_048_576.0,
        p.bytes_after as f64 / 1_048_576.0
    );
    Ok(())
}

/// The store commands: they read the local database and never touch the network.
pub(super) fn stored(command: Command) -> Result<(), String> {
    let path = crate::store::db_path().ok_or("no data directory for the local store")?;
    if !path.exists() {
        return Err(format!(
            "no local store at {} yet: the console creates it when it runs",
            path.display()
        ));
    }
    let store = crate::store::Store::open(&path).map_err(|e| e.to_string())?;
    match command {
        Command::History { json } => {
            let tasks = store.tasks().map_err(|e| e.to_string())?;
            if json {
                let v: Vec<serde_json::Value> = tasks
                    .iter()
                    .map(|t| {
                        serde_json::json!({"agent": t.agent_url, "agentName": t.agent_name, "taskId": t.task_id,
                            "contextId": t.context_id, "state": t.state, "updatedAt": t.updated_at.to_rfc3339()})
                    })
                    .collect();
                outln!("{}", safe_json(&v, true));
            } else {
                outln!("{:<38} {:<15} {:<20} AGENT", "TASK", "STATE", "UPDATED");
                for t in &tasks {
                    outln!(
                        "{:<38} {:<15} {:<20} {}",
                        one_line(&t.task_id),
                        one_line(&t.state),
                        t.updated_at.format("%Y-%m-%d %H:%M:%S"),
                        one_line(&t.agent_name)
                    );
                }
                outln!("{} task(s) in {}", tasks.len(), path.display());
            }
        }
        Command::Export { task_id, format } => {
            let json = match format.as_str() {
                "md" | "markdown" => false,
                "json" => true,
                other => return Err(format!("--format {other:?}: expected md or json")),
            };
            let rec = find_task(&store.tasks().map_err(|e| e.to_string())?, &task_id)?;
            // The tab that holds the task: an earlier task of a conversation is exported with the rest of it.
            let tab = store
                .tab_of_task(&rec.agent_url, &rec.task_id)
                .map_err(|e| e.to_string())?
                .unwrap_or_else(|| format!("{} {}", rec.agent_url, rec.task_id));
            let export =
                crate::store::tab_export(&store, &tab, &rec.agent_url, &rec.agent_name, json)
                    .map_err(|e| format!("task {}: {e}", one_line(&rec.task_id)))?;
            match export {
                crate::store::TabExport::Json(v) => outln!("{}", safe_json(&v, true)),
                crate::store::TabExport::Markdown(text) => out!("{text}"),
            }
        }
        Command::Audit { last } => {
            let mut buf = Vec::new();
            match last {
                Some(n) => {
                    for e in store.audit_entries(n).map_err(|e| e.to_string())? {
                        outln!("{}", safe_json(&e, false));
                    }
                }
                None => {
                    store
                        .export_audit_jsonl(&mut buf)
                        .map_err(|e| e.to_string())?;
                    // The JSON lines are re-checked for terminal safety line by line.
                    for line in String::from_utf8_lossy(&buf).lines() {
                        match serde_json::from_str::<serde_json::Value>(line) {
                            Ok(v) => outln!("{}", safe_json(&v, false)),
                            Err(_) => outln!("{}", one_line(line)),
                        }
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The stored task a user named: its full id, or the short id the console shows (the id's last characters;
/// `#N` picks the N-th agent when two agents' tasks share it, agents in the order of their URLs).
pub(super) fn find_task(
    tasks: &[crate::store::TaskRecord],
    wanted: &str,
) -> Result<crate::store::TaskRecord, String> {
    let not_found = || {
        format!(
            "task {:?} is not in the local store (see `a2a-console history`)",
            one_line(wanted)
        )
    };
    if let Some(t) = tasks.iter().find(|t| t.task_id == wanted) {
        return Ok(t.clone());
    }
    let (short, rank) = match wanted.rsplit_once('#') {
        Some((s, n)) => (s, Some(n.parse::<usize>().map_err(|_| not_found())?)),
        None => (wanted, None),
    };
    if short.chars().count() < 4 {
        return Err(format!(
            "{:?} is too short to name a task: give at least 4 characters of its short id",
            one_line(wanted)
        ));
    }
    let short = short.to_ascii_lowercase();
    let mut matches: Vec<&crate::store::TaskRecord> = tasks
        .iter()
        .filter(|t| {
            crate::task::short_id::tail(&t.task_id, short.chars().count()).to_ascii_lowercase()
                == short
        })
        .collect();
    // One row per (agent URL, task id): the store's key.
    matches.sort_by(|a, b| a.agent_url.cmp(&b.agent_url));
    match (matches.as_slice(), rank) {
        ([], _) => Err(not_found()),
        ([one], None | Some(1)) => Ok((*one).clone()),
        (many, Some(n)) => many
            .get(n.checked_sub(1).unwrap_or(usize::MAX))
            .map(|t| (*t).clone())
            .ok_or_else(not_found),
        (many, None) => Err(format!(
            "{:?} names {} tasks: give the full id, or a longer short id ({})",
            one_line(wanted),
            many.len(),
            many.iter()
                .map(|t| one_line(&t.task_id))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
