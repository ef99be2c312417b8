//! Every source of task data through the one gate, as a user would see it go wrong without it: chunks twice
//! after a re-attach with push on, a finished task rolled back by late pushes, a poll repeating itself, tabs
//! talking through the wrong agent after another was removed, a task the agent forgot re-attached forever.

use super::*;
use crate::app::ids::AgentId;
use crate::app::msg::StreamItem;
use crate::app::task::Entry;
use crate::app::task::badge::Badge;
use crate::store::record::Record;
use crate::task::log::Source;
use crate::testing::keys::key;
use crate::testing::{app, chunk, snapshot, status};
use a2a::{StreamResponse, TaskState};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Open a tab, send `text`; returns the tab.
fn send(app: &mut App, text: &str) -> crate::app::ids::TabId {
    key(app, KeyCode::Char('n'));
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
    key(app, KeyCode::Enter);
    app.active_tab().map(|t| t.id).unwrap()
}

fn stream(app: &mut App, tab: u64, generation: u64, ev: &StreamResponse) -> Vec<Effect> {
    update(
        app,
        Msg::Stream {
            tab,
            generation,
            source: Source::Stream(generation),
            item: StreamItem::Event(Box::new(ev.clone())),
        },
    )
}

/// The current stream of `tab` closes.
fn end(app: &mut App, tab: u64, generation: u64) -> Vec<Effect> {
    update(
        app,
        Msg::Stream {
            tab,
            generation,
            source: Source::Stream(generation),
            item: StreamItem::End,
        },
    )
}

fn push(app: &mut App, ev: &StreamResponse) {
    // Pushes come in on the registration of the agent whose tab follows t1.
    let agent = app
        .tabs
        .iter()
        .find(|t| t.log.task_id.as_deref() == Some("t1"))
        .map_or(app.agents[0].id, |t| t.agent);
    update(
        app,
        Msg::Push {
            agent,
            task_id: "t1".into(),
            event: Box::new(ev.clone()),
        },
    );
}

fn remote_texts(app: &App, tab: u64) -> Vec<String> {
    app.tab(tab)
        .unwrap()
        .transcript
        .iter()
        .filter_map(|e| match e {
            Entry::Remote { text, .. } => Some(text.as_str().to_string()),
            _ => None,
        })
        .collect()
}

fn anomalies(app: &App, tab: u64) -> usize {
    app.tab(tab)
        .unwrap()
        .transcript
        .iter()
        .filter(|e| matches!(e, Entry::Console { text, .. } if text.contains("protocol anomaly")))
        .count()
}

#[test]
fn push_and_stream_overlapping_a_reattach_reassemble_the_artifact_exactly_once() {
    let mut app = app();
    let tab = send(&mut app, "stream 5");
    stream(
        &mut app,
        tab,
        1,
        &snapshot("t1", TaskState::Working, &[], None),
    );
    for (i, p) in ["1", "2"].iter().enumerate() {
        let c = chunk("t1", "a", p, i > 0, false);
        stream(&mut app, tab, 1, &c);
        push(&mut app, &c);
    }
    // Parts 3 and 4 are pushed late; the stream breaks before it sends them.
    let fx = end(&mut app, tab, 1);
    let Some(Effect::Resubscribe { generation, .. }) =
        fx.iter().find(|e| matches!(e, Effect::Resubscribe { .. }))
    else {
        panic!("a broken stream is re-attached: {fx:?}")
    };
    let g = *generation;
    // The re-attach opens with the server's snapshot: the new baseline.
    stream(
        &mut app,
        tab,
        g,
        &snapshot("t1", TaskState::Working, &["1", "2", "3", "4"], None),
    );
    assert_eq!(app.tab(tab).unwrap().link, crate::app::task::Link::Live);
    push(&mut app, &chunk("t1", "a", "3", true, false));
    push(&mut app, &chunk("t1", "a", "4", true, false));
    let last = chunk("t1", "a", "5", true, true);
    stream(&mut app, tab, g, &last);
    push(&mut app, &last);
    stream(
        &mut app,
        tab,
        g,
        &status("t1", "ctx", TaskState::Completed, None),
    );
    let t = app.tab(tab).unwrap();
    assert_eq!(t.artifacts.len(), 1);
    assert_eq!(t.artifacts[0].text.as_str(), Some("12345"));
    assert!(t.artifacts[0].complete);
    assert_eq!(anomalies(&app, tab), 0);
    // One row per received event, each with its verdict: the late pushes are recorded as duplicates.
    let records = app.take_records();
    let duplicates = records
        .iter()
        .filter(|r| {
            matches!(
                r,
                Record::Event {
                    verdict: "duplicate",
                    ..
                }
            )
        })
        .count();
    assert_eq!(duplicates, 5, "pushes of parts 1, 2, 3, 4, 5");
}

#[test]
fn late_pushes_after_completion_roll_nothing_back_and_raise_no_flag() {
    let mut app = app();
    let tab = send(&mut app, "ask");
    let updates = [
        status("t1", "ctx", TaskState::Working, None),
        status("t1", "ctx", TaskState::InputRequired, Some("name?")),
        status("t1", "ctx", TaskState::Working, None),
        status("t1", "ctx", TaskState::Completed, Some("done")),
    ];
    for u in &updates {
        stream(&mut app, tab, 1, u);
    }
    for u in &updates {
        push(&mut app, u);
    }
    let t = app.tab(tab).unwrap();
    assert_eq!(t.badge(), Badge::Completed);
    assert_eq!(t.input_rounds, 1, "asked once, not twice");
    assert_eq!(t.flag_count, 0);
    assert_eq!(anomalies(&app, tab), 0);
}

#[test]
fn repeated_polls_show_the_status_message_once() {
    let mut app = app();
    let tab = send(&mut app, "slow 30");
    for _ in 0..11 {
        update(
            &mut app,
            Msg::Stream {
                tab,
                generation: 1,
                source: Source::Poll,
                item: StreamItem::Event(Box::new(snapshot(
                    "t1",
                    TaskState::Working,
                    &[],
                    Some("working on it"),
                ))),
            },
        );
    }
    assert_eq!(remote_texts(&app, tab), vec!["working on it".to_string()]);
    let states = app
        .tab(tab)
        .unwrap()
        .transcript
        .iter()
        .filter(|e| matches!(e, Entry::State { .. }))
        .count();
    assert_eq!(states, 1);
}

#[test]
fn removing_an_agent_leaves_the_other_agents_tabs_on_their_own_agent() {
    let mut app = app();
    let second = crate::testing::add_online(
        &mut app,
        crate::remote::connect::agent::AgentTarget::from_url(
            "http://127.0.0.1:19",
            std::time::Duration::from_secs(5),
        ),
        "other",
        crate::testing::DEMO_CARD,
    );
    app.selected_agent = 1;
    let tab = send(&mut app, "echo hi");
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "ctx", TaskState::Completed, None),
    );
    // Remove the first agent.
    app.selected_agent = 0;
    app.focus = crate::app::state::Focus::Agents;
    key(&mut app, KeyCode::Char('d'));
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::ForgetAgent { agent } if *agent != second))
    );
    assert_eq!(app.tab(tab).unwrap().agent, second);
    // The tab still talks through its own agent.
    let fx = send_on(&mut app, tab, "again");
    assert!(
        matches!(fx.as_slice(), [Effect::Send { agent, .. }] if *agent == second),
        "{fx:?}"
    );
}

fn send_on(app: &mut App, tab: u64, text: &str) -> Vec<Effect> {
    if let Some(t) = app.tab_mut(tab) {
        t.compose.insert_str(text);
    }
    crate::app::update::send(app, tab)
}

#[test]
fn a_task_the_agent_does_not_know_is_marked_and_never_reattached() {
    let mut app = app();
    let tab = send(&mut app, "slow 30");
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "ctx", TaskState::Working, None),
    );
    update(
        &mut app,
        Msg::TaskGone {
            tab,
            generation: 1,
            why: "the agent answered -32001 (task not found)".into(),
        },
    );
    let fx = end(&mut app, tab, 1);
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Resubscribe { .. } | Effect::Subscribe { .. })),
        "{fx:?}"
    );
    let t = app.tab(tab).unwrap();
    assert_eq!(t.badge(), Badge::Lost);
    assert!(t.gone);
    // The header row records it, so the next start does not try again.
    let rows: Vec<_> = app
        .take_records()
        .into_iter()
        .filter_map(|r| match r {
            Record::Tab(row) => Some(row),
            _ => None,
        })
        .collect();
    assert!(rows.last().is_some_and(|r| r.gone), "{rows:?}");
}

#[test]
fn a_successful_reattach_clears_the_disconnected_badge() {
    let mut app = app();
    let tab = send(&mut app, "stream 5");
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "ctx", TaskState::Working, None),
    );
    let fx = end(&mut app, tab, 1);
    assert_eq!(app.tab(tab).unwrap().badge(), Badge::Disconnected);
    let g = app.tab(tab).unwrap().generation;
    assert!(fx.iter().any(|e| matches!(e, Effect::Resubscribe { .. })));
    stream(&mut app, tab, g, &chunk("t1", "a", "more", false, false));
    assert_eq!(app.tab(tab).unwrap().badge(), Badge::Working);
}

#[test]
fn ctrl_t_reopens_a_closed_tab_even_from_the_compose_box() {
    let mut app = app();
    let _ = send(&mut app, "echo hi");
    assert_eq!(app.focus, crate::app::state::Focus::Compose);
    let fx = update(
        &mut app,
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('t'),
            KeyModifiers::CONTROL,
        ))),
    );
    assert!(
        fx.iter().any(|e| matches!(e, Effect::LoadClosedTabs)),
        "{fx:?}"
    );
    assert!(
        app.active_tab().unwrap().compose.is_empty(),
        "not typed as text"
    );
}

fn push_from(app: &mut App, agent: AgentId, ev: &StreamResponse) -> Vec<Effect> {
    update(
        app,
        Msg::Push {
            agent,
            task_id: "t1".into(),
            event: Box::new(ev.clone()),
        },
    )
}

/// Finding 6 in the app: agent B reuses agent A's task id. B's pushes (which arrive on B's own registration)
/// never reach A's tab, whatever they say; A's own pushes still do.
#[test]
fn a_push_from_another_agent_with_the_same_task_id_leaves_the_tab_alone() {
    let mut app = app();
    let a = app.agents[0].id;
    let b = crate::testing::add_online(
        &mut app,
        crate::remote::connect::agent::AgentTarget::from_url(
            "http://127.0.0.1:19",
            std::time::Duration::from_secs(5),
        ),
        "other",
        crate::testing::DEMO_CARD,
    );
    let tab = send(&mut app, "slow 30");
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "ctx", TaskState::Working, Some("A is working")),
    );
    let before = remote_texts(&app, tab);
    let fx = push_from(
        &mut app,
        b,
        &status("t1", "ctx", TaskState::Failed, Some("injected by B")),
    );
    assert!(fx.is_empty(), "{fx:?}");
    let t = app.tab(tab).unwrap();
    assert_eq!(t.log.state, TaskState::Working);
    assert_eq!(t.push_received, 0);
    assert_eq!(remote_texts(&app, tab), before);
    push_from(
        &mut app,
        a,
        &status("t1", "ctx", TaskState::Working, Some("A pushed")),
    );
    assert!(
        remote_texts(&app, tab)
            .iter()
            .any(|s| s.contains("A pushed"))
    );
}

/// Once the tab knows the task's context, a push with an empty context id is refused (flagged, not shown),
/// while the tab's own stream may still leave it out.
#[test]
fn a_push_with_no_context_is_refused_once_the_context_is_known() {
    let mut app = app();
    let a = app.agents[0].id;
    let tab = send(&mut app, "slow 30");
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "ctx", TaskState::Working, Some("step 1")),
    );
    push_from(
        &mut app,
        a,
        &status(
            "t1",
            "",
            TaskState::InputRequired,
            Some("type your password"),
        ),
    );
    let t = app.tab(tab).unwrap();
    assert_eq!(t.log.state, TaskState::Working);
    assert!(
        !remote_texts(&app, tab)
            .iter()
            .any(|s| s.contains("password"))
    );
    assert_eq!(anomalies(&app, tab), 1);
    // The stream, a connection the console opened itself, may omit it.
    stream(
        &mut app,
        tab,
        1,
        &status("t1", "", TaskState::Working, Some("step 2")),
    );
    assert!(remote_texts(&app, tab).iter().any(|s| s.contains("step 2")));
}
