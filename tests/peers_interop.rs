//! Interoperability with servers no one here wrote: the official Python SDK (a2a-sdk 1.3.0 for protocol 1.0,
//! 0.3.26 for 0.3) and the official JS SDK (@a2a-js/sdk 1.3.0), driven by our peer scripts in `tests/peers/`
//! and installed by `tests/peers/install.sh`. Every test runs the real binary against a real server on
//! 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Run, Server, cli, cli_env, js_peer, py03_peer, py03_peer_with, py10_peer, task_id};

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
            2,
            "A2A 0.3, which has no ListTasks",
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

/// `subscribe` to a task the agent does not know is the agent's error, said once, exit 4: on 1.0 the call
/// itself fails; the 0.3 SDK opens the stream and sends the error as its one event (JSON-RPC), or breaks the
/// stream off (HTTP+JSON), and then GetTask says the task does not exist. It printed a "(continuing)" line and
/// a second one, and exited 3.
#[test]
fn subscribe_to_an_unknown_task_is_one_agent_error_on_0_3_as_on_1_0() {
    let py10 = py10_peer();
    let py03 = py03_peer();
    for (server, binding) in [(&py10, "JSONRPC"), (&py03, "JSONRPC"), (&py03, "HTTP+JSON")] {
        let what = format!("{binding} {}", server.url);
        let r = cli(&[
            "--binding",
            binding,
            "subscribe",
            &server.url,
            "no-such-task",
        ]);
        assert_eq!(r.code, 4, "{what}: exit code\n{}", r.all());
        assert_eq!(
            r.stderr.lines().count(),
            1,
            "{what}: one line\n{}",
            r.stderr
        );
        assert!(
            r.stderr.contains("(task not found)"),
            "{what}: the agent's error is named\n{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{what}: {}", r.stdout);
    }
}

/// `list` on a 0.3 agent: 0.3 has no tasks/list, so nothing is sent and the CLI says why, as a usage error
/// (exit 2), not as an error the agent returned.
#[test]
fn list_on_a_0_3_agent_says_the_protocol_has_no_list_tasks() {
    let py03 = py03_peer();
    for binding in ["JSONRPC", "HTTP+JSON"] {
        for json in [false, true] {
            let mut args = vec!["--binding", binding, "list", py03.url.as_str()];
            if json {
                args.push("--json");
            }
            let r = cli(&args);
            assert_eq!(r.code, 2, "{binding}: exit code\n{}", r.all());
            assert_eq!(r.stderr.lines().count(), 1, "{binding}\n{}", r.stderr);
            for needle in ["speaks A2A 0.3, which has no ListTasks", "nothing was sent"] {
                assert!(
                    r.stderr.contains(needle),
                    "{binding}: {needle:?}\n{}",
                    r.stderr
                );
            }
            assert!(!r.stderr.contains("agent returned error"), "{}", r.stderr);
            assert!(r.stdout.is_empty(), "{}", r.stdout);
            if json {
                let v: serde_json::Value = serde_json::from_str(&r.stderr).unwrap();
                assert_eq!(v["kind"], "usage", "{v}");
                assert_eq!(v["exit"], 2, "{v}");
            }
        }
    }
}

/// `card --extended` on a 0.3 agent that announces an extended card but has none configured: the 0.3 SDK
/// answers with its public card, which must not be shown under the heading "extended card".
#[test]
fn extended_card_that_is_the_public_card_is_labelled_as_the_public_card() {
    let bare = py03_peer_with(&["--no-extended-card"]);
    let full = py03_peer();
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let card = |url: &str| {
            cli_env(
                &[
                    "--binding",
                    binding,
                    "--bearer-env",
                    "PEER_TOKEN",
                    "card",
                    url,
                    "--extended",
                ],
                &[("PEER_TOKEN", "peer-secret")],
            )
        };
        let r = card(&bare.url);
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(r.stdout.starts_with("card of "), "{binding}: {}", r.stdout);
        assert!(
            !r.all().contains("extended card of"),
            "{binding}: {}",
            r.all()
        );
        assert!(
            r.stderr.contains("returned its public card"),
            "{binding}: says which card is shown and why\n{}",
            r.stderr
        );
        // A real extended card keeps its heading.
        let r = card(&full.url);
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(r.stdout.starts_with("extended card of "), "{}", r.stdout);
        assert!(r.stdout.contains("secret-skill"), "{}", r.stdout);
        assert!(!r.stderr.contains("public card"), "{}", r.stderr);
    }
}
