//! The subcommands that read the local store and never touch the network: history, export, audit.

use super::Command;
use super::output::safe_json;
use crate::remote::error::one_line;

/// The store commands: they read the local database and never touch the network.
pub(super) fn stored(command: Command) -> Result<(), String> {
    let path = crate::tui::persist::db_path().ok_or("no data directory for the local store")?;
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
                println!("{}", safe_json(&v, true));
            } else {
                println!("{:<38} {:<15} {:<20} AGENT", "TASK", "STATE", "UPDATED");
                for t in &tasks {
                    println!(
                        "{:<38} {:<15} {:<20} {}",
                        one_line(&t.task_id),
                        one_line(&t.state),
                        t.updated_at.format("%Y-%m-%d %H:%M:%S"),
                        one_line(&t.agent_name)
                    );
                }
                println!("{} task(s) in {}", tasks.len(), path.display());
            }
        }
        Command::Export { task_id, format } => {
            let rec = store
                .tasks()
                .map_err(|e| e.to_string())?
                .into_iter()
                .find(|t| t.task_id == task_id)
                .ok_or_else(|| {
                    format!(
                        "task {task_id:?} is not in the local store (see `a2a-console history`)"
                    )
                })?;
            let events = store
                .events(&rec.agent_url, &rec.task_id)
                .map_err(|e| e.to_string())?;
            match format.as_str() {
                "md" | "markdown" => {
                    print!("{}", crate::store::export_task_markdown(&rec, &events))
                }
                "json" => println!(
                    "{}",
                    safe_json(&crate::store::export_task_json(&rec, &events), true)
                ),
                other => return Err(format!("--format {other:?}: expected md or json")),
            }
        }
        Command::Audit { last } => {
            let mut buf = Vec::new();
            match last {
                Some(n) => {
                    for e in store.audit_entries(n).map_err(|e| e.to_string())? {
                        println!("{}", safe_json(&e, false));
                    }
                }
                None => {
                    store
                        .export_audit_jsonl(&mut buf)
                        .map_err(|e| e.to_string())?;
                    // The JSON lines are re-checked for terminal safety line by line.
                    for line in String::from_utf8_lossy(&buf).lines() {
                        match serde_json::from_str::<serde_json::Value>(line) {
                            Ok(v) => println!("{}", safe_json(&v, false)),
                            Err(_) => println!("{}", one_line(line)),
                        }
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}
