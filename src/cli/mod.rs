//! The scriptable command line: one subcommand per A2A operation, readable text or `--json`, and exit codes a
//! script can branch on (see `exit.rs`).

pub mod args;
mod card_diff;
mod check;
pub mod completions;
pub mod exit;
mod follow;
pub mod login;
pub mod output;
pub mod print;
mod remote;
pub mod report;
mod stored;
pub mod stream_print;
mod suite;
mod trust;

use std::time::Duration;

use crate::config::protocol::{Binding, ProtocolChoice};
use crate::config::{self, AuthConfig, AuthKind, Config, DEFAULT_TIMEOUT_SECS};
use crate::remote::connect::agent::AgentTarget;
use crate::remote::error::RemoteError;
use exit::Exit;

pub use args::{Cli, Command, GlobalOpts, PushAction};

/// Print a one-line error to stderr (a JSON object under `--json`) and return its exit code.
pub fn fail(e: &RemoteError) -> Exit {
    report::fail(e)
}

/// Work out which agent the user means, with the command line's overrides applied.
pub fn resolve_target(
    config: &Config,
    global: &GlobalOpts,
    agent: &str,
) -> Result<AgentTarget, RemoteError> {
    let default_timeout = Duration::from_secs(
        global
            .timeout
            .or(config.timeout_secs)
            .unwrap_or(DEFAULT_TIMEOUT_SECS),
    );
    let mut target = match config.agent(agent) {
        Some(a) => AgentTarget::from_config(a, default_timeout)?,
        None if agent.contains("://") => AgentTarget::from_url(agent, default_timeout),
        None => {
            let known: Vec<String> = config
                .agents
                .iter()
                .filter_map(|a| a.name.clone())
                .collect();
            return Err(RemoteError::usage(format!(
                "{agent:?} is neither a configured agent ({}) nor a URL",
                if known.is_empty() {
                    "none configured".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    };
    target.apply_overrides(&global.overrides());
    // The user's yes to a card interface on another origin (checked like allowed_origins: an unusable one is
    // an error naming it when the scope is built).
    target
        .allowed_origins
        .extend(global.allow_origins.iter().cloned());
    if let Some(b) = &global.binding {
        target.prefs.binding = Some(Binding::parse(b).map_err(RemoteError::usage)?);
    }
    if let Some(p) = &global.protocol {
        target.prefs.protocol = Some(ProtocolChoice::parse(p).map_err(RemoteError::usage)?);
    }
    for h in &global.headers {
        let (k, v) = h
            .split_once(':')
            .ok_or_else(|| RemoteError::usage(format!("--header {h:?} is not 'Name: value'")))?;
        let k = k.trim();
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
            return Err(RemoteError::usage(format!(
                "--header: {k:?} is not a valid header name"
            )));
        }
        target.headers.insert(k.to_string(), v.trim().to_string());
    }
    if let Some(var) = &global.bearer_env {
        target.auth = Some(AuthConfig {
            token_env: Some(var.clone()),
            ..AuthConfig::new(AuthKind::Bearer)
        });
    }
    Ok(target)
}

/// Run a subcommand to completion.
pub async fn run(global: GlobalOpts, command: Command) -> Exit {
    login::record_sign_ins_in(crate::store::db_path());
    report::set_json(json_of(&command));
    if let Command::Completions { shell } = command {
        return match completions::print(shell) {
            Ok(()) => Exit::Done,
            Err(e) => report::failure(
                report::Kind::Usage,
                &format!("cannot write the completion script: {e}"),
                Exit::Usage,
            ),
        };
    }
    if let Command::DemoAgent { port } = command {
        return match crate::demo::run_foreground(port).await {
            Ok(()) => Exit::Done,
            Err(e) => report::failure(
                report::Kind::Transport,
                &format!("demo agent: {e:#}"),
                Exit::Transport,
            ),
        };
    }
    if let Command::Prune {
        keep_days,
        max_mb,
        audit_keep_days,
    } = command
    {
        let (config, _) = match config::load(global.config.as_deref()) {
            Ok(c) => c,
            Err(e) => return usage(&e),
        };
        let mut keep = crate::store::Retention::from(&config.store);
        keep.keep_days = keep_days.unwrap_or(keep.keep_days);
        keep.max_mb = max_mb.unwrap_or(keep.max_mb);
        keep.audit_keep_days = audit_keep_days.unwrap_or(keep.audit_keep_days);
        return match stored::prune(keep) {
            Ok(()) => Exit::Done,
            Err(e) => usage(&e),
        };
    }
    match &command {
        Command::Runs { json, last } => return suite::runs(*json, *last),
        Command::Compare { a, b, json } => {
            return suite::compare(a.as_deref(), b.as_deref(), *json);
        }
        _ => {}
    }
    if matches!(
        command,
        Command::History { .. } | Command::Export { .. } | Command::Audit { .. }
    ) {
        return match stored::stored(command) {
            Ok(()) => Exit::Done,
            Err(e) => usage(&e),
        };
    }
    let (config, path) = match config::load(global.config.as_deref()) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    if let Command::Check {
        agent,
        json,
        junit,
        verbose,
        send,
        examples,
    } = &command
    {
        let opts = crate::check::Options {
            send: send.clone(),
            examples: *examples,
        };
        return match resolve_target(&config, &global, agent) {
            Ok(target) => check::run(&target, &opts, *json, junit.as_deref(), *verbose).await,
            Err(e) => fail(&e),
        };
    }
    if let Command::Test {
        suites,
        agent,
        filter,
        repeat,
        jobs,
        junit,
        json,
        verbose,
    } = &command
    {
        let args = suite::TestArgs {
            suites,
            agent: agent.as_deref(),
            filter: filter.clone(),
            repeat: *repeat,
            jobs: *jobs,
            junit: junit.as_deref(),
            json: json.as_deref(),
            verbose: *verbose,
        };
        return suite::test(&config, &global, &args).await;
    }
    if let Command::Trust { agent, yes } = &command {
        let path = path.or_else(config::default_path);
        return match trust::run(&config, &global, agent, *yes, path.as_deref()).await {
            Ok(code) => code,
            Err(e) => fail(&e),
        };
    }
    match remote::run_remote(&config, &global, command).await {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

/// A config or store error: exit 2.
fn usage(e: &dyn std::fmt::Display) -> Exit {
    report::failure(report::Kind::Usage, &e.to_string(), Exit::Usage)
}

/// Whether the command prints JSON (`--json`), so that its errors are JSON too.
pub fn json_of(command: &Command) -> bool {
    match command {
        Command::Card { json, .. }
        | Command::Send { json, .. }
        | Command::Get { json, .. }
        | Command::List { json, .. }
        | Command::Cancel { json, .. }
        | Command::Subscribe { json, .. }
        | Command::History { json }
        | Command::Runs { json, .. }
        | Command::Compare { json, .. }
        | Command::Check { json, .. } => *json,
        Command::Push { action } => match action {
            PushAction::Create { json, .. }
            | PushAction::Get { json, .. }
            | PushAction::List { json, .. }
            | PushAction::Delete { json, .. } => *json,
        },
        Command::Trust { .. }
        | Command::Test { .. }
        | Command::Login { .. }
        | Command::Logout { .. }
        | Command::DemoAgent { .. }
        | Command::Completions { .. }
        | Command::Prune { .. }
        | Command::Export { .. }
        | Command::Audit { .. } => false,
    }
}

fn agent_of(command: &Command) -> &str {
    match command {
        Command::Card { agent, .. }
        | Command::Check { agent, .. }
        | Command::Trust { agent, .. }
        | Command::Send { agent, .. }
        | Command::Get { agent, .. }
        | Command::List { agent, .. }
        | Command::Cancel { agent, .. }
        | Command::Subscribe { agent, .. }
        | Command::Login { agent, .. }
        | Command::Logout { agent } => agent,
        Command::Push { action } => match action {
            PushAction::Create { agent, .. }
            | PushAction::Get { agent, .. }
            | PushAction::List { agent, .. }
            | PushAction::Delete { agent, .. } => agent,
        },
        Command::DemoAgent { .. }
        | Command::Completions { .. }
        | Command::Prune { .. }
        | Command::History { .. }
        | Command::Export { .. }
        | Command::Test { .. }
        | Command::Runs { .. }
        | Command::Compare { .. }
        | Command::Audit { .. } => "",
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[test]
    fn command_line_overrides_and_bad_values() {
        let cfg = Config::default();
        let g = GlobalOpts {
            headers: vec!["X-Tenant: blue".into()],
            binding: Some("HTTP+JSON".into()),
            ..Default::default()
        };
        let t = resolve_target(&cfg, &g, "http://127.0.0.1:1").unwrap();
        assert_eq!(t.headers["X-Tenant"], "blue");
        assert_eq!(t.prefs.binding, Some(Binding::HttpJson));
        let bad = GlobalOpts {
            headers: vec!["nocolon".into()],
            ..Default::default()
        };
        assert!(resolve_target(&cfg, &bad, "http://127.0.0.1:1").is_err());
        assert!(
            resolve_target(&cfg, &GlobalOpts::default(), "not-configured")
                .unwrap_err()
                .message
                .contains("neither")
        );
    }

    #[test]
    fn cli_parses_the_documented_shapes() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let c = Cli::try_parse_from([
            "a2a-console",
            "push",
            "create",
            "http://127.0.0.1:9/hook",
            "demo",
            "t1",
        ])
        .unwrap();
        assert!(matches!(
            c.command,
            Some(Command::Push {
                action: PushAction::Create { .. }
            })
        ));
        let c = Cli::try_parse_from([
            "a2a-console",
            "--timeout",
            "5",
            "send",
            "demo",
            "hi",
            "--stream",
            "--json",
        ])
        .unwrap();
        assert_eq!(c.global.timeout, Some(5));
        assert!(
            Cli::try_parse_from(["a2a-console", "send", "demo", "hi", "--stream", "--no-wait"])
                .is_err()
        );
    }
}
