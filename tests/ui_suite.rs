//! A suite run in the console and two tasks compared, rendered into a `TestBackend` and held against `insta`
//! snapshots: the agent list's progress and verdict line (its colour carries the verdict), the results page
//! with what changed since the last run, a case's detail, and the compare page. What an agent said reaches
//! these pages as data: an escape sequence in it never reaches the screen raw.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::compare::ComparePage;
use a2a_console::app::msg::{Effect, Msg};
use a2a_console::app::state::{App, Overlay};
use a2a_console::app::update::update;
use a2a_console::suite::expect::Checked;
use a2a_console::suite::observe::{Observed, SeenArtifact};
use a2a_console::suite::report::RunReport;
use a2a_console::suite::run::CaseResult;
use a2a_console::suite::runner::Options;
use a2a_console::testing::keys::{char_key, key};
use a2a_console::testing::render_text as render;
use a2a_console::tui::suite_page::{Kept, page};
use crossterm::event::KeyCode;

fn artifact(name: &str, text: &str) -> SeenArtifact {
    SeenArtifact {
        id: format!("{name}-id"),
        name: Some(name.into()),
        media_types: vec!["text/plain".into()],
        text: text.into(),
        text_bytes: text.len(),
        // Not a real digest: two texts compare by it, and these differ.
        text_sha256: format!("digest of {text}"),
        ..SeenArtifact::default()
    }
}

fn case(name: &str, reply: &str, ms: u64) -> CaseResult {
    let passed = reply == "Nice to meet you, Ada";
    CaseResult {
        name: name.into(),
        spec_name: name.into(),
        row: None,
        attempt: 1,
        agent: "http://127.0.0.1:9".into(),
        agent_url: "http://127.0.0.1:9".into(),
        binding: "JSONRPC".into(),
        protocol: "1.0".into(),
        passed,
        error: None,
        checks: vec![
            Checked {
                what: "state".into(),
                passed: true,
                expected: "completed".into(),
                seen: "completed".into(),
            },
            Checked {
                what: "text".into(),
                passed,
                expected: "/Nice to meet you, Ada/".into(),
                seen: reply.into(),
            },
        ],
        seen: Observed {
            task_id: Some("01a242ab-6ca3-7037-a743-39014db66284".into()),
            states: vec![
                "submitted".into(),
                "working".into(),
                "input-required".into(),
                "completed".into(),
            ],
            final_state: Some("completed".into()),
            events: 4,
            first_event_ms: Some(10),
            total_ms: ms,
            artifacts: vec![artifact("greeting", reply)],
            messages: vec!["What is your name?".into(), reply.into()],
            ..Observed::default()
        },
    }
}

fn run(reply: &str, ms: u64) -> RunReport {
    let opts = Options {
        suites: vec!["/home/me/suites/peers.toml".into()],
        ..Options::default()
    };
    let mut r = RunReport::new(
        "2026-12-04T10:00:00Z".parse().unwrap(),
        Duration::from_millis(1240),
        &opts,
        vec![
            case("echo alpha", "Nice to meet you, Ada", 20),
            case("ask for a name", reply, ms),
        ],
    );
    r.cases[0].checks.truncate(1);
    r.cases[0].passed = true;
    r.passed = 1;
    r.failed = 1;
    r
}

/// `U`, the file offered, Enter; progress; the run ends with one case failing.
fn ran() -> App {
    let mut app = a2a_console::testing::app();
    app.size = (120, 40);
    let agent = app.agents[0].id;
    char_key(&mut app, 'U');
    assert!(
        render(&app).contains("Run a suite on this agent"),
        "{}",
        render(&app)
    );
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::RunSuite { path, .. }] if path.to_str() == Some("suite.toml")),
        "{fx:?}"
    );
    update(
        &mut app,
        Msg::SuiteProgress {
            agent,
            done: 1,
            total: 2,
            failed: 1,
        },
    );
    let list = render(&app);
    assert!(list.contains("suite 1/2 · 1 failed"), "{list}");
    let before = run("Nice to meet you, Ada", 20);
    let now = run("Nice to meet you, \u{1b}[31mGrace\u{1b}]0;owned\u{7}", 1600);
    let kept = Kept {
        id: 2,
        previous: Some((1, a2a_console::suite::compare::runs(&before, &now))),
    };
    let shown = page(&now, "demo", Some(&kept));
    update(
        &mut app,
        Msg::SuiteDone {
            agent,
            result: Ok(Box::new(shown)),
        },
    );
    app
}

#[test]
fn the_results_page_a_cases_detail_and_the_verdict_in_the_list() {
    let mut app = ran();
    assert!(matches!(app.overlay, Some(Overlay::Check { .. })));
    let text = render(&app);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(
        text.contains("Suite peers.toml on demo · 1 PASS · 1 FAIL"),
        "{text}"
    );
    assert!(
        text.contains("kept as run 2 · since run 1: 1 case changed"),
        "{text}"
    );
    assert!(text.contains("▍FAIL  #2   ask for a name"), "{text}");
    assert!(text.contains("Enter details"), "{text}");
    insta::assert_snapshot!("suite_page", text);
    // The Δ row, then the failing case: its detail.
    char_key(&mut app, '.');
    key(&mut app, KeyCode::Enter);
    let diff = render(&app);
    assert!(diff.contains("ask for a name: PASS → FAIL"), "{diff}");
    assert!(diff.contains("+1.6 s to the end"), "{diff}");
    // A diff's own lines carry one mark, not the change's mark too.
    assert!(diff.contains("- Nice to meet you, Ada"), "{diff}");
    assert!(!diff.contains("- - ") && !diff.contains("~ - "), "{diff}");
    // Esc closes the detail and the page (as the check report's evidence does); u reopens the page.
    key(&mut app, KeyCode::Esc);
    char_key(&mut app, 'u');
    for _ in 0..3 {
        char_key(&mut app, '.');
    }
    key(&mut app, KeyCode::Enter);
    let detail = render(&app);
    assert!(detail.contains("Details · #2"), "{detail}");
    assert!(
        detail.contains(
            "FAIL text: expected /Nice to meet you, Ada/ · agent demo gave: Nice to meet you,"
        ),
        "{detail}"
    );
    assert!(
        !detail.contains('\u{1b}') && !detail.contains('\u{7}'),
        "{detail}"
    );
    insta::assert_snapshot!("suite_case", detail);
    key(&mut app, KeyCode::Esc);
    // The verdict stays in the list, in the error colour; u reopens the page.
    let (w, h) = app.size;
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| a2a_console::ui::draw(f, &app)).unwrap();
    let buf = term.backend().buffer().clone();
    let row = (0..buf.area.height)
        .find(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, *y)].symbol().to_string())
                .collect::<String>()
                .contains("suite 1/2 ✗ peers.toml")
        })
        .expect("the suite's line in the agent list");
    let x = (0..buf.area.width)
        .find(|x| buf[(*x, row)].symbol() == "✗")
        .unwrap();
    assert_eq!(buf[(x, row)].fg, app.theme.error.fg.unwrap());
    char_key(&mut app, 'u');
    assert!(matches!(app.overlay, Some(Overlay::Check { .. })));
    // "since run 1" is news only when a case changed: nothing changed is said in the quiet colour.
    let same = run("Nice to meet you, Ada", 20);
    let quiet = page(
        &same,
        "demo",
        Some(&Kept {
            id: 2,
            previous: Some((1, a2a_console::suite::compare::runs(&same, &same))),
        }),
    );
    assert!(
        quiet
            .changes
            .as_deref()
            .unwrap_or("")
            .contains("nothing changed")
    );
    assert!(!quiet.changes_alarm);
    let news = page(&same, "demo", Some(&kept_against(&same)));
    assert!(news.changes_alarm);
}

/// Kept as run 2, compared with a run 1 where the second case answered Grace.
fn kept_against(now: &RunReport) -> Kept {
    let before = run("Nice to meet you, Grace", 20);
    Kept {
        id: 2,
        previous: Some((1, a2a_console::suite::compare::runs(&before, now))),
    }
}

#[test]
fn u_while_it_runs_asks_to_stop_it_and_a_failed_start_says_why() {
    let mut app = a2a_console::testing::app();
    let agent = app.agents[0].id;
    char_key(&mut app, 'U');
    key(&mut app, KeyCode::Enter);
    // U again while it runs: not a second run, a question whether to stop this one.
    char_key(&mut app, 'U');
    assert!(
        matches!(app.overlay, Some(Overlay::ConfirmStopSuite { .. })),
        "{}",
        render(&app)
    );
    assert!(
        render(&app).contains("Stop the suite running on Demo (suite running… suite.toml)?"),
        "{}",
        render(&app)
    );
    assert!(char_key(&mut app, 'n').is_empty());
    assert!(app.overlay.is_none());
    char_key(&mut app, 'U');
    let fx = char_key(&mut app, 'y');
    assert!(
        matches!(fx.as_slice(), [Effect::StopSuite { .. }]),
        "{fx:?}"
    );
    update(
        &mut app,
        Msg::SuiteDone {
            agent,
            result: Err("cannot read suite.toml: No such file or directory (os error 2)".into()),
        },
    );
    let text = render(&app);
    assert!(
        text.contains("the suite could not run on Demo: cannot read suite.toml"),
        "{text}"
    );
    assert!(!text.contains("suite 0/"), "{text}");
    assert!(!text.contains("suite running"), "{text}");
    char_key(&mut app, 'u');
    assert!(
        render(&app).contains("no suite was run on this agent in this session"),
        "{}",
        render(&app)
    );
}

#[test]
fn the_compare_page() {
    let mut app = a2a_console::testing::app();
    app.size = (120, 30);
    let a = case("a", "Nice to meet you, Ada", 20).seen;
    let mut b = case("b", "Nice to meet you, Grace\u{1b}[2J", 1500).seen;
    b.states.pop();
    b.states.push("failed".into());
    b.final_state = Some("failed".into());
    let c = a2a_console::suite::compare::tasks(
        "task 39014db6 of demo",
        &a,
        "task 7c1d2e3f of demo",
        &b,
    );
    app.overlay = Some(Overlay::Compare {
        page: Box::new(ComparePage {
            title: "compare: task 39014db6 of demo ⇄ task 7c1d2e3f of demo · changes below".into(),
            left: vec![
                "task 39014db6 of demo".into(),
                "states: submitted → working → input-required → completed".into(),
            ],
            right: vec![
                "task 7c1d2e3f of demo".into(),
                "states: submitted → working → input-required → failed".into(),
            ],
            lines: c.lines.into_iter().skip(1).collect(),
        }),
        scroll: 0,
    });
    let text = render(&app);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("▍task 39014db6 of demo"), "{text}");
    assert!(text.contains("- Nice to meet you, Ada"), "{text}");
    insta::assert_snapshot!("compare_page", text);
}

#[test]
fn tabs_with_no_task_are_not_compared() {
    let mut app = a2a_console::testing::app();
    for _ in 0..2 {
        char_key(&mut app, 'n');
        key(&mut app, KeyCode::Esc);
    }
    char_key(&mut app, 'b');
    char_key(&mut app, 'm');
    char_key(&mut app, 'j');
    char_key(&mut app, 'm');
    let fx = char_key(&mut app, '=');
    assert!(fx.is_empty(), "{fx:?}");
    assert!(app.overlay.is_none());
    let text = render(&app);
    assert!(text.contains("tab has no task yet"), "{text}");
}
