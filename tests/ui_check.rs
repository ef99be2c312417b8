//! The check report page and the agent list's verdict, rendered into a `TestBackend` and compared with
//! `insta` snapshots; colours asserted where they carry the verdict. A finding's reason quotes an agent:
//! an escape sequence in it never reaches the screen raw.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_console::app::msg::Msg;
use a2a_console::app::state::{App, Overlay};
use a2a_console::app::update::update;
use a2a_console::check::exchange::Exchange;
use a2a_console::check::report::{Finding, Outcome, Report, SCHEMA, Summary};
use a2a_console::testing::keys::{char_key, key};
use a2a_console::testing::render_text as render;
use crossterm::event::KeyCode;

fn report() -> Report {
    let ev = Exchange {
        method: "POST".into(),
        url: "http://127.0.0.1:9/rpc".into(),
        request_headers: vec![("Content-Type".into(), "application/json".into())],
        request_body: Some(r#"{"jsonrpc": "2.0", "id": 2}"#.into()),
        status: Some(200),
        response_headers: vec![("content-type".into(), "application/json".into())],
        response_body: Some(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602}}"#.into()),
        ..Exchange::default()
    };
    let on = Some("JSONRPC 1.0 http://127.0.0.1:9/rpc");
    let findings = vec![
        Finding::new(
            "discovery.well-known",
            None,
            Outcome::pass("served at /.well-known/agent-card.json"),
        ),
        Finding::new(
            "discovery.etag",
            None,
            Outcome::fail("no ETag header").with(&ev),
        ),
        Finding::new(
            "jsonrpc.invalid-request",
            on,
            Outcome::fail("expected -32600, got -32602 \u{1b}[31mred").with(&ev),
        ),
        Finding::new(
            "jsonrpc.parse-error",
            on,
            Outcome::pass("parse error (-32700)"),
        ),
        Finding::new(
            "task.send-shape",
            None,
            Outcome::skip("active probes run with --send TEXT"),
        ),
    ];
    Report {
        schema: SCHEMA,
        agent: "parts".into(),
        url: "http://127.0.0.1:9".into(),
        card_name: Some("Parts".into()),
        started_at: "2026-12-03T10:00:00Z".into(),
        elapsed_ms: 120,
        active: false,
        requests_sent: 28,
        request_budget: 31,
        summary: Summary::of(&findings),
        findings,
    }
}

fn checked_app() -> App {
    let mut app = a2a_console::testing::app();
    let agent = app.agents[0].id;
    let url = app.agents[0].target.url.clone();
    char_key(&mut app, 'C');
    update(
        &mut app,
        Msg::CheckProgress {
            agent,
            sent: 12,
            budget: 31,
        },
    );
    assert!(render(&app).contains("checking… 12/31"), "{}", render(&app));
    let r = report();
    let mut earlier = r.clone();
    earlier.findings[2] = Finding::new(
        "jsonrpc.invalid-request",
        earlier.findings[2].on.as_deref(),
        Outcome::pass("ok"),
    );
    let page = a2a_console::tui::check_page::page(
        &r,
        Some(&serde_json::to_string(&earlier).unwrap()),
        "parts",
    );
    update(
        &mut app,
        Msg::CheckDone {
            agent,
            result: Ok((Box::new(page), url, serde_json::to_string(&r).unwrap())),
        },
    );
    app
}

#[test]
fn the_report_page_and_a_findings_evidence() {
    let mut app = checked_app();
    let text = render(&app);
    assert!(matches!(app.overlay, Some(Overlay::Check { .. })));
    assert!(
        text.contains("since the last check: 1 new failure (jsonrpc.invalid-request"),
        "{text}"
    );
    assert!(text.contains("▍FAIL  jsonrpc.invalid-request"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    insta::assert_snapshot!("check_page", text);
    // Select the FAIL line (rows: the discovery heading, two findings, the JSON-RPC heading, …).
    for _ in 0..5 {
        char_key(&mut app, '.');
    }
    key(&mut app, KeyCode::Enter);
    let ev = render(&app);
    assert!(
        ev.contains("requirement: an unknown method")
            || ev.contains("jsonrpc.invalid-request · MUST"),
        "{ev}"
    );
    assert!(ev.contains("→ POST http://127.0.0.1:9/rpc"), "{ev}");
    insta::assert_snapshot!("check_evidence", ev);
    key(&mut app, KeyCode::Esc);
    // The agent keeps its verdict; K reopens the page.
    let list = render(&app);
    assert!(
        list.contains("check 2 MUST ✗") || list.contains("check 1 MUST ✗"),
        "{list}"
    );
    char_key(&mut app, 'K');
    assert!(matches!(app.overlay, Some(Overlay::Check { .. })));
}

#[test]
fn verdict_colours_in_the_list() {
    let app = {
        let mut app = checked_app();
        key(&mut app, KeyCode::Esc);
        app
    };
    let (w, h) = app.size;
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| a2a_console::ui::draw(f, &app)).unwrap();
    let backend = term.backend().buffer().clone();
    let row = (0..backend.area.height)
        .find(|y| {
            (0..backend.area.width)
                .map(|x| backend[(x, *y)].symbol().to_string())
                .collect::<String>()
                .contains("MUST ✗")
        })
        .expect("the verdict's row");
    let x = (0..backend.area.width)
        .find(|x| backend[(*x, row)].symbol() == "✗")
        .unwrap();
    assert_eq!(backend[(x, row)].fg, app.theme.error.fg.unwrap());
}
