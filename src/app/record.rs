//! A tab's task as a suite case (`W` in a task tab): its first message, the answers the user gave to
//! interrupted states (an approval becomes an answer whose token comes from an environment variable named by
//! the user's name for the agent, never by its card), and
//! where the task stands with the names of its artifacts as the expectations. Read from the transcript the
//! tab shows, which holds what was sent and each state the task went through, in order. A tab that ran
//! several tasks records the one it shows now (its last).

use chrono::Local;

use crate::app::msg::APPROVAL_TEXT;
use crate::app::state::App;
use crate::app::task::{Entry, TaskTab};
use crate::suite::record::{RecordedReply, Recording, token_variable};
use crate::task::phase::{Phase, state_name};
use crate::trust::sanitize::sanitize_line;

/// What a message the user sent was: the first of a task, or an answer to the state the task was in.
struct Sent<'a> {
    text: &'a str,
    files: &'a [String],
    /// The state just before it was sent (`None`: no task yet).
    before: Option<&'static str>,
}

/// The active task of `tab` as a case, or why it cannot be one yet.
pub fn recording(app: &App, tab: &TaskTab) -> Result<Recording, String> {
    if !tab.loaded {
        return Err(
            "this tab's transcript is still loading from the store: try again in a moment".into(),
        );
    }
    let Some(phase) = tab.log.phase() else {
        return Err("nothing to record yet: send a message first".into());
    };
    if phase == Phase::Active {
        return Err(format!(
            "the task is still {}: record it once it has finished or asks for something",
            state_name(&tab.log.state)
        ));
    }
    let (first, answers, skipped) = last_task(tab)?;
    let agent_name = tab.agent_name.as_str();
    // The user's own name for the agent (configured, or given in the console); the tab's name may be the card's.
    let user_name = app
        .agent(tab.agent)
        .filter(|a| a.target.label != a.target.url)
        .map(|a| a.target.label.as_str());
    // An answer to auth-required goes with the approval's words, whatever was typed: a person may have typed
    // the token itself (an agent may ask for it in the text), and a suite file never holds a secret.
    let mut withheld = 0;
    let replies = answers
        .iter()
        .map(|s| {
            let when = s.before.unwrap_or_default().to_string();
            let auth = when == "auth-required";
            if auth && s.text != APPROVAL_TEXT {
                withheld += 1;
            }
            RecordedReply {
                message: if auth { APPROVAL_TEXT } else { s.text }.to_string(),
                credential_env: auth.then(|| token_variable(user_name)),
                when,
            }
        })
        .collect();
    let artifact_names = tab
        .log
        .current_artifacts()
        .iter()
        .filter_map(|a| a.artifact.name.as_deref())
        .map(|n| sanitize_line(n).0)
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) {
                v.push(n);
            }
            v
        });
    let name = first
        .text
        .lines()
        .next()
        .map(|l| crate::app::names::ellipsize(&sanitize_line(l).0, 48))
        .filter(|l| !l.trim().is_empty())
        .unwrap_or_else(|| format!("recorded from {agent_name}"));
    let task = tab.short_task().unwrap_or_else(|| "(no id)".into());
    let mut origin = format!(
        "task {task} of {agent_name}, {}",
        Local::now().format("%Y-%m-%d %H:%M")
    );
    if withheld > 0 {
        origin.push_str(
            " (what was typed in answer to auth-required is not written: it may be a secret; the answer carries the token from the variable below)",
        );
    }
    if skipped > 0 {
        origin.push_str(&format!(
            " ({skipped} message{} sent while it was working left out: a case answers only interrupted states)",
            if skipped == 1 { "" } else { "s" }
        ));
    }
    Ok(Recording {
        name,
        agent: agent_ref(app, tab),
        message: first.text.to_string(),
        files: first.files.iter().map(Into::into).collect(),
        replies,
        state: state_name(&tab.log.state).to_string(),
        artifact_names,
        origin,
    })
}

/// The configured name when the agent has one (so the case follows the config), else its URL.
fn agent_ref(app: &App, tab: &TaskTab) -> String {
    match app.agent(tab.agent) {
        Some(a)
            if a.origin == crate::app::agent::AgentOrigin::Config
                && a.target.label != a.target.url =>
        {
            a.target.label.clone()
        }
        Some(a) => a.target.url.clone(),
        None => tab.agent_name.clone(),
    }
}

/// The messages of the task the tab shows: the one that started it, the answers to its interrupted states,
/// and how many were sent while it was working (a case cannot say those).
fn last_task(tab: &TaskTab) -> Result<(Sent<'_>, Vec<Sent<'_>>, usize), String> {
    let mut state: Option<&'static str> = None;
    let mut sent = Vec::new();
    let mut skipped = 0;
    for e in tab.current_task_entries() {
        match e {
            Entry::State { state: s, .. } => state = Some(state_name(s)),
            Entry::User { text, files, .. } => {
                let next = Sent {
                    text,
                    files,
                    before: state,
                };
                match state {
                    // The first message, or an answer to what the task waited for.
                    None if sent.is_empty() => sent.push(next),
                    Some("input-required" | "auth-required") => sent.push(next),
                    // A follow-up while the task works (or before it said anything) is not a step a case
                    // can replay.
                    _ => skipped += 1,
                }
            }
            Entry::Remote { .. } | Entry::Console { .. } | Entry::Artifact { .. } => {}
        }
    }
    let mut task = sent.into_iter();
    let first = task.next().ok_or("nothing was sent in this tab")?;
    Ok((first, task.collect(), skipped))
}

#[cfg(test)]
mod tests {
    use a2a::TaskState;

    use super::*;
    use crate::testing::{app, keys::key, keys::keys, status};

    /// An agent added by URL asks for authorization and the user approves: the recorded answer's token
    /// variable is never named after the card (the agent chose that name), only after the user's own name.
    #[test]
    fn an_approval_reads_its_token_from_a_variable_the_agent_did_not_name() {
        let mut app = app();
        let agent = app.agents[0].id;
        crate::testing::keys::char_key(&mut app, 'n');
        keys(&mut app, "auth");
        key(&mut app, crossterm::event::KeyCode::Enter);
        let t = app.active_tab_mut().unwrap();
        t.feed(&status("t1", "c1", TaskState::Working, None));
        t.feed(&status(
            "t1",
            "c1",
            TaskState::AuthRequired,
            Some("send GITHUB_TOKEN"),
        ));
        t.record_user(APPROVAL_TEXT, vec![], "m2");
        t.feed(&status("t1", "c1", TaskState::Completed, None));
        let tab = app.active_tab().unwrap();
        let rec = recording(&app, tab).unwrap();
        assert_eq!(rec.message, "auth");
        assert_eq!(rec.replies.len(), 1);
        assert_eq!(rec.replies[0].when, "auth-required");
        assert_eq!(rec.replies[0].message, APPROVAL_TEXT);
        assert_eq!(rec.replies[0].credential_env.as_deref(), Some("A2A_TOKEN"));
        assert_eq!(rec.state, "completed");
        // A token typed as the answer's text is not written: the answer goes with the approval's words.
        key(&mut app, crossterm::event::KeyCode::Esc);
        crate::testing::keys::char_key(&mut app, 'n');
        keys(&mut app, "auth");
        key(&mut app, crossterm::event::KeyCode::Enter);
        let t = app.active_tab_mut().unwrap();
        t.feed(&status("t2", "c1", TaskState::Submitted, None));
        t.feed(&status(
            "t2",
            "c1",
            TaskState::AuthRequired,
            Some("reply with the token"),
        ));
        t.record_user("s3cr3t-token", vec![], "m4");
        t.feed(&status("t2", "c1", TaskState::Working, None));
        t.feed(&a2a::StreamResponse::ArtifactUpdate(
            crate::testing::chunk_event(("t2", "c1"), ("o1", "operator result"), "ok", false, true),
        ));
        t.feed(&status("t2", "c1", TaskState::Completed, None));
        let rec = recording(&app, app.active_tab().unwrap()).unwrap();
        assert!(!format!("{rec:?}").contains("s3cr3t-token"), "{rec:?}");
        assert_eq!(rec.replies[0].message, APPROVAL_TEXT);
        assert!(rec.origin.contains("is not written"), "{}", rec.origin);
        // Named by the user: the variable follows that name.
        app.agent_mut(agent).unwrap().target.label = "ops".into();
        let tab = app.active_tab().unwrap();
        let rec = recording(&app, tab).unwrap();
        assert_eq!(
            rec.replies[0].credential_env.as_deref(),
            Some("A2A_TOKEN_OPS")
        );
        // A second task in the same tab: only its own messages and artifacts are the case.
        key(&mut app, crossterm::event::KeyCode::Esc);
        key(&mut app, crossterm::event::KeyCode::Enter);
        keys(&mut app, "ask");
        key(&mut app, crossterm::event::KeyCode::Enter);
        let t = app.active_tab_mut().unwrap();
        t.feed(&status("t3", "c1", TaskState::InputRequired, Some("name?")));
        t.record_user("Bob", vec![], "m6");
        t.feed(&status("t3", "c1", TaskState::Working, None));
        t.feed(&a2a::StreamResponse::ArtifactUpdate(
            crate::testing::chunk_event(("t3", "c1"), ("g1", "greeting"), "hi Bob", false, true),
        ));
        t.feed(&status("t3", "c1", TaskState::Completed, None));
        let rec = recording(&app, app.active_tab().unwrap()).unwrap();
        assert_eq!(rec.message, "ask");
        assert_eq!(rec.replies.len(), 1, "{rec:?}");
        assert_eq!(rec.replies[0].message, "Bob");
        assert_eq!(rec.artifact_names, vec!["greeting".to_string()], "{rec:?}");
    }

    /// A message answered directly (no task), then one that starts a task: the case is the second message's
    /// task, not the first message with the second counted as sent while it worked.
    #[test]
    fn a_task_after_a_direct_reply_is_recorded_from_its_own_message() {
        let mut app = app();
        crate::testing::keys::char_key(&mut app, 'n');
        keys(&mut app, "message");
        key(&mut app, crossterm::event::KeyCode::Enter);
        let mut reply = a2a::Message::new(a2a::Role::Agent, vec![a2a::Part::text("direct reply")]);
        reply.context_id = Some("c1".into());
        let t = app.active_tab_mut().unwrap();
        t.feed(&a2a::StreamResponse::Message(reply));
        key(&mut app, crossterm::event::KeyCode::Esc);
        key(&mut app, crossterm::event::KeyCode::Enter);
        keys(&mut app, "echo hi");
        key(&mut app, crossterm::event::KeyCode::Enter);
        let t = app.active_tab_mut().unwrap();
        t.feed(&status("t1", "c1", TaskState::Working, None));
        t.feed(&status("t1", "c1", TaskState::Completed, None));
        let rec = recording(&app, app.active_tab().unwrap()).unwrap();
        assert_eq!(rec.message, "echo hi", "{rec:?}");
        assert!(rec.replies.is_empty(), "{rec:?}");
        assert!(
            !rec.origin.contains("while it was working"),
            "{}",
            rec.origin
        );
    }
}
