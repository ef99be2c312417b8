//! The CLI against the embedded demo agent, started through the real binary (`a2a-console demo-agent`): every
//! binding the demo serves (JSON-RPC, HTTP+JSON, gRPC) and the scenarios a user reaches from its skills.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_terminal_safe, cli, cli_env, demo_agent, task_id};

#[test]
fn card_shows_identity_interfaces_skills_and_no_warnings() {
    let demo = demo_agent();
    let r = cli(&["card", &demo.url]);
    assert_eq!(r.code, 0, "{}", r.all());
    for needle in [
        "a2a-console demo agent",
        "JSONRPC",
        "HTTP+JSON",
        "GRPC",
        "warnings:    none",
        "example: hostile",
    ] {
        assert!(
            r.stdout.contains(needle),
            "{needle:?} missing:\n{}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains("remote text from"),
        "card text must carry provenance:\n{}",
        r.stdout
    );
}

/// The origin of the card's GRPC interface (`127.0.0.1:PORT` on the demo's card).
fn grpc_origin(base: &str) -> String {
    let r = cli(&["card", base, "--json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let card: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let url = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["protocolBinding"] == "GRPC")
        .and_then(|i| i["url"].as_str())
        .unwrap()
        .to_string();
    if url.contains("://") {
        url
    } else {
        format!("http://{url}")
    }
}

#[test]
fn every_binding_runs_the_same_conversation() {
    let demo = demo_agent();
    // The demo's gRPC port is another origin than its card's: the user allows it (issue 9, item 4).
    let grpc = grpc_origin(&demo.url);
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        let run = |args: &[&str]| {
            let mut all = vec!["--binding", binding, "--allow-origin", &grpc];
            all.extend_from_slice(args);
            cli(&all)
        };
        let r = run(&["send", &demo.url, "echo over the wire"]);
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("echo: over the wire"),
            "{binding}: {}",
            r.stdout
        );

        let r = run(&["send", &demo.url, "stream 12", "--stream"]);
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("final state: completed"),
            "{binding}: {}",
            r.stdout
        );

        let r = run(&["send", &demo.url, "ask", "--stream"]);
        assert_eq!(r.code, 6, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("What is your name?"),
            "{binding}: {}",
            r.stdout
        );
        let id = task_id(&r.stdout);
        let r = run(&["send", &demo.url, "Lin", "--task", &id]);
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("Nice to meet you, Lin"),
            "{binding}: {}",
            r.stdout
        );
    }
}

#[test]
fn terminal_states_map_to_exit_codes() {
    let demo = demo_agent();
    let r = cli(&["send", &demo.url, "fail"]);
    assert_eq!(r.code, 5, "{}", r.all());
    assert!(r.stdout.contains("state:   failed"), "{}", r.stdout);
    let r = cli(&["send", &demo.url, "reject"]);
    assert_eq!(r.code, 5, "{}", r.all());
    assert!(r.stdout.contains("state:   rejected"), "{}", r.stdout);
    let r = cli(&["send", &demo.url, "message"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("direct message reply (no task)"),
        "{}",
        r.stdout
    );
}

#[test]
fn auth_required_is_waiting_until_the_token_is_sent() {
    let demo = demo_agent();
    let r = cli(&["send", &demo.url, "auth"]);
    assert_eq!(r.code, 6, "{}", r.all());
    assert!(r.stdout.contains("auth-required"), "{}", r.stdout);
    let id = task_id(&r.stdout);
    let r = cli(&["send", &demo.url, "not the token", "--task", &id]);
    assert_eq!(r.code, 6, "a wrong answer keeps it waiting: {}", r.all());
    let r = cli(&["send", &demo.url, "here it is: demo-secret", "--task", &id]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("state:   completed"), "{}", r.stdout);
}

#[test]
fn slow_task_is_listed_then_canceled() {
    let demo = demo_agent();
    let r = cli(&["send", &demo.url, "slow 60", "--no-wait"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let id = task_id(&r.stdout);
    let r = cli(&["list", &demo.url, "--state", "working"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains(&id), "{}", r.stdout);
    let r = cli(&["cancel", &demo.url, &id]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("state:   canceled"), "{}", r.stdout);
    let r = cli(&["get", &demo.url, &id, "--json"]);
    assert_eq!(r.code, 5, "{}", r.all());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["status"]["state"], "TASK_STATE_CANCELED");
    let r = cli(&["cancel", &demo.url, &id]);
    assert!(r.code == 4 || r.code == 0, "canceling twice: {}", r.all());
}

#[test]
fn hostile_text_arrives_sanitised_and_flagged() {
    let demo = demo_agent();
    for args in [
        vec!["send", demo.url.as_str(), "hostile"],
        vec!["send", demo.url.as_str(), "hostile", "--stream"],
    ] {
        let r = cli(&args);
        assert_eq!(r.code, 0, "{}", r.all());
        assert_terminal_safe(&r.all());
        assert!(
            r.stdout.contains("␛"),
            "removed escapes must leave a visible marker:\n{}",
            r.stdout
        );
        assert!(r.stdout.contains("⚠ flagged"), "{}", r.stdout);
    }
    let r = cli(&["send", &demo.url, "hostile", "--json"]);
    assert_terminal_safe(&r.stdout);
    let _: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
}

#[test]
fn extended_card_needs_the_bearer_token_and_never_prints_it() {
    let demo = demo_agent();
    let r = cli(&["card", &demo.url, "--extended"]);
    // JSON-RPC: HTTP 401 with an error object (-31401, as a2a-go does; A2A defines no auth code) → the agent's error.
    assert_eq!(r.code, 4, "{}", r.all());
    assert!(
        r.stderr.contains("needs the operator token"),
        "{}",
        r.stderr
    );
    let r = cli_env(
        &[
            "--bearer-env",
            "DEMO_TOKEN",
            "card",
            &demo.url,
            "--extended",
        ],
        &[("DEMO_TOKEN", "demo-secret")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("operator-tools"), "{}", r.stdout);
    assert!(!r.all().contains("demo-secret"), "{}", r.all());
}

#[test]
fn push_configs_round_trip() {
    let demo = demo_agent();
    let r = cli(&["send", &demo.url, "slow 30", "--no-wait"]);
    let id = task_id(&r.stdout);
    let r = cli(&[
        "push",
        "create",
        "http://127.0.0.1:9/hook",
        &demo.url,
        &id,
        "--id",
        "p1",
    ]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("config p1"), "{}", r.stdout);
    assert!(r.stdout.contains("token (set, not shown)"), "{}", r.stdout);
    let r = cli(&["push", "list", &demo.url, &id]);
    assert!(r.stdout.contains("http://127.0.0.1:9/hook"), "{}", r.all());
    let r = cli(&["push", "delete", "p1", &demo.url, &id]);
    assert_eq!(r.code, 0, "{}", r.all());
    let r = cli(&["push", "list", &demo.url, &id]);
    assert!(
        r.stdout.contains("no push notification configs"),
        "{}",
        r.all()
    );
    cli(&["cancel", &demo.url, &id]);
}

#[test]
fn file_attachment_and_data_artifacts() {
    let demo = demo_agent();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("notes.txt");
    std::fs::write(&f, "attached").unwrap();
    let r = cli(&[
        "send",
        &demo.url,
        "echo with a file",
        "--file",
        f.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.all());
    let r = cli(&["send", &demo.url, "file"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("report.csv"), "{}", r.stdout);
    assert!(
        r.stdout.contains("not fetched"),
        "URL parts are never fetched automatically:\n{}",
        r.stdout
    );
    let r = cli(&["send", &demo.url, "code"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("```rust"), "{}", r.stdout);
}

/// Issue [9] item 7: a C1 control (U+009D OSC, U+009B CSI, U+0090 DCS) in what the agent says is shown as a
/// marker and hides nothing after it, in the CLI's text output, plain and streamed (the demo echoes it back).
#[test]
fn c1_controls_are_marked_and_hide_nothing_after_them() {
    let demo = demo_agent();
    let text = "echo osc\u{9d}0;after-osc csi\u{9b}2Jafter-csi dcs\u{90}qafter-dcs end";
    for extra in [&[][..], &["--stream"]] {
        let mut args = vec!["send", demo.url.as_str(), text];
        args.extend_from_slice(extra);
        let r = cli(&args);
        assert_eq!(r.code, 0, "{}", r.all());
        assert_terminal_safe(&r.all());
        for shown in [
            "osc⟨U+009D⟩0;after-osc",
            "csi⟨U+009B⟩2Jafter-csi",
            "dcs⟨U+0090⟩qafter-dcs end",
        ] {
            assert!(
                r.stdout.contains(shown),
                "{extra:?}: {shown:?} missing:\n{}",
                r.stdout
            );
        }
    }
}

/// The one line of stderr a `--json` command wrote, as JSON.
fn json_stderr(r: &common::Run) -> serde_json::Value {
    assert_eq!(
        r.stderr.lines().count(),
        1,
        "one line on stderr:\n{}",
        r.stderr
    );
    serde_json::from_str(&r.stderr)
        .unwrap_or_else(|e| panic!("stderr is not one JSON object ({e}):\n{}", r.stderr))
}

/// With `--json`, an error is one JSON object on one line of stderr with the same keys whatever failed: the
/// agent's error, a usage error (ours and clap's), a transport error. It was plain text.
#[test]
fn json_errors_are_one_json_object_on_stderr() {
    let demo = demo_agent();
    let url = demo.url.as_str();
    let cases: [(&[&str], i64, &str, &str); 6] = [
        (
            &["get", url, "no-such-task", "--json"],
            4,
            "agent",
            "(task not found)",
        ),
        (
            &["card", url, "--extended", "--json"],
            4,
            "agent",
            "needs the operator token",
        ),
        (
            &["send", "no-such-agent", "hi", "--json"],
            2,
            "usage",
            "neither a configured agent",
        ),
        (
            &["list", url, "--state", "pondering", "--json"],
            2,
            "usage",
            "pondering",
        ),
        (&["send", url, "--json"], 2, "usage", "<TEXT>"),
        (
            &["get", "http://127.0.0.1:1", "t", "--json"],
            3,
            "transport",
            "127.0.0.1:1",
        ),
    ];
    for (args, exit, kind, needle) in cases {
        let r = cli(args);
        assert_eq!(i64::from(r.code), exit, "{args:?}: {}", r.all());
        let v = json_stderr(&r);
        assert_eq!(v["exit"], exit, "{args:?}: {v}");
        assert_eq!(v["kind"], kind, "{args:?}: {v}");
        let msg = v["error"].as_str().unwrap_or_default();
        assert!(msg.contains(needle), "{args:?}: {needle:?} in {v}");
        assert!(!msg.starts_with("a2a-console:"), "{v}");
        if kind == "agent" && needle.contains("not found") {
            assert_eq!(v["code"], -32001, "the agent's code: {v}");
        }
    }
}

/// Exit 6 says how to continue, on stderr (stdout stays what the command prints), with the real agent and
/// task id and the global options the command was given; doing what it says continues the task.
#[test]
fn waiting_for_input_says_how_to_continue() {
    let demo = demo_agent();
    let url = demo.url.as_str();
    for extra in [&[][..], &["--stream"], &["--binding", "HTTP+JSON"]] {
        let mut args = vec!["send", url, "ask"];
        args.extend_from_slice(extra);
        let r = cli(&args);
        assert_eq!(r.code, 6, "{extra:?}: {}", r.all());
        let id = task_id(&r.stdout);
        let globals = if extra.len() == 2 {
            "--binding HTTP+JSON "
        } else {
            ""
        };
        let hint = format!("continue with: a2a-console {globals}send {url} --task {id} '…'");
        assert!(
            r.stderr.contains(&hint),
            "{extra:?}: {hint:?} in\n{}",
            r.stderr
        );
        assert!(!r.stdout.contains("continue with"), "{}", r.stdout);
        // The hint, with an answer for the ellipsis.
        let mut again: Vec<&str> = hint
            .trim_start_matches("continue with: a2a-console ")
            .split(' ')
            .collect();
        again.pop();
        again.push("Ada");
        let r = cli(&again);
        assert_eq!(r.code, 0, "{again:?}: {}", r.all());
        assert!(r.stdout.contains("Nice to meet you, Ada"), "{}", r.stdout);
    }
    // A task found waiting by `get`, and auth-required.
    let r = cli(&["send", url, "auth"]);
    assert_eq!(r.code, 6, "{}", r.all());
    let id = task_id(&r.stdout);
    assert!(r.stderr.contains("authorization"), "{}", r.stderr);
    let r = cli(&["get", url, &id]);
    assert_eq!(r.code, 6, "{}", r.all());
    assert!(
        r.stderr.contains(&format!(
            "continue with: a2a-console send {url} --task {id} '…'"
        )),
        "{}",
        r.stderr
    );
    // --json: stdout is the task alone, the hint is one JSON object on stderr.
    for stream in [false, true] {
        let mut args = vec!["send", url, "ask", "--json"];
        if stream {
            args.push("--stream");
        }
        let r = cli(&args);
        assert_eq!(r.code, 6, "{}", r.all());
        for line in r.stdout.lines().filter(|_| stream) {
            let _: serde_json::Value = serde_json::from_str(line).unwrap();
        }
        if !stream {
            let _: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        }
        let v = json_stderr(&r);
        assert_eq!(v["kind"], "waiting", "{v}");
        assert_eq!(v["exit"], 6, "{v}");
        assert_eq!(v["state"], "input-required", "{v}");
        let id = v["task"].as_str().unwrap();
        assert!(r.stdout.contains(id), "{}", r.stdout);
        assert_eq!(
            v["continue"],
            format!("a2a-console send {url} --task {id} '…'"),
            "{v}"
        );
    }
}
