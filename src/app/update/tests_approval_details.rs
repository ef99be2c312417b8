//! Issue [10] item 10, the approval's details as the user sees them: the transcript shows the words actually
//! sent, the tab says an approval is on its way (spinner and time), the answer's result is drawn before the
//! state that ends the task, and the sign-in dialogs wrap a long address under itself and count the wait.

use super::tests_sign_in::waiting_for_auth;
use super::*;
use crate::app::msg::APPROVAL_TEXT;
use crate::app::state::{CodeFlowView, SignInFor};
use crate::app::task::Entry;
use crate::testing::keys::{guarded_ctrl as ctrl, guarded_key as key, guarded_keys as keys};
use crate::testing::{app, render_text, sign_in_app};
use a2a::*;
use crossterm::event::KeyCode;

#[test]
fn an_approval_says_what_was_sent_shows_its_wait_and_draws_the_result_before_completed() {
    let mut app = app();
    let id = waiting_for_auth(&mut app);
    ctrl(&mut app, 't');
    keys(&mut app, "demo-secret");
    let fx = key(&mut app, KeyCode::Enter);
    let Some(Effect::Approve { generation, .. }) = fx.get(1) else {
        panic!("approved: {fx:?}");
    };
    let generation = *generation;
    let screen = render_text(&app);
    // The words the agent receives, not a paraphrase; the secret nowhere.
    assert!(screen.contains(APPROVAL_TEXT), "{screen}");
    assert!(!screen.contains("(approved with"), "{screen}");
    assert!(screen.contains("sent with the pasted token"), "{screen}");
    assert!(!screen.contains("demo-secret"), "{screen}");
    // While the approval is on its way (a token endpoint, then the agent), the title counts the wait.
    assert!(screen.contains("approving "), "{screen}");
    assert!(screen.contains("approving ◐ · 0:00"), "{screen}");
    app.now += chrono::Duration::seconds(7);
    app.spinner += 1;
    let later = render_text(&app);
    assert!(later.contains("approving ◓ · 0:07"), "{later}");

    // The agent answers with the finished task: its result, then `completed`.
    let task = Task {
        id: "t9".into(),
        context_id: "ctx".into(),
        status: TaskStatus {
            state: TaskState::Completed,
            message: None,
            timestamp: None,
        },
        artifacts: Some(vec![Artifact {
            artifact_id: "op".into(),
            name: Some("operator result".into()),
            description: None,
            parts: vec![Part::text("The protected step ran.")],
            metadata: None,
            extensions: None,
        }]),
        history: None,
        metadata: None,
    };
    update(
        &mut app,
        Msg::Reply {
            tab: id,
            generation,
            result: Ok(Box::new(SendMessageResponse::Task(task))),
        },
    );
    let t = app.tab(id).unwrap();
    let artifact = t
        .transcript
        .iter()
        .position(|e| matches!(e, Entry::Artifact { .. }))
        .expect("the result is in the transcript");
    let completed = t
        .transcript
        .iter()
        .position(|e| {
            matches!(
                e,
                Entry::State {
                    state: TaskState::Completed,
                    ..
                }
            )
        })
        .expect("the end is in the transcript");
    assert!(artifact < completed, "{:?}", t.transcript);
    let screen = render_text(&app);
    assert!(!screen.contains("approving"), "the wait is over:\n{screen}");
    let rows: Vec<&str> = screen.lines().collect();
    let result_row = rows
        .iter()
        .position(|r| r.contains("The protected step ran."))
        .unwrap();
    // The transcript's state line (the title, above, says completed too).
    let state_row = rows.iter().rposition(|r| r.contains("completed")).unwrap();
    assert!(result_row < state_row, "{screen}");
}

/// How many rows the dialog's address continues on, each starting with the bar where the `▍ open` row has it and
/// the address under the address (not further right); panics with the screen when the address is not shown.
fn address_continuation_rows(screen: &str) -> usize {
    let rows: Vec<&str> = screen.lines().collect();
    let first = rows
        .iter()
        .position(|r| r.contains("▍ open   http://127.0.0.1:9/authorize"))
        .unwrap_or_else(|| panic!("{screen}"));
    let col = rows[first].find("▍ open").unwrap();
    let mut continued = 0;
    for r in rows.iter().skip(first + 1) {
        let Some(rest) = r.get(col..) else { break };
        if !rest.starts_with("▍        ") {
            break;
        }
        assert!(
            !rest.starts_with("▍         "),
            "under the address, not further:\n{screen}"
        );
        continued += 1;
    }
    continued
}

#[test]
fn sign_in_dialogs_wrap_the_address_under_itself_and_count_the_wait() {
    let mut app = sign_in_app();
    let id = waiting_for_auth(&mut app);
    let url = format!(
        "http://127.0.0.1:9/authorize?response_type=code&client_id=a2a-console&redirect_uri=http%3A%2F%2F127.0.0.1%3A41999%2Fcallback&scope=openid%20profile&state={}&code_challenge={}",
        "s".repeat(40),
        "c".repeat(43)
    );
    app.code_flow = Some(CodeFlowView {
        owner: SignInFor::Approval(id),
        flow: "openid_connect",
        url: Some(url.clone()),
        port: Some(41999),
        since: app.now - chrono::Duration::seconds(12),
    });
    app.overlay = Some(Overlay::CodeFlow {
        owner: SignInFor::Approval(id),
    });
    let screen = render_text(&app);
    assert!(
        address_continuation_rows(&screen) >= 2,
        "the address takes several rows:\n{screen}"
    );
    assert!(
        screen.contains("Waiting for the browser on 127.0.0.1:41999… ◐ · 0:12"),
        "{screen}"
    );

    // The device flow's dialog likewise, from the moment it asks the authorization server.
    app.overlay = Some(Overlay::DeviceCode {
        tab: id,
        user_code: "WDJB-MJHT".into(),
        verification_uri: url,
        since: app.now - chrono::Duration::seconds(65),
    });
    let screen = render_text(&app);
    assert!(
        screen.contains("◐ Waiting for the authorization server · 1:05…"),
        "{screen}"
    );
    assert!(address_continuation_rows(&screen) >= 1, "{screen}");
    assert!(screen.contains("▍ enter  WDJB-MJHT"), "{screen}");
}
