//! The console's side of the store. At start: open it, apply retention, and restore the open tabs' headers
//! (their transcripts load when a tab is opened, so the first frame never waits for the store's size). While
//! running, `update` says what to record (`Effect::Record`) and the writer thread commits it; this module only
//! adds the audit entries for requests as the runtime sends them, decodes stored transcripts for replay (on the
//! store's thread), and answers the viewer and exports.

use std::path::Path;

use chrono::Utc;
use tokio::sync::mpsc::UnboundedSender;

use crate::app::ids::TabId;
use crate::app::msg::{AuditRow, Effect, Msg, StoredItem};
use crate::app::state::App;
use crate::store::record::Record;
use crate::store::{AuditEntry, Direction, Store, TabEvent, kind};
use crate::task::event_serde::from_json;
use crate::task::log::Source;

/// Bring back the open tabs of the configured agents, headers only; returns how many. Tabs of agents no longer
/// configured stay in the store untouched.
pub fn restore_headers(store: &Store, app: &mut App) -> Result<usize, String> {
    let tabs = store.open_tabs().map_err(|e| e.to_string())?;
    let mut restored = 0;
    for st in tabs {
        let Some(id) = app.open_stored_tab(&st.row, st.has_events) else {
            continue;
        };
        if let (Some(draft), Some(t)) = (st.draft, app.tab_mut(id)) {
            t.compose.insert_str(&draft);
            t.saved_draft = draft;
        }
        restored += 1;
    }
    Ok(restored)
}

/// Each agent's last check verdict, for the agent list (read once at start; a store that cannot answer
/// leaves the list without verdicts).
pub fn restore_check_verdicts(store: &Store, app: &mut App) {
    if let Ok(verdicts) = store.last_checks() {
        crate::app::update::update(app, crate::app::msg::Msg::CheckVerdicts(verdicts));
    }
}

/// How many stored rows go to the app in one message (each is replayed in one `update`) …
const REPLAY_CHUNK: usize = 2000;
/// … or how many bytes of their JSON: a part of a very large artifact's rows is handed over before the next is
/// read, rather than the whole artifact read first.
const REPLAY_BYTES: usize = 8 * 1024 * 1024;

/// Read and decode a tab's transcript on the store's thread, a row at a time, and send it to the app in parts.
pub fn load_transcript(store: &Store, key: &str, tab: TabId, tx: &UnboundedSender<Msg>) {
    let mut items = Vec::new();
    let mut bytes = 0usize;
    let mut gone = false;
    let read = store.for_each_tab_event(key, |e| {
        bytes += e.json.len();
        if let Some(item) = decode(e) {
            items.push(item);
        }
        if items.len() >= REPLAY_CHUNK || bytes >= REPLAY_BYTES {
            bytes = 0;
            let part = std::mem::take(&mut items);
            gone = tx
                .send(Msg::TranscriptLoaded {
                    tab,
                    items: part,
                    done: false,
                })
                .is_err();
        }
        !gone
    });
    if gone {
        return;
    }
    if let Err(e) = read {
        tracing::warn!("cannot load a stored transcript: {e}");
    }
    // What is left (perhaps nothing), and the end: a read that failed half-way keeps what it delivered.
    let _ = tx.send(Msg::TranscriptLoaded {
        tab,
        items,
        done: true,
    });
}

/// The largest part of one stored event the raw JSON viewer shows (a 20 MB chunk is cut, with a note).
const RAW_EVENT_SHOWN: usize = 64 * 1024;

/// The stored events of tab `key` that arrived at `at`, as the raw JSON viewer shows them: decoded like a
/// replayed transcript, pretty-printed as the SDK writes them, sanitised, and cut past [`RAW_EVENT_SHOWN`].
pub fn raw_events_at(
    store: &Store,
    key: &str,
    at: &chrono::DateTime<chrono::Utc>,
) -> Result<Vec<String>, String> {
    let rows = store.tab_events_at(key, at).map_err(|e| e.to_string())?;
    Ok(rows
        .into_iter()
        .filter_map(decode)
        .filter_map(|item| match item {
            StoredItem::Event { event, .. } => serde_json::to_string_pretty(&event).ok(),
            _ => None,
        })
        .map(|pretty| {
            let total = pretty.len();
            let cut = crate::trust::sanitize::floor_char_boundary(&pretty, RAW_EVENT_SHOWN);
            let mut shown =
                crate::trust::sanitize::sanitize_text(pretty.get(..cut).unwrap_or_default()).0;
            if cut < total {
                shown.push_str(&format!(
                    "\n// … {} more of {} (E exports the whole transcript)",
                    crate::app::parts::human_bytes(total - cut),
                    crate::app::parts::human_bytes(total)
                ));
            }
            shown
        })
        .collect())
}

/// One stored row as the app replays it; rows we cannot read are skipped (and logged), never fatal.
pub fn decode(e: TabEvent) -> Option<StoredItem> {
    let at = e.at;
    let source = e
        .source
        .as_deref()
        .and_then(Source::parse)
        .unwrap_or(Source::Stream(0));
    let event = |r: Result<a2a::StreamResponse, serde_json::Error>| match r {
        Ok(ev) => Some(StoredItem::Event {
            source,
            event: Box::new(ev),
            at,
        }),
        Err(err) => {
            tracing::warn!("skipping stored event {}: {err}", e.seq);
            None
        }
    };
    if let Some(decoded) = crate::store::stream_response(&e.kind, &e.json) {
        return event(decoded);
    }
    match e.kind.as_str() {
        kind::USER => {
            let m: a2a::Message = from_json(&e.json).ok()?;
            Some(StoredItem::User {
                text: crate::task::outgoing::parts_text(&m.parts),
                message_id: m.message_id,
                at,
            })
        }
        kind::NOTE => {
            let v: serde_json::Value = serde_json::from_str(&e.json).ok()?;
            Some(StoredItem::Note {
                text: v.get("text")?.as_str()?.to_string(),
                error: v.get("error").and_then(|x| x.as_bool()).unwrap_or(false),
                at,
            })
        }
        _ => None,
    }
}

fn entry(app: &App, tab: TabId, direction: Direction, method: &str) -> AuditEntry {
    let t = app.tab(tab);
    AuditEntry {
        at: Utc::now(),
        agent: t
            .and_then(|t| app.agent(t.agent))
            .map(|a| a.target.url.clone())
            .unwrap_or_default(),
        direction,
        method: method.to_string(),
        task_id: t.and_then(|t| t.log.task_id.clone()),
        context_id: t.and_then(|t| t.log.context_id.clone()),
        message_id: None,
        detail_json: serde_json::Value::Null,
    }
}

/// The audit entry for a request the runtime is about to send (method, task, context; never credentials).
pub fn audit_request(app: &App, effect: &Effect) -> Option<Record> {
    let (tab, method, message_id) = match effect {
        Effect::Send {
            tab,
            stream,
            message,
            ..
        } => (
            *tab,
            if *stream {
                "SendStreamingMessage"
            } else {
                "SendMessage"
            },
            Some(message.message_id.clone()),
        ),
        Effect::Subscribe { tab, .. } | Effect::Resubscribe { tab, .. } => {
            (*tab, "SubscribeToTask", None)
        }
        Effect::Cancel { tab, .. } => (*tab, "CancelTask", None),
        Effect::Approve { tab, .. } => (*tab, "SendMessage (approval)", None),
        Effect::RefreshTask { tab, .. } => (*tab, "GetTask", None),
        _ => return None,
    };
    app.tab(tab).filter(|t| t.stored)?;
    let mut e = entry(app, tab, Direction::Request, method);
    e.message_id = message_id;
    Some(Record::Audit(Box::new(e)))
}

/// The audit entry for a response's outcome (a task's events are in the log already, as events).
pub fn audit_response(app: &App, msg: &Msg) -> Option<Record> {
    if let Msg::AgentLoaded {
        agent,
        result: Ok(info),
    } = msg
    {
        return key_changed_alarm(app, *agent, info);
    }
    let (tab, method, outcome) = match msg {
        Msg::Reply { tab, result, .. } => (
            *tab,
            "SendMessage / GetTask",
            match result.as_deref() {
                Ok(a2a::SendMessageResponse::Task(t)) => {
                    Ok(crate::task::phase::state_name(&t.status.state))
                }
                Ok(a2a::SendMessageResponse::Message(_)) => Ok("message"),
                Err(e) => Err(e.as_str()),
            },
        ),
        Msg::Canceled {
            tab,
            result: Err(e),
        } => (*tab, "CancelTask", Err(e.as_str())),
        _ => return None,
    };
    app.tab(tab).filter(|t| t.stored)?;
    let mut e = entry(app, tab, Direction::Response, method);
    e.detail_json = match outcome {
        Ok(state) => serde_json::json!({ "ok": true, "state": state }),
        Err(err) => {
            serde_json::json!({ "ok": false, "error": crate::remote::error::one_line(err) })
        }
    };
    Some(Record::Audit(Box::new(e)))
}

/// A card signed by another key than the one the user pinned or configured, or carrying no signature at all:
/// an alarm, so it is in the audit log (with the reason, which names the key that signed), not only on the
/// screen.
fn key_changed_alarm(
    app: &App,
    agent: crate::app::ids::AgentId,
    info: &crate::app::agent::AgentInfo,
) -> Option<Record> {
    let v = info.card.signature.as_ref()?;
    let alarm = v.alarm()?;
    tracing::warn!(target: "a2a_console::audit", "card signature: {}", v.reason);
    Some(Record::Audit(Box::new(AuditEntry {
        at: Utc::now(),
        agent: app
            .agent(agent)
            .map(|a| a.target.url.clone())
            .unwrap_or_default(),
        direction: Direction::Response,
        method: "agent card signature".into(),
        task_id: None,
        context_id: None,
        message_id: None,
        detail_json: serde_json::json!({
            "alarm": alarm,
            "reason": v.reason,
            "card": info.card.url.as_str(),
        }),
    })))
}

/// A human decision (approve / deny / later), with the tab's task and context ids.
pub fn decision(app: &App, tab: TabId, line: &str) -> Record {
    tracing::info!(target: "a2a_console::audit", "{line}");
    let mut e = entry(app, tab, Direction::Decision, "auth-required approval");
    e.detail_json = serde_json::json!({ "decision": line });
    Record::Audit(Box::new(e))
}

/// The audit log's last `n` entries (events included) as lines for the viewer (remote strings sanitised).
pub fn audit_lines(store: &Store, n: usize) -> Result<Vec<AuditRow>, String> {
    let entries = store.audit_entries(n).map_err(|e| e.to_string())?;
    // Consecutive events of one kind for one task (an artifact's chunks, a stream of progress) are one row
    // with their count: a 500-chunk artifact is not 500 rows.
    let mut groups: Vec<Vec<&AuditEntry>> = Vec::new();
    for e in &entries {
        match groups.last_mut() {
            Some(g)
                if e.direction == Direction::Event
                    && g.first().is_some_and(|f| {
                        f.direction == Direction::Event
                            && f.method == e.method
                            && f.task_id == e.task_id
                            && f.agent == e.agent
                    }) =>
            {
                g.push(e)
            }
            _ => groups.push(vec![e]),
        }
    }
    Ok(groups.into_iter().map(|g| audit_row(&g)).collect())
}

/// Most entries of a folded row the viewer shows in full when it is opened.
const OPENED_ENTRIES: usize = 20;

/// One row of the audit viewer: its summary line (the first entry's, with the count of a folded run) and,
/// for opening it, the entries as pretty JSON. Everything sanitised: the details quote what agents sent.
fn audit_row(group: &[&AuditEntry]) -> AuditRow {
    let mut line = group.first().map(|e| audit_line(e)).unwrap_or_default();
    if group.len() > 1 {
        line = format!("×{} {line}", group.len());
    }
    let mut detail: Vec<String> = Vec::new();
    for e in group.iter().take(OPENED_ENTRIES) {
        let pretty = serde_json::to_string_pretty(e).unwrap_or_default();
        detail.extend(
            crate::trust::sanitize::sanitize_text(&pretty)
                .0
                .lines()
                .map(str::to_owned),
        );
    }
    if group.len() > OPENED_ENTRIES {
        detail.push(format!(
            "// … and {} more like these (a2a-console audit prints every one)",
            group.len() - OPENED_ENTRIES
        ));
    }
    AuditRow {
        line: crate::trust::sanitize::sanitize_line(&line).0,
        detail,
    }
}

fn audit_line(e: &AuditEntry) -> String {
    format!(
        "{} {:<8} {:<28} task {} · context {} · message {} · {} {}",
        e.at.format("%Y-%m-%d %H:%M:%S"),
        e.direction.as_str(),
        e.method,
        e.task_id.as_deref().unwrap_or("—"),
        e.context_id.as_deref().unwrap_or("—"),
        e.message_id.as_deref().unwrap_or("—"),
        e.agent,
        if e.detail_json.is_null() {
            String::new()
        } else {
            e.detail_json.to_string()
        }
    )
}

/// Write a tab's whole conversation to `path`: JSON for a `.json` path, Markdown otherwise.
pub fn export_tab(
    store: &Store,
    tab_key: &str,
    agent_url: &str,
    agent_name: &str,
    path: &Path,
) -> Result<String, String> {
    let json = path.extension().is_some_and(|e| e == "json");
    let text = match crate::store::tab_export(store, tab_key, agent_url, agent_name, json)? {
        crate::store::TabExport::Markdown(text) => text,
        crate::store::TabExport::Json(v) => {
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        }
    };
    write_export(&text, path)
}

fn write_export(text: &str, path: &Path) -> Result<String, String> {
    // Like a saved artifact: a new private file, never over an existing one or through a symlink.
    match super::save::write(path, text.as_bytes(), false) {
        crate::app::msg::SaveResult::Saved(_) => Ok(format!("exported to {}", path.display())),
        crate::app::msg::SaveResult::Exists(what) => Err(format!(
            "not exported: {} already exists ({what}); export again under another name",
            path.display()
        )),
        crate::app::msg::SaveResult::Failed(e) => {
            Err(format!("cannot write {}: {e}", path.display()))
        }
    }
}

pub fn cached_cards(store: &Store, app: &mut App) -> Vec<crate::remote::card::FetchedCard> {
    let mut out = Vec::new();
    for a in &mut app.agents {
        let Ok(Some(c)) = store.load_card(&a.target.url) else {
            continue;
        };
        // What a card fetched now is compared with.
        a.known_card = Some(c.raw_json.clone());
        let Ok(url) = url::Url::parse(&c.card_url) else {
            continue;
        };
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(etag) = c
            .etag
            .as_deref()
            .and_then(|e| reqwest::header::HeaderValue::from_str(e).ok())
        {
            headers.insert(reqwest::header::ETAG, etag);
        }
        if let Ok(card) = crate::remote::card::parse_card(
            &url,
            &url,
            "application/json",
            c.raw_json.into_bytes(),
            &headers,
        ) {
            out.push(card);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::{DateTime, Utc};

    use super::*;
    use crate::app::agent::AgentOrigin;
    use crate::app::task::Entry;
    use crate::config::protocol::{Binding, Preferences};
    use crate::remote::connect::agent::AgentTarget;
    use crate::testing::{empty_app, status};

    fn agent(binding: Binding) -> AgentTarget {
        let mut t = AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5));
        t.label = "same".into();
        t.prefs = Preferences {
            binding: Some(binding),
            protocol: None,
        };
        t
    }

    #[test]
    fn a_key_changed_card_is_an_audit_entry_and_a_good_one_is_not() {
        use crate::app::agent::Reachability;
        use crate::remote::signature::{SignatureDetail, SignatureState, SignatureVerdict};
        let mut app = empty_app((120, 40));
        let id = crate::testing::add_online(
            &mut app,
            AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5)),
            "w",
            crate::testing::DEMO_CARD,
        );
        let with = |state, reason: &str| {
            let Some(Reachability::Online(info)) = app.agent(id).map(|a| &a.state) else {
                panic!("online")
            };
            let mut i = Box::new(crate::app::agent::AgentInfo::new(
                "w",
                info.card.clone(),
                crate::app::agent::Usability::CardOnly {
                    short: String::new(),
                    reason: String::new(),
                },
            ));
            i.card.signature = Some(SignatureVerdict {
                state,
                reason: reason.into(),
                detail: SignatureDetail::default(),
            });
            Msg::AgentLoaded {
                agent: id,
                result: Ok(i),
            }
        };
        let alarm = with(
            SignatureState::Invalid,
            "key changed: signed by key abc, not by the pinned key",
        );
        match audit_response(&app, &alarm) {
            Some(Record::Audit(e)) => {
                assert_eq!(e.agent, "http://127.0.0.1:9");
                assert_eq!(e.method, "agent card signature");
                assert_eq!(e.detail_json["alarm"], "key changed");
            }
            _ => panic!("no audit entry for a key change"),
        }
        let removed = with(
            SignatureState::Invalid,
            "signature removed: the card carries no signature, but the pinned key signs this agent's card",
        );
        match audit_response(&app, &removed) {
            Some(Record::Audit(e)) => assert_eq!(e.detail_json["alarm"], "signature removed"),
            _ => panic!("no audit entry for a removed signature"),
        }
        assert!(audit_response(&app, &with(SignatureState::Verified, "signed by x")).is_none());
        assert!(
            audit_response(
                &app,
                &with(SignatureState::Invalid, "signature does not match the card")
            )
            .is_none()
        );
    }

    fn two_agents_on_one_url() -> App {
        let mut app = empty_app((120, 40));
        app.add_agent(agent(Binding::JsonRpc), AgentOrigin::Config);
        app.add_agent(agent(Binding::HttpJson), AgentOrigin::Config);
        app
    }

    fn save(store: &Store, app: &mut App) {
        store
            .write_batch(
                &app.take_records(),
                &mut crate::store::WriterCache::default(),
            )
            .unwrap();
    }

    fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
        DateTime::from_timestamp_micros(t.timestamp_micros()).unwrap()
    }

    #[test]
    fn a_message_exchange_without_a_task_is_exported() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        let tab = app.new_tab(app.agents[0].id);
        let t = app.tab_mut(tab).unwrap();
        t.record_user("message", vec![], "u1");
        let mut reply = a2a::Message::new(a2a::Role::Agent, vec![a2a::Part::text("direct reply")]);
        reply.message_id = "r1".into();
        t.feed(&a2a::StreamResponse::Message(reply));
        assert!(t.exchanged() && t.log.task_id.is_none());
        let key = t.key.to_string();
        save(&store, &mut app);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exchange.md");
        let said = export_tab(&store, &key, "http://x", "demo", &path).unwrap();
        assert!(said.contains("exported to"), "{said}");
        let md = std::fs::read_to_string(&path).unwrap();
        assert!(md.starts_with("# Message exchange with demo"), "{md}");
        assert!(
            md.contains("> message\n") && md.contains("> direct reply\n"),
            "{md}"
        );
        assert!(md.contains("- Task: none"), "{md}");
    }

    #[test]
    fn two_agents_on_one_url_keep_their_own_tabs_across_a_restart() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        assert_ne!(app.agents[0].key, app.agents[1].key);
        let http_json = app.agents[1].id;
        let tab = app.new_tab(http_json);
        let t = app.tab_mut(tab).unwrap();
        t.record_user("hello", vec![], "m1");
        t.receive(
            Source::Stream(1),
            Box::new(status("t1", "c1", a2a::TaskState::Working, None)),
            Utc::now(),
        );
        save(&store, &mut app);

        let mut again = two_agents_on_one_url();
        assert_eq!(restore_headers(&store, &mut again).unwrap(), 1);
        let t = &again.tabs[0];
        assert_eq!(t.agent, again.agents[1].id, "back on the HTTP+JSON agent");
        assert_eq!(t.log.task_id.as_deref(), Some("t1"));
        assert!(t.pending_reattach, "still running: followed again");
    }

    #[test]
    fn a_restored_transcript_keeps_its_receive_times_and_order() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        let a = app.agents[0].id;
        let tab = app.new_tab(a);
        let t0 = micros(Utc::now() - chrono::Duration::hours(3));
        let t1 = t0 + chrono::Duration::seconds(7);
        let t2 = t1 + chrono::Duration::seconds(60);
        let t = app.tab_mut(tab).unwrap();
        let key = t.key.clone();
        t.user_at("ask", vec![], "m1", t0);
        t.receive(
            Source::Stream(1),
            Box::new(status("t1", "c1", a2a::TaskState::Submitted, None)),
            t1,
        );
        t.receive(
            Source::Stream(1),
            Box::new(status(
                "t1",
                "c1",
                a2a::TaskState::InputRequired,
                Some("name?"),
            )),
            t2,
        );
        save(&store, &mut app);

        let mut again = two_agents_on_one_url();
        restore_headers(&store, &mut again).unwrap();
        let id = again.tabs[0].id;
        assert!(!again.tabs[0].loaded, "headers first");
        let items = store
            .tab_events(&key)
            .unwrap()
            .into_iter()
            .filter_map(decode)
            .collect();
        crate::app::update::update(
            &mut again,
            Msg::TranscriptLoaded {
                tab: id,
                items,
                done: true,
            },
        );
        let t = again.tab(id).unwrap();
        let times: Vec<(String, DateTime<Utc>)> = t
            .transcript
            .iter()
            .filter_map(|e| match e {
                Entry::User { at, .. } => Some(("you".into(), at.with_timezone(&Utc))),
                Entry::State { state, at } => Some((
                    crate::task::phase::state_name(state).into(),
                    at.with_timezone(&Utc),
                )),
                Entry::Remote { text, at, .. } => {
                    Some((text.as_str().into(), at.with_timezone(&Utc)))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            times,
            vec![
                ("you".to_string(), t0),
                ("submitted".to_string(), t1),
                ("input-required".to_string(), t2),
                ("name?".to_string(), t2),
            ]
        );
        assert_eq!(
            t.state_since, t2,
            "time in state is from the agent's update, not the restart"
        );
        assert_eq!(t.input_rounds, 1);
        // Replaying records nothing again.
        assert!(
            again
                .take_records()
                .iter()
                .all(|r| !matches!(r, Record::Event { .. } | Record::User { .. }))
        );
    }

    /// Issue [10] item 7: quitting never loses a draft, even in a tab that has sent nothing yet (and so had no
    /// row in the store).
    #[test]
    fn quitting_saves_the_draft_of_a_tab_that_sent_nothing() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        let tab = app.new_tab(app.agents[1].id);
        app.tab_mut(tab).unwrap().compose.insert_str("never sent");
        // An empty new tab is not worth a row.
        app.new_tab(app.agents[0].id);
        store
            .write_batch(
                &crate::app::update::draft_records(&mut app, true),
                &mut crate::store::WriterCache::default(),
            )
            .unwrap();
        let mut again = two_agents_on_one_url();
        assert_eq!(restore_headers(&store, &mut again).unwrap(), 1);
        let t = &again.tabs[0];
        assert_eq!(t.agent, again.agents[1].id, "on its own agent");
        assert_eq!(t.compose.lines().join("\n"), "never sent");
    }

    #[test]
    fn a_closed_tab_stays_closed() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        let a = app.agents[0].id;
        let tab = app.new_tab(a);
        app.tab_mut(tab).unwrap().record_user("x", vec![], "m");
        save(&store, &mut app);
        app.view = crate::app::state::View::Tab(tab);
        let fx = crate::app::update::run_action(
            &mut app,
            crate::config::keymap::actions::Action::CloseTab,
        );
        let records: Vec<Record> = fx
            .into_iter()
            .filter_map(|e| match e {
                Effect::Record(r) => Some(r),
                _ => None,
            })
            .collect();
        store
            .write_batch(&records, &mut crate::store::WriterCache::default())
            .unwrap();
        let mut again = two_agents_on_one_url();
        assert_eq!(restore_headers(&store, &mut again).unwrap(), 0);
        assert_eq!(store.closed_tabs(5).unwrap().len(), 1);
    }

    /// Issue [10] item 13: an artifact's chunks are one audit row with their count, a row is one screen row
    /// cut after a whole word, and `.` then Enter opens the selected row's entries in full.
    #[test]
    fn the_audit_viewer_folds_chunks_and_opens_a_row() {
        let store = Store::open_in_memory().unwrap();
        let mut app = two_agents_on_one_url();
        let tab = app.new_tab(app.agents[0].id);
        let t = app.tab_mut(tab).unwrap();
        t.record_user("write a long story please", vec![], "u1");
        t.feed(&status("t1", "ctx", a2a::TaskState::Working, None));
        for i in 0..30 {
            t.feed(&crate::testing::chunk(
                "t1",
                "story",
                &format!("chapter {i} "),
                i > 0,
                i == 29,
            ));
        }
        t.feed(&status("t1", "ctx", a2a::TaskState::Completed, None));
        save(&store, &mut app);
        let rows = audit_lines(&store, 1000).unwrap();
        let chunks: Vec<&AuditRow> = rows.iter().filter(|r| r.line.contains("×30")).collect();
        assert_eq!(chunks.len(), 1, "{rows:#?}");
        assert!(rows.len() < 10, "{rows:#?}");
        let at = rows.iter().position(|r| r.line.contains("×30")).unwrap();

        app.size = (80, 30);
        let _ = crate::app::update::update(&mut app, Msg::AuditLoaded(Ok(rows.clone())));
        let screen = crate::testing::render_text(&app);
        let drawn = screen
            .lines()
            .find(|l| l.contains("×30"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(drawn.contains('…'), "a cut row says so: {drawn}");
        let press = |app: &mut App, c: crossterm::event::KeyCode| {
            crate::app::update::update(
                app,
                Msg::Input(crossterm::event::Event::Key(
                    crossterm::event::KeyEvent::new(c, crossterm::event::KeyModifiers::NONE),
                )),
            )
        };
        // The first `.` selects the last row shown; `,` walks up to the chunks' row.
        press(&mut app, crossterm::event::KeyCode::Char('.'));
        for _ in at..rows.len() - 1 {
            press(&mut app, crossterm::event::KeyCode::Char(','));
        }
        press(&mut app, crossterm::event::KeyCode::Enter);
        match &app.overlay {
            Some(crate::app::state::Overlay::RawJson { title, lines, .. }) => {
                assert!(title.starts_with("Audit entry"), "{title}");
                let text = lines.join("\n");
                assert!(
                    text.contains("artifactUpdate") && text.contains("// … and 10 more"),
                    "{text}"
                );
            }
            _ => panic!("Enter opens the row: {:?}", app.status),
        }
    }
}
