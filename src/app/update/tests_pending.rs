//! An agent's authorization request never takes the keyboard: it waits (announced) while the user types, opens
//! when they leave the text input or press `A`, ignores the keys typed as it opens, and decides only on chords.

use super::*;
use crate::app::ids::TabId;
use crate::app::msg::StreamItem;
use crate::app::state::PromptKind;
use crate::testing::keys::{key, keys, press};
use crate::testing::{app, status};
use a2a::TaskState;
use crossterm::event::{KeyCode, KeyModifiers};

/// The agent of `tab` asks for authorization on task `task`.
fn auth_required(app: &mut App, tab: TabId, task: &str) -> Vec<Effect> {
    let generation = app.tab(tab).map_or(0, |t| t.generation);
    update(
        app,
        Msg::Stream {
            tab,
            generation,
            source: crate::task::log::Source::Stream(generation),
            item: StreamItem::Event(Box::new(status(
                task,
                "ctx",
                TaskState::AuthRequired,
                Some("Approve with your token, press a to continue"),
            ))),
        },
    )
}

/// A tab whose first message went out, with the user typing again in its compose box.
fn typing_tab(app: &mut App) -> TabId {
    key(app, KeyCode::Char('n'));
    keys(app, "first");
    key(app, KeyCode::Enter);
    app.active_tab().map(|t| t.id).unwrap_or_default()
}

fn compose_text(app: &App) -> String {
    app.active_tab()
        .map(|t| t.compose.lines().join("\n"))
        .unwrap_or_default()
}

fn decided(fx: &[Effect]) -> bool {
    fx.iter().any(|e| {
        matches!(
            e,
            Effect::Approve { .. }
                | Effect::Cancel { .. }
                | Effect::Audit { .. }
                | Effect::DeviceFlow { .. }
                | Effect::CodeFlow { .. }
        )
    })
}

#[test]
fn a_request_that_arrives_while_typing_waits_and_the_typed_keys_stay_text() {
    let mut app = app();
    app.bell = true;
    let tab = typing_tab(&mut app);
    keys(&mut app, "please ");
    let fx = auth_required(&mut app, tab, "t1");
    assert!(app.overlay.is_none(), "no dialog over the compose box");
    assert_eq!(app.focus, Focus::Compose, "the keyboard stays in the box");
    assert!(fx.iter().any(|e| matches!(e, Effect::Bell)), "{fx:?}");
    // The rest of the sentence, with every letter the dialog used to take, goes on into the box.
    let fx = keys(&mut app, "do a password reset, yes ok");
    assert!(!decided(&fx), "{fx:?}");
    assert!(app.overlay.is_none());
    assert_eq!(compose_text(&app), "please do a password reset, yes ok");
    // Announced: the tab's title, the transcript, the status bar and the box's title.
    let t = app.active_tab().unwrap();
    assert!(t.attention && t.auth_unreviewed);
    let screen = crate::testing::render_text(&app);
    assert!(screen.contains("auth-required"), "{screen}");
    assert!(screen.contains("authorization waits: Esc"), "{screen}");
    assert!(
        screen.contains("the agent asks for authorization and waits"),
        "{screen}"
    );
    let bar = crate::app::layout::tab_items(&app);
    assert!(
        bar.iter()
            .any(|(_, s)| s.contains("auth-required") && s.contains('•')),
        "{bar:?}"
    );
}

#[test]
fn enter_sends_what_was_typed_as_the_users_message_never_as_a_token() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    auth_required(&mut app, tab, "t1");
    keys(&mut app, "password reset");
    let fx = key(&mut app, KeyCode::Enter);
    let [Effect::Send { message, .. }] = fx.as_slice() else {
        panic!("the box sends the user's message: {fx:?}");
    };
    assert_eq!(message.text, "password reset");
    assert_eq!(message.task_id.as_deref(), Some("t1"));
    assert!(app.overlay.is_none());
}

#[test]
fn leaving_the_box_opens_the_dialog_and_the_keys_typed_as_it_opens_are_ignored() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    auth_required(&mut app, tab, "t1");
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Some(Overlay::Approval { tab: t, .. }) if t == tab));
    // Not drawn yet, then drawn just now: every key is thrown away, chords too, and counted.
    let mut fx = keys(&mut app, "ad");
    app.frame_drawn(std::time::Instant::now());
    fx.extend(press(&mut app, KeyCode::Char('x'), KeyModifiers::CONTROL));
    fx.extend(press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL));
    fx.extend(key(&mut app, KeyCode::Enter));
    fx.extend(key(&mut app, KeyCode::Esc));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
    let footer = app.key_guard_footer().unwrap_or_default();
    assert!(footer.contains("ignored 6 so far"), "{footer}");
    // Once the guard time has passed (the runtime's timer says so), the dialog says how many it ignored.
    app.key_guard_due(std::time::Instant::now() + crate::app::guard::GUARD);
    let screen = crate::testing::render_text(&app);
    assert!(
        screen.contains("ignored 6 keys typed as it opened"),
        "{screen}"
    );
}

#[test]
fn the_decisions_are_chords_that_typing_does_not_produce() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    auth_required(&mut app, tab, "t1");
    key(&mut app, KeyCode::Esc);
    app.pass_key_guard();
    // Every bare letter, digit, space and Enter: nothing decided, the dialog stays.
    let mut fx = keys(&mut app, "apdoyc1 ");
    fx.extend(key(&mut app, KeyCode::Enter));
    assert!(!decided(&fx), "{fx:?}");
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
    let screen = crate::testing::render_text(&app);
    for k in ["Ctrl-Y", "Ctrl-T", "Ctrl-X"] {
        assert!(screen.contains(k), "the dialog shows {k}:\n{screen}");
    }
    // Ctrl-T opens the token prompt, which has its own guard.
    press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::ApprovalToken(_),
            ..
        })
    ));
    let fx = keys(&mut app, "assword");
    update(&mut app, Msg::Input(Event::Paste("pasted".into())));
    let fx2 = key(&mut app, KeyCode::Enter);
    assert!(!decided(&fx) && !decided(&fx2), "{fx:?} {fx2:?}");
    let typed = match &app.overlay {
        Some(Overlay::Prompt { input, .. }) => input.lines().join(""),
        _ => panic!("the prompt stays open"),
    };
    assert_eq!(typed, "", "nothing typed or pasted as it opened goes in");
}

#[test]
fn the_keymap_refuses_a_bare_key_for_a_decision() {
    use std::collections::BTreeMap;
    for (action, k) in [
        ("deny", "d"),
        ("approve_paste", "enter"),
        ("approve_configured", "space"),
        ("approve_device_flow", "7"),
    ] {
        let o = BTreeMap::from([(action.to_string(), vec![k.to_string()])]);
        let e = crate::config::keymap::Keymap::with_overrides(&o).unwrap_err();
        assert!(e.contains("decides for you"), "{action} {k}: {e}");
    }
    let o = BTreeMap::from([("deny".to_string(), vec!["alt-d".to_string()])]);
    assert!(crate::config::keymap::Keymap::with_overrides(&o).is_ok());
}

#[test]
fn a_request_never_opens_over_a_prompt_or_the_palette() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    key(&mut app, KeyCode::Esc);
    // A search prompt in the tab, and the palette.
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "pad");
    auth_required(&mut app, tab, "t1");
    keys(&mut app, "do");
    match &app.overlay {
        Some(Overlay::Prompt { kind, input }) => {
            assert_eq!(*kind, PromptKind::TranscriptSearch(tab));
            assert_eq!(input.lines().join(""), "paddo");
        }
        _ => panic!("the search prompt keeps the keyboard"),
    }
    // Leaving the prompt is leaving the text input: the dialog opens then.
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
}

#[test]
fn several_waiting_requests_in_several_tabs_all_stay_reachable_with_a() {
    let mut app = app();
    let one = typing_tab(&mut app);
    key(&mut app, KeyCode::Esc);
    let two = typing_tab(&mut app);
    key(&mut app, KeyCode::Esc);
    let three = typing_tab(&mut app);
    // Two requests arrive off screen and one on screen, all while the user types in tab three.
    auth_required(&mut app, one, "t1");
    auth_required(&mut app, two, "t2");
    auth_required(&mut app, three, "t3");
    assert!(app.overlay.is_none());
    assert_eq!(app.waiting_elsewhere(), 2);
    // Leaving the box opens this tab's; later leaves it waiting; A then reopens it (this tab first).
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Some(Overlay::Approval { tab, .. }) if tab == three));
    app.pass_key_guard();
    key(&mut app, KeyCode::Char('l'));
    // On the board, A goes to the next waiting request in another tab, and again to the last one.
    key(&mut app, KeyCode::Char('b'));
    let mut seen = Vec::new();
    for _ in 0..2 {
        key(&mut app, KeyCode::Char('A'));
        let Some(Overlay::Approval { tab, .. }) = app.overlay else {
            panic!("A opens a waiting request");
        };
        assert_eq!(app.view, View::Tab(tab), "its tab is shown with it");
        seen.push(tab);
        app.pass_key_guard();
        key(&mut app, KeyCode::Char('l'));
        key(&mut app, KeyCode::Char('b'));
        // Reviewed ones stay waiting (later), the not-yet-seen go first.
    }
    seen.sort();
    assert_eq!(seen, vec![one, two]);
}

#[test]
fn a_request_on_screen_with_command_keys_live_opens_at_once_behind_its_guard() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Main);
    auth_required(&mut app, tab, "t1");
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
    // The `c` and `y` a user meant for the transcript (cancel, then yes) decide nothing.
    let fx = keys(&mut app, "cy");
    assert!(!decided(&fx), "{fx:?}");
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
}

#[test]
fn the_cancel_confirmation_ignores_keys_typed_as_it_opens() {
    let mut app = app();
    let tab = typing_tab(&mut app);
    key(&mut app, KeyCode::Esc);
    let generation = app.tab(tab).map_or(0, |t| t.generation);
    update(
        &mut app,
        Msg::Stream {
            tab,
            generation,
            source: crate::task::log::Source::Stream(generation),
            item: StreamItem::Event(Box::new(status("t1", "ctx", TaskState::Working, None))),
        },
    );
    let fx = keys(&mut app, "cy");
    assert!(!decided(&fx), "{fx:?}");
    assert!(matches!(app.overlay, Some(Overlay::ConfirmCancel { .. })));
    app.pass_key_guard();
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(fx.as_slice(), [Effect::Cancel { .. }]), "{fx:?}");
}
