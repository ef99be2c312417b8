//! Every scrollable pane answers the same scroll keys (j/k, arrows, PgUp/PgDn, Ctrl-B/F, Space, Ctrl-D/U,
//! g/G, Home/End) and the mouse wheel, and stops at its last page.

use super::*;
use crate::testing::keys::measured_press as press;
use crate::testing::{app, chunk, parts_app, status};
use a2a::TaskState;
use crossterm::event::{KeyCode, KeyModifiers, MouseEvent, MouseEventKind};

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

fn wheel(app: &mut App, down: bool) {
    crate::testing::keys::measure(app);
    let kind = if down {
        MouseEventKind::ScrollDown
    } else {
        MouseEventKind::ScrollUp
    };
    let m = MouseEvent {
        kind,
        column: app.size.0 - 10,
        row: 4,
        modifiers: NONE,
    };
    update(app, Msg::Input(Event::Mouse(m)));
}

/// Every scroll key on one pane, `pos` reading its offset or cursor.
fn every_scroll_key(app: &mut App, what: &str, pos: impl Fn(&App) -> usize) {
    press(app, KeyCode::End, NONE);
    let last = pos(app);
    assert!(
        last > 1 && last != usize::MAX,
        "{what}: the pane must be open and longer than a screen ({last})"
    );
    for (k, m) in [
        (KeyCode::PageDown, NONE),
        (KeyCode::Char(' '), NONE),
        (KeyCode::Char('d'), CTRL),
        (KeyCode::Char('j'), NONE),
        (KeyCode::Char('G'), NONE),
    ] {
        press(app, k, m);
        assert_eq!(
            pos(app),
            last,
            "{what}: {k:?} at the end stays on the last page"
        );
    }
    for k in [KeyCode::Home, KeyCode::Char('g')] {
        press(app, KeyCode::End, NONE);
        press(app, k, NONE);
        assert_eq!(pos(app), 0, "{what}: {k:?}");
    }
    let from_top = |app: &mut App, k, m| {
        press(app, KeyCode::Home, NONE);
        press(app, k, m);
        pos(app)
    };
    let page = from_top(app, KeyCode::PageDown, NONE);
    assert!(page > 1, "{what}: PgDn moves a page ({page})");
    assert_eq!(
        from_top(app, KeyCode::Char('f'), CTRL),
        page,
        "{what}: Ctrl-F"
    );
    assert_eq!(
        from_top(app, KeyCode::Char(' '), NONE),
        page,
        "{what}: Space"
    );
    let half = from_top(app, KeyCode::Char('d'), CTRL);
    assert!(
        half >= 1 && half < page,
        "{what}: Ctrl-D half a page ({half} of {page})"
    );
    assert_eq!(from_top(app, KeyCode::Char('j'), NONE), 1, "{what}: j");
    assert_eq!(from_top(app, KeyCode::Down, NONE), 1, "{what}: Down");
    press(app, KeyCode::Home, NONE);
    wheel(app, true);
    assert_eq!(pos(app), 3.min(last), "{what}: the wheel");
    let from_end = |app: &mut App, k, m| {
        press(app, KeyCode::End, NONE);
        press(app, k, m);
        pos(app)
    };
    assert_eq!(
        from_end(app, KeyCode::PageUp, NONE),
        last - page,
        "{what}: PgUp"
    );
    assert_eq!(
        from_end(app, KeyCode::Char('b'), CTRL),
        last - page,
        "{what}: Ctrl-B"
    );
    assert_eq!(
        from_end(app, KeyCode::Char('u'), CTRL),
        last - half,
        "{what}: Ctrl-U"
    );
    assert_eq!(
        from_end(app, KeyCode::Char('k'), NONE),
        last - 1,
        "{what}: k"
    );
    assert_eq!(from_end(app, KeyCode::Up, NONE), last - 1, "{what}: Up");
    press(app, KeyCode::End, NONE);
    wheel(app, false);
    assert_eq!(pos(app), last - 3, "{what}: the wheel up");
}

#[test]
fn the_card_page_and_its_raw_json() {
    let mut app = parts_app();
    app.size = (100, 16);
    app.focus = Focus::Main;
    every_scroll_key(&mut app, "card", |a| a.card_scroll);
    // The last page is the end of the card, not blank rows past it.
    crate::testing::keys::measure(&mut app);
    let e = app.measured.card.unwrap_or_default();
    assert_eq!(app.card_scroll, e.content - e.height - 3);
    app.raw_card = true;
    every_scroll_key(&mut app, "raw card", |a| a.card_scroll);
}

#[test]
fn the_skills_list_and_the_board_move_their_cursor() {
    let mut app = app();
    app.size = (100, 16);
    for _ in 0..30 {
        crate::app::update::open_tab(&mut app, None);
    }
    app.focus = Focus::Main;
    app.view = View::Board;
    every_scroll_key(&mut app, "board", |a| a.board.selected);
    let mut app = parts_app();
    let info = app.agents.first_mut().and_then(|a| match &mut a.state {
        crate::app::agent::Reachability::Online(i) => Some(i),
        _ => None,
    });
    if let Some(i) = info {
        let first = i.skills[0].clone();
        for n in 0..40 {
            let mut s = first.clone();
            s.examples = vec![format!("example {n}")];
            i.skills.push(s);
        }
    }
    app.size = (100, 16);
    app.view = View::Skills;
    app.focus = Focus::Main;
    every_scroll_key(&mut app, "skills", |a| a.selected_skill);
}

#[test]
fn the_help_and_the_audit_log() {
    let mut app = app();
    app.size = (80, 24);
    press(&mut app, KeyCode::Char('?'), NONE);
    every_scroll_key(&mut app, "help", |a| match a.overlay {
        Some(Overlay::Help { scroll }) => scroll,
        _ => usize::MAX,
    });
    let e = crate::app::help::extent(&app);
    assert!(matches!(app.overlay, Some(Overlay::Help { scroll }) if scroll == e.last_page() - 3));
    let mut app = crate::testing::app();
    app.size = (80, 24);
    let lines: Vec<crate::app::msg::AuditRow> = (0..100)
        .map(|i| crate::app::msg::AuditRow {
            line: format!("line {i}"),
            detail: vec![format!("{{\"line\": {i}}}")],
        })
        .collect();
    update(&mut app, Msg::AuditLoaded(Ok(lines)));
    let rows = crate::app::scroll::viewer_rows(app.size);
    assert!(
        matches!(app.overlay, Some(Overlay::Audit { scroll, .. }) if scroll == 100 - rows),
        "the audit log opens on its last page"
    );
    every_scroll_key(&mut app, "audit", |a| match a.overlay {
        Some(Overlay::Audit { scroll, .. }) => scroll,
        _ => usize::MAX,
    });
}

#[test]
fn the_approval_message_and_the_save_picker() {
    let mut app = app();
    app.size = (100, 30);
    let id = crate::app::update::open_tab(&mut app, None).unwrap_or_default();
    let long: String = (0..40).map(|i| format!("line {i}\n")).collect();
    if let Some(t) = app.tab_mut(id) {
        t.feed(&status("t1", "ctx", TaskState::AuthRequired, Some(&long)));
    }
    app.focus = Focus::Main;
    app.overlay = Some(Overlay::Approval { tab: id, scroll: 0 });
    app.pass_key_guard();
    every_scroll_key(&mut app, "approval", |a| match a.overlay {
        Some(Overlay::Approval { scroll, .. }) => usize::from(scroll),
        _ => usize::MAX,
    });
    if let Some(t) = app.tab_mut(id) {
        for n in 0..40 {
            t.feed(&chunk("t1", &format!("a{n}"), "text", false, true));
        }
    }
    app.overlay = None;
    press(&mut app, KeyCode::Char('S'), NONE);
    assert!(matches!(app.overlay, Some(Overlay::SavePicker { .. })));
    every_scroll_key(&mut app, "save picker", |a| match a.overlay {
        Some(Overlay::SavePicker { selected, .. }) => selected,
        _ => usize::MAX,
    });
}

#[test]
fn the_palette_moves_with_the_named_scroll_keys_and_types_the_rest() {
    let mut app = app();
    press(&mut app, KeyCode::Char('p'), CTRL);
    press(&mut app, KeyCode::End, NONE);
    let n = crate::config::keymap::palette_matches("").len();
    assert!(matches!(app.overlay, Some(Overlay::Palette { selected, .. }) if selected == n - 1));
    press(&mut app, KeyCode::Char('g'), NONE);
    assert!(
        matches!(&app.overlay, Some(Overlay::Palette { query, selected: 0 }) if query == "g"),
        "g is text in the palette"
    );
}
