//! Interoperability with servers no one here wrote: the official Python SDK (a2a-sdk 1.3.0 for protocol 1.0,
//! 0.3.26 for 0.3) and the official JS SDK (@a2a-js/sdk 1.3.0), driven by our peer scripts in `tests/peers/`
//! and installed by `tests/peers/install.sh`. Every test runs the real binary against a real server on
//! 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Run, Server, cli, cli_env, js_peer, py03_peer, py10_peer, task_id};

/// Which peer, and what it supports.
struct Peer {
    server: Server,
    name: &'static str,
    /// Binding flags to pass (empty = the card's preference).
    binding: &'static [&'static str],
    list_tasks: bool,
}

impl Peer {
    fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = self.binding.to_vec();
        all.extend_from_slice(args);
        cli(&all)
    }
}

fn expect(r: &Run, code: i32, needle: &str, what: &str) {
    assert_eq!(r.code, code, "{what}: exit code\n{}", r.all());
    assert!(
        r.all().contains(needle),
        "{what}: expected {needle:?} in\n{}",
        r.all()
    );
    assert!(!r.all().contains("panicked"), "{what}: panic\n{}", r.all());
    common::assert_terminal_safe(&r.all());
}

/// The scenarios every peer must pass.
fn exercise(p: &Peer) {
    let url = p.server.url.as_str();
    let who = |s: &str| format!("{} {s}", p.name);

    let r = p.run(&["card", url]);
    expect(&r, 0, p.name, &who("card"));
    assert!(r.stdout.contains("skills (6)"), "{}", r.stdout);
    let r = p.run(&["card", url, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", who("card --json"), r.stdout));
    assert!(
        v["supportedInterfaces"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );

    let r = p.run(&["send", url, "echo hello peers"]);
    expect(&r, 0, "echo: echo hello peers", &who("send echo"));
    assert!(r.stdout.contains("state:   completed"), "{}", r.stdout);

    let r = p.run(&["send", url, "stream", "--stream"]);
    expect(&r, 0, "final state: completed", &who("send --stream"));
    let joined: String = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("│ "))
        .collect();
    assert!(
        joined.contains("chunk 0 chunk 1"),
        "{}: chunks not reassembled in order:\n{}",
        who("stream"),
        r.stdout
    );
    assert!(joined.contains("chunk 9"), "{}", r.stdout);

    let r = p.run(&["send", url, "stream", "--stream", "--json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let events: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        events
            .iter()
            .filter(|e| e.get("artifactUpdate").is_some())
            .count()
            >= 10,
        "{}",
        r.stdout
    );

    // ask → answer on the same task
    let r = p.run(&["send", url, "ask"]);
    expect(&r, 6, "What is your name?", &who("ask"));
    let id = task_id(&r.stdout);
    let r = p.run(&["send", url, "Ada", "--task", &id]);
    expect(&r, 0, "Nice to meet you, Ada", &who("answer"));
    assert_eq!(
        task_id(&r.stdout),
        id,
        "the answer must continue the same task"
    );

    // the same over a stream
    let r = p.run(&["send", url, "ask", "--stream"]);
    expect(&r, 6, "waiting for your answer", &who("ask --stream"));
    let id = task_id(&r.stdout);
    let r = p.run(&["send", url, "Grace", "--task", &id, "--stream"]);
    expect(&r, 0, "Nice to meet you, Grace", &who("answer --stream"));

    let r = p.run(&["send", url, "fail"]);
    expect(&r, 5, "Scenario failure requested", &who("fail"));

    let r = p.run(&["send", url, "message"]);
    expect(&r, 0, "direct reply", &who("message"));

    // slow: start without waiting, follow it, cancel it; the follower sees the cancel.
    let r = p.run(&["send", url, "slow", "--no-wait"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let slow = task_id(&r.stdout);
    let follower = {
        let (url, slow) = (url.to_string(), slow.clone());
        let binding: Vec<String> = p.binding.iter().map(|s| s.to_string()).collect();
        std::thread::spawn(move || {
            let mut args: Vec<String> = binding;
            args.extend(["subscribe".into(), url, slow]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            cli(&args)
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let r = p.run(&["get", url, &slow]);
    expect(&r, 0, "working", &who("get slow"));
    let r = p.run(&["cancel", url, &slow]);
    expect(&r, 0, "canceled", &who("cancel"));
    let r = follower.join().unwrap();
    expect(&r, 5, "canceled", &who("subscribe until canceled"));

    if p.list_tasks {
        let r = p.run(&["list", url]);
        expect(&r, 0, &slow, &who("list"));
        let r = p.run(&["list", url, "--state", "canceled", "--json"]);
        assert_eq!(r.code, 0, "{}", r.all());
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            v["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["status"]["state"] == "TASK_STATE_CANCELED"),
            "{}",
            r.stdout
        );
    } else {
        let r = p.run(&["list", url]);
        expect(
            &r,
            4,
            "ListTasks does not exist in protocol 0.3",
            &who("list on 0.3"),
        );
    }

    // extended card: refused without the token, served with it
    let r = p.run(&["card", url, "--extended"]);
    assert!(
        r.code == 3 || r.code == 4,
        "{}: extended card without token should fail\n{}",
        who("extended"),
        r.all()
    );
    let mut args: Vec<&str> = p.binding.to_vec();
    args.extend_from_slice(&["--bearer-env", "PEER_TOKEN", "card", url, "--extended"]);
    let r = cli_env(&args, &[("PEER_TOKEN", "peer-secret")]);
    expect(&r, 0, "secret-skill", &who("extended with token"));
    assert!(
        !r.all().contains("peer-secret"),
        "the token must never be printed"
    );
}

#[test]
fn python_sdk_1_3_over_json_rpc() {
    exercise(&Peer {
        server: py10_peer(),
        name: "Python v1.0 peer",
        binding: &["--binding", "JSONRPC"],
        list_tasks: true,
    });
}

#[test]
fn python_sdk_1_3_over_http_json() {
    exercise(&Peer {
        server: py10_peer(),
        name: "Python v1.0 peer",
        binding: &["--binding", "HTTP+JSON"],
        list_tasks: true,
    });
}

#[test]
fn python_sdk_0_3_over_json_rpc_v03() {
    let p = Peer {
        server: py03_peer(),
        name: "Python v0.3 peer",
        binding: &[],
        list_tasks: false,
    };
    let r = p.run(&["card", &p.server.url]);
    assert!(r.stdout.contains("v0.3 shape"), "{}", r.stdout);
    assert!(r.stdout.contains("▶ JSONRPC   0.3"), "{}", r.stdout);
    exercise(&p);
}

#[test]
fn python_sdk_0_3_over_http_json_v03() {
    // The Python SDK 0.3.x REST server: `/v1/message:send`, `/v1/tasks/{id}`, ProtoJSON of the 0.3 proto.
    let p = Peer {
        server: py03_peer(),
        name: "Python v0.3 peer",
        binding: &["--binding", "HTTP+JSON"],
        list_tasks: false,
    };
    let r = p.run(&["card", &p.server.url]);
    assert!(r.stdout.contains("▶ HTTP+JSON 0.3"), "{}", r.stdout);
    exercise(&p);
}

#[test]
fn js_sdk_1_3_over_json_rpc() {
    exercise(&Peer {
        server: js_peer(),
        name: "JS v1.0 peer",
        binding: &["--binding", "JSONRPC"],
        list_tasks: true,
    });
}

#[test]
fn js_sdk_1_3_over_http_json() {
    exercise(&Peer {
        server: js_peer(),
        name: "JS v1.0 peer",
        binding: &["--binding", "HTTP+JSON"],
        list_tasks: true,
    });
}
