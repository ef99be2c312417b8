//! `test`, `runs` and `compare` against servers no one here wrote: the official Python SDK 1.3.0 (v1.0, and its
//! v0.3 interfaces with `--with-v03`), the Python SDK 0.3 and the JS SDK 1.3.0 servers (driven by our peer
//! scripts), and our demo agent with the annotated example suite. A suite that must pass passes on every one,
//! over each binding asked for; a suite that must fail fails with each broken expectation named and what the
//! agent did; the JUnit file is read back with an XML parser; `--repeat` gives pass rates; `compare` says what
//! changed between two runs and between two stored tasks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn suite(name: &str) -> String {
    common::repo()
        .join("tests/fixtures/suites")
        .join(name)
        .display()
        .to_string()
}

/// A store of the test's own, never the user's.
struct Db(tempfile::TempDir);

impl Db {
    fn new() -> Self {
        Db(tempfile::tempdir().unwrap())
    }
    fn path(&self) -> PathBuf {
        self.0.path().join("store.db")
    }
    fn file(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn cli(&self, args: &[&str]) -> common::Run {
        self.cli_env(args, &[])
    }
    fn cli_env(&self, args: &[&str], env: &[(&str, &str)]) -> common::Run {
        let db = self.path();
        let mut all = vec![("A2A_CONSOLE_DB", db.to_str().unwrap())];
        all.extend_from_slice(env);
        let run = common::cli_env(args, &all);
        common::assert_terminal_safe(&run.stdout);
        run
    }
    /// `a2a-console test SUITE --agent URL` on this store, with an empty config, its output piped.
    fn spawn_test(&self, suite: &Path, agent: &str) -> std::process::Child {
        let empty = self.file("config.toml");
        std::fs::write(&empty, "").unwrap();
        std::process::Command::new(common::bin())
            .args(["test", suite.to_str().unwrap(), "--agent", agent])
            .env("A2A_CONSOLE_DB", self.path())
            .env("A2A_CONSOLE_CONFIG", &empty)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}

/// Ctrl-C for a child (SIGINT), then what it printed and how long it took to end after the signal.
fn interrupt(child: std::process::Child) -> (std::process::Output, std::time::Duration) {
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    (out, started.elapsed())
}

/// The JUnit file parsed: (test cases, failures) as counted from the elements, and the counts the root says.
fn junit(path: &Path) -> (usize, usize, String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("not XML ({e}): {text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let failures = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .count();
    (
        cases.len(),
        failures,
        root.attribute("tests").unwrap().to_string(),
        root.attribute("failures").unwrap().to_string(),
    )
}

/// Run the peers' suite on `url` (with extra flags) and check that every case passed.
fn passes_on(url: &str, extra: &[&str], binding: &str, protocol: &str) {
    let db = Db::new();
    let (xml, json) = (db.file("junit.xml"), db.file("run.json"));
    let peers = suite("peers.toml");
    let mut args = vec![
        "test",
        peers.as_str(),
        "--agent",
        url,
        "--junit",
        xml.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = db.cli(&args);
    assert_eq!(run.code, 0, "{}", run.all());
    for name in [
        "echo alpha",
        "echo beta",
        "stream chunks",
        "ask, answered",
        "fail on purpose",
        "code data",
    ] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with("PASS  ") && l.contains(name)),
            "{name}: {}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("6 passed · 0 failed"), "{}", run.stdout);
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for c in cases {
        assert_eq!(c["binding"], binding, "{c}");
        assert_eq!(c["protocol"], protocol, "{c}");
        assert_eq!(c["passed"], true, "{c}");
    }
    let ask = cases.iter().find(|c| c["name"] == "ask, answered").unwrap();
    let states: Vec<&str> = ask["seen"]["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        states.contains(&"input-required") && states.last() == Some(&"completed"),
        "{states:?}"
    );
    let (tests, failures, said_tests, said_failures) = junit(&xml);
    assert_eq!((tests, failures), (6, 0));
    assert_eq!((said_tests.as_str(), said_failures.as_str()), ("6", "0"));
}

#[test]
fn the_peers_suite_passes_on_the_python_sdk_over_each_binding_and_version() {
    let py = common::py10_peer_with(&["--with-v03"]);
    passes_on(&py.url, &[], "JSONRPC", "1.0");
    passes_on(&py.url, &["--binding", "HTTP+JSON"], "HTTP+JSON", "1.0");
    passes_on(&py.url, &["--protocol", "0.3"], "JSONRPC", "0.3");
}

#[test]
fn the_peers_suite_passes_on_the_js_sdk_and_the_python_0_3_sdk() {
    let js = common::js_peer();
    passes_on(&js.url, &[], "JSONRPC", "1.0");
    passes_on(&js.url, &["--binding", "HTTP+JSON"], "HTTP+JSON", "1.0");
    let py03 = common::py03_peer();
    passes_on(&py03.url, &[], "JSONRPC", "0.3");
}

/// The Python SDK 0.3 replies with a bare -32603 to an answer that arrives while the paused execution is still
/// open, though it takes the answer (CI met it once on `ask`; the peer's `linger` makes it certain). The case
/// reads the task, follows it to its end and passes, and the run says so under the PASS line and in the report.
#[test]
fn an_answer_the_python_0_3_sdk_takes_with_an_internal_error_is_followed_and_the_run_says_so() {
    let py03 = common::py03_peer();
    let db = Db::new();
    let file = db.file("linger.toml");
    std::fs::write(
        &file,
        r#"
[[cases]]
name = "answered while the agent lingers"
message = "linger"
[[cases.reply]]
when = "input-required"
message = "Ada"
[cases.expect]
state = "completed"
text = "Nice to meet you, Ada"
max_seconds = 20
"#,
    )
    .unwrap();
    let (json, xml) = (db.file("run.json"), db.file("junit.xml"));
    let run = db.cli(&[
        "test",
        file.to_str().unwrap(),
        "--agent",
        &py03.url,
        "--json",
        json.to_str().unwrap(),
        "--junit",
        xml.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    let pass = run
        .stdout
        .lines()
        .position(|l| l.starts_with("PASS  answered while the agent lingers"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let note = run.stdout.lines().nth(pass + 1).unwrap_or_default();
    assert!(
        note.contains(&format!("note: agent {}", py03.url))
            && note.contains("internal error, yet the task went on to completed: followed it"),
        "{}",
        run.stdout
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let case = &report["cases"][0];
    assert_eq!(
        case["seen"]["recovered"].as_array().map(Vec::len),
        Some(1),
        "{case}"
    );
    assert_eq!(case["seen"]["final_state"], "completed", "{case}");
    // A CI that reads only the JUnit file sees it too.
    let junit = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let out = doc
        .descendants()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(
        out.contains("note: the answer got an internal error"),
        "{junit}"
    );
}

#[test]
fn the_annotated_example_passes_on_the_demo_agent_with_its_token_from_the_environment() {
    let demo = common::demo_agent();
    let db = Db::new();
    let example = common::repo().join("suite.example.toml");
    let args = [
        "test",
        example.to_str().unwrap(),
        "--agent",
        demo.url.as_str(),
    ];
    let report = db.file("run.json");
    let mut with_json = args.to_vec();
    with_json.extend(["--json", report.to_str().unwrap()]);
    let run = db.cli_env(&with_json, &[("DEMO_TOKEN", "demo-secret")]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("6 passed · 0 failed"), "{}", run.stdout);
    assert!(
        !run.all().contains("demo-secret"),
        "the token is never printed"
    );
    // The demo names its token in its question, before any case has sent it: the kept report has it
    // redacted all the same.
    let kept = std::fs::read_to_string(&report).unwrap();
    assert!(kept.contains("‹redacted›"), "{kept}");
    assert!(!kept.contains("demo-secret"), "{kept}");
    // Without the variable, the auth case fails and says which variable is missing; nothing else fails.
    let run = db.cli(&args);
    assert_eq!(run.code, 9, "{}", run.all());
    assert!(run.stdout.contains("5 passed · 1 failed"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("the environment variable DEMO_TOKEN is not set"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_failing_suite_names_each_broken_expectation_and_what_the_agent_did() {
    for (peer, language) in [
        (common::py10_peer(), "python"),
        (common::js_peer(), "javascript"),
    ] {
        let db = Db::new();
        let xml = db.file("junit.xml");
        let failing = suite("failing.toml");
        let run = db.cli(&[
            "test",
            failing.as_str(),
            "--agent",
            peer.url.as_str(),
            "--junit",
            xml.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 9, "{}", run.all());
        let out = &run.stdout;
        assert!(out.contains("1 passed · 4 failed"), "{out}");
        for line in [
            "FAIL state: expected completed · agent",
            "gave: failed",
            "FAIL text: expected /delta/ · agent",
            "gave: echo: echo gamma",
            "FAIL json $.tests.passed: expected = 4 · agent",
            "gave: 3",
            "gave: input-required",
        ] {
            assert!(out.contains(line), "{language}: {line:?} missing:\n{out}");
        }
        assert!(out.lines().any(|l| l.starts_with("PASS  passes")), "{out}");
        let (tests, failures, _, said_failures) = junit(&xml);
        assert_eq!((tests, failures), (5, 4), "{language}");
        assert_eq!(said_failures, "4");
    }
}

#[test]
fn repeat_reports_a_pass_rate_per_case_and_one_junit_case_per_attempt() {
    let py = common::py10_peer();
    let db = Db::new();
    let (xml, json) = (db.file("junit.xml"), db.file("run.json"));
    let failing = suite("failing.toml");
    let run = db.cli(&[
        "test",
        failing.as_str(),
        "--agent",
        py.url.as_str(),
        "--repeat",
        "3",
        "--filter",
        "pass",
        "--junit",
        xml.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    // `--filter pass` keeps the one case whose name holds "pass".
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("pass rate per case over 3 runs:"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("100%  3/3  passes"), "{}", run.stdout);
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["pass_rates"]["passes"]["runs"], 3);
    assert_eq!(report["pass_rates"]["passes"]["passed"], 3);
    let (tests, failures, _, _) = junit(&xml);
    assert_eq!((tests, failures), (3, 0));
    let text = std::fs::read_to_string(&xml).unwrap();
    assert!(text.contains("passes (run 3/3)"), "{text}");
    // A failing case repeated: 0 of 3.
    let run = db.cli(&[
        "test",
        failing.as_str(),
        "--agent",
        py.url.as_str(),
        "--repeat",
        "3",
        "--filter",
        "WRONG final",
    ]);
    assert_eq!(run.code, 9, "{}", run.all());
    assert!(
        run.stdout.contains("0%  0/3  wrong final state"),
        "{}",
        run.stdout
    );
    let nothing = db.cli(&[
        "test",
        failing.as_str(),
        "--agent",
        py.url.as_str(),
        "--filter",
        "no such case",
    ]);
    assert_eq!(nothing.code, 2, "{}", nothing.all());
}

#[test]
fn compare_says_what_changed_between_two_runs_and_runs_lists_them() {
    let py = common::py10_peer();
    let js = common::js_peer();
    let db = Db::new();
    let peers = suite("peers.toml");
    for url in [&py.url, &js.url] {
        let run = db.cli(&["test", peers.as_str(), "--agent", url.as_str()]);
        assert_eq!(run.code, 0, "{}", run.all());
    }
    let listed = db.cli(&["runs", "--json"]);
    let runs: Value = serde_json::from_str(&listed.stdout).unwrap();
    let ids: Vec<i64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids[0] > ids[1], "newest first: {ids:?}");
    let (a, b) = (ids[1].to_string(), ids[0].to_string());
    let compared = db.cli(&["compare", &a, &b]);
    assert_eq!(compared.code, 0, "{}", compared.all());
    let out = &compared.stdout;
    // The two SDKs' `code` artifacts differ in one JSON value; the echo texts are the same.
    assert!(out.contains("code data: PASS"), "{out}");
    assert!(
        out.contains("$.language: \"python\" → \"javascript\""),
        "{out}"
    );
    assert!(out.contains("echo alpha: PASS"), "{out}");
    assert!(
        out.contains("s to the end (") || out.contains("to the end: about the same ("),
        "timing deltas are said: {out}"
    );
    // No arguments: the last two runs, the same comparison.
    let again = db.cli(&["compare"]);
    assert_eq!(again.stdout, compared.stdout);
    let as_json = db.cli(&["compare", &a, &b, "--json"]);
    let first: Value = serde_json::from_str(as_json.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "heading");
    let bad = db.cli(&["compare", &a]);
    assert_eq!(bad.code, 2, "{}", bad.all());
}

#[test]
fn compare_two_stored_tasks_shows_states_text_and_data_changes() {
    use a2a::{Part, TaskState};
    use a2a_console::store::{Store, TaskRecord, kind};
    let db = Db::new();
    let store = Store::open(&db.path()).unwrap();
    let task = |id: &str, state: TaskState, text: &str, lang: &str| {
        task_of(
            id,
            state,
            vec![artifact_of(
                "answer",
                vec![
                    Part::text(text),
                    Part::data(serde_json::json!({"language": lang})),
                ],
            )],
        )
    };
    for (id, state, text, lang) in [
        ("task-aaaa-1111", TaskState::Completed, "one\ntwo\n", "rust"),
        ("task-bbbb-2222", TaskState::Failed, "one\nthree\n", "go"),
    ] {
        store
            .upsert_task(&TaskRecord {
                agent_url: "http://127.0.0.1:1".into(),
                agent_name: "local".into(),
                task_id: id.into(),
                context_id: Some("ctx-1".into()),
                state: "completed".into(),
                tab_id: 1,
                snapshot_json: None,
                updated_at: chrono::Utc::now(),
            })
            .unwrap();
        let json = a2a_console::task::event_serde::to_json(&task(id, state, text, lang)).unwrap();
        store
            .append_event("http://127.0.0.1:1", id, kind::TASK, &json)
            .unwrap();
    }
    drop(store);
    let run = db.cli(&["compare", "task-aaaa-1111", "bbbb-2222"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let out = &run.stdout;
    assert!(out.contains("states: completed; now failed"), "{out}");
    assert!(out.contains("- two") && out.contains("+ three"), "{out}");
    assert!(out.contains("$.language: \"rust\" → \"go\""), "{out}");
    let mixed = db.cli(&["compare", "task-aaaa-1111", "99"]);
    assert_eq!(mixed.code, 2, "{}", mixed.all());
}

fn task_of(id: &str, state: a2a::TaskState, artifacts: Vec<a2a::Artifact>) -> a2a::Task {
    a2a::Task {
        id: id.into(),
        context_id: "ctx-1".into(),
        status: a2a::TaskStatus {
            state,
            message: None,
            timestamp: None,
        },
        artifacts: Some(artifacts),
        history: None,
        metadata: None,
    }
}

fn artifact_of(name: &str, parts: Vec<a2a::Part>) -> a2a::Artifact {
    a2a::Artifact {
        artifact_id: format!("{name}-id"),
        name: Some(name.into()),
        description: None,
        parts,
        metadata: None,
        extensions: None,
    }
}

#[test]
fn ctrl_c_stops_a_run_and_keeps_what_ended() {
    let demo = common::demo_agent();
    let db = Db::new();
    let suite = db.file("slow.toml");
    std::fs::write(
        &suite,
        "[[cases]]\nname = \"quick\"\nmessage = \"echo quick\"\n\n\
         [[cases]]\nname = \"slow\"\nmessage = \"slow 30\"\n[cases.expect]\nmax_seconds = 60\n",
    )
    .unwrap();
    let mut child = db.spawn_test(&suite, &demo.url);
    // The quick case ends at once (its progress line says so); the slow one runs for 30 s unless stopped.
    let (ended, quick_ended) = std::sync::mpsc::channel();
    let lines = std::io::BufReader::new(child.stderr.take().unwrap());
    let stderr_text = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufRead::lines(lines).map_while(Result::ok) {
            if line.contains("PASS quick") {
                let _ = ended.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    quick_ended
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the quick case's progress line");
    let (out, took) = interrupt(child);
    assert!(
        took < std::time::Duration::from_secs(20),
        "the run stopped at once, not when the slow case ended"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = stderr_text.join().unwrap();
    assert_eq!(out.status.code(), Some(9), "{stdout}\n{stderr}");
    assert!(stdout.contains("PASS  quick"), "{stdout}");
    assert!(stdout.contains("FAIL  slow"), "{stdout}");
    assert!(
        stdout.contains("error: not run to its end: the run was stopped"),
        "{stdout}"
    );
    assert!(
        stdout.contains("of 2 case runs in") && stdout.contains(", stopped"),
        "{stdout}"
    );
    assert!(stderr.contains("stopping"), "{stderr}");
    // Kept like any run.
    let runs = db.cli(&["runs", "--json"]);
    let listed: Value = serde_json::from_str(&runs.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{}", runs.stdout);
}

/// Ctrl-C while the agent is still being reached (it accepted the connection and says nothing, so the card
/// fetch would wait out its whole timeout) stops the run at once: every case "not run", exit 9.
#[test]
fn ctrl_c_stops_a_run_while_its_agent_is_still_being_reached() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let db = Db::new();
    let suite = db.file("one.toml");
    std::fs::write(
        &suite,
        "[[cases]]\nname = \"echo\"\nmessage = \"echo hi\"\n",
    )
    .unwrap();
    let child = db.spawn_test(&suite, &url);
    // The console connected for the card: it is waiting on the agent now.
    let (_held, _) = silent.accept().unwrap();
    let (out, took) = interrupt(child);
    assert!(
        took < std::time::Duration::from_secs(10),
        "the run stopped at once, not when the card fetch timed out"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(9), "{stdout}");
    assert!(
        stdout.contains("not run to its end: the run was stopped") && stdout.contains(", stopped"),
        "{stdout}"
    );
}
