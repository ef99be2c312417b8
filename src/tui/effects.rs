//! Running what `update` asks for: each `Effect` becomes a background task (a request, a stream reader, a
//! store read, a file write) that reports back over the message channels. Nothing here blocks the loop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;

use super::runtime::Runtime;
use super::stream_budget::StreamTx;
use crate::app::agent::{AgentInfo, Usability};
use crate::app::ids::{AgentId, TabId};
use crate::app::msg::{Effect, Msg, StreamItem};
use crate::remote::connect::agent::{self, Connected, Connection};
use crate::remote::error::classify;

impl Runtime {
    /// Run one request for `agent` in the background; what `f` returns is sent to the app. Nothing happens
    /// when the agent is not connected (its card never loaded).
    fn call<F, Fut>(&self, agent: AgentId, f: F)
    where
        F: FnOnce(Arc<Connected>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Option<Msg>> + Send + 'static,
    {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            if let Some(msg) = f(conn).await {
                let _ = tx.send(msg);
            }
        });
    }

    fn client(&self, agent: AgentId) -> Option<Arc<Connected>> {
        self.clients
            .lock()
            .ok()
            .and_then(|m| m.get(&agent).cloned())
    }

    /// Run `f` on the store's thread (it answers over its own channel); without a store, answer `none`.
    fn on_store<F>(&self, f: F, none: Msg)
    where
        F: FnOnce(&crate::store::Store) + Send + 'static,
    {
        match &self.writer {
            Some(w) => w.run(f),
            None => {
                let _ = self.tx.send(none);
            }
        }
    }

    /// Start what an effect asks for; never blocks.
    pub fn run_effect(&mut self, effect: Effect) {
        let tx = self.tx.clone();
        match effect {
            Effect::LoadAgent {
                agent,
                target,
                refresh,
            } => {
                self.targets.insert(agent, (*target).clone());
                let (shared_http, shared_fetcher, clients, own_http) = (
                    self.http.clone(),
                    self.fetcher.clone(),
                    self.clients.clone(),
                    self.own_http.clone(),
                );
                tokio::spawn(async move {
                    let (http, fetcher) = match agent_clients(
                        agent,
                        &target,
                        &own_http,
                        (shared_http, shared_fetcher),
                        refresh,
                    ) {
                        Ok(c) => c,
                        Err(e) => {
                            let _ = tx.send(Msg::AgentLoaded {
                                agent,
                                result: Err(e.message),
                            });
                            return;
                        }
                    };
                    let result = match agent::connect_with(&target, &http, &fetcher, refresh).await
                    {
                        Ok(Connection::Ready(conn)) => {
                            let info = AgentInfo::new(
                                &conn.label,
                                conn.card.clone(),
                                Usability::Ready(conn.selected.clone()),
                            );
                            if let Ok(mut m) = clients.lock() {
                                m.insert(agent, Arc::new(conn));
                            }
                            Ok(Box::new(info))
                        }
                        Ok(Connection::CardOnly(only)) => {
                            // A refresh may turn a callable agent into a card-only one: drop its old client.
                            if let Ok(mut m) = clients.lock() {
                                m.remove(&agent);
                            }
                            Ok(Box::new(AgentInfo::new(
                                &only.label,
                                only.card,
                                Usability::CardOnly {
                                    short: only.short,
                                    reason: only.reason.message,
                                },
                            )))
                        }
                        Err(e) => Err(e.message),
                    };
                    let _ = tx.send(Msg::AgentLoaded { agent, result });
                });
            }
            Effect::Send {
                tab,
                generation,
                agent,
                message,
                stream,
            } => {
                let Some(conn) = self.client(agent) else {
                    let _ = tx.send(Msg::Reply {
                        tab,
                        generation,
                        result: Err("the agent is not connected (its card did not load)".into()),
                    });
                    return;
                };
                let stx = self.stream_tx.clone();
                let handle = tokio::spawn(async move {
                    let m = *message;
                    let msg = match crate::task::outgoing::build_message(
                        m.text,
                        m.task_id,
                        m.context_id,
                        &m.files,
                    ) {
                        Ok(mut msg) => {
                            msg.message_id = m.message_id;
                            msg
                        }
                        Err(e) => {
                            let _ = tx.send(Msg::Reply {
                                tab,
                                generation,
                                result: Err(crate::remote::error::RemoteError::usage(e).message),
                            });
                            return;
                        }
                    };
                    let req = a2a::SendMessageRequest {
                        message: msg,
                        configuration: None,
                        metadata: None,
                        tenant: None,
                    };
                    if stream {
                        match conn.client.send_streaming_message(&req).await {
                            Ok(events) => pump(events, &stx, tab, generation).await,
                            Err(e) => {
                                let _ = tx.send(Msg::Reply {
                                    tab,
                                    generation,
                                    result: Err(classify(&e).message),
                                });
                            }
                        }
                    } else {
                        let result = conn
                            .client
                            .send_message(&req)
                            .await
                            .map_err(|e| classify(&e).message);
                        let _ = tx.send(Msg::Reply {
                            tab,
                            generation,
                            result,
                        });
                    }
                });
                if let Some(old) = self.streams.insert(tab, handle) {
                    old.abort();
                }
            }
            Effect::Subscribe {
                tab,
                generation,
                agent,
                task_id,
            } => self.subscribe(tab, generation, agent, task_id, 0),
            Effect::Resubscribe {
                tab,
                generation,
                agent,
                task_id,
                delay_ms,
            } => self.subscribe(tab, generation, agent, task_id, delay_ms),
            Effect::ImportTasks {
                agent,
                state,
                context,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::ListTasksRequest {
                        context_id: context,
                        status: state,
                        page_size: Some(50),
                        page_token: None,
                        history_length: Some(0),
                        status_timestamp_after: None,
                        include_artifacts: Some(true),
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .list_tasks(&req)
                        .await
                        .map(|r| r.tasks)
                        .map_err(|e| classify(&e).message);
                    Some(Msg::Imported { agent, result })
                });
            }
            Effect::RefreshTask {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::GetTaskRequest {
                        id: task_id,
                        history_length: Some(0),
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .get_task(&req)
                        .await
                        .map_err(|e| classify(&e).message);
                    Some(Msg::Refreshed { tab, result })
                });
            }
            Effect::Approve {
                tab,
                generation,
                agent,
                task_id,
                context_id,
                credential,
            } => {
                let (Some(conn), Some(target)) =
                    (self.client(agent), self.targets.get(&agent).cloned())
                else {
                    return;
                };
                // The agent's own client when it has one: the follow-up carries its certificate too.
                let http = conn.http.clone();
                let handle = tokio::spawn(async move {
                    let result =
                        approve_request(&conn, &target, http, credential, task_id, context_id)
                            .await;
                    let _ = tx.send(Msg::Reply {
                        tab,
                        generation,
                        result,
                    });
                });
                if let Some(old) = self.streams.insert(tab, handle) {
                    old.abort();
                }
            }
            // Handled in `apply`: records go to the writer in the order update made them.
            Effect::Record(_) | Effect::Audit { .. } => {}
            Effect::ForgetAgent { agent } => {
                if let Ok(mut m) = self.clients.lock() {
                    m.remove(&agent);
                }
                if let Ok(mut m) = self.own_http.lock() {
                    m.remove(&agent);
                }
                self.targets.remove(&agent);
                // Its push registrations go with it: nothing it posts is routed anywhere any more.
                if let Some(r) = self.push.as_ref() {
                    r.unregister_agent(&agent);
                }
            }
            Effect::LoadTranscript { tab, key } => {
                // Decoded on the store's thread, handed over in parts so no single update is long.
                self.on_store(
                    move |store| super::persist::load_transcript(store, &key, tab, &tx),
                    Msg::TranscriptLoaded {
                        tab,
                        items: Vec::new(),
                        done: true,
                    },
                );
            }
            Effect::LoadRawEvents { key, at } => self.on_store(
                move |store| {
                    let result = super::persist::raw_events_at(store, &key, &at);
                    let _ = tx.send(Msg::RawEventsLoaded { at, result });
                },
                Msg::RawEventsLoaded {
                    at,
                    result: Err("the console runs without a local store".into()),
                },
            ),
            Effect::CheckAttachment { tab, path } => {
                tokio::spawn(async move {
                    let result = match tokio::fs::metadata(&path).await {
                        Ok(m) if m.is_dir() => Err("a directory, not a file".to_string()),
                        Ok(m) => Ok(m.len()),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            Err("not found".to_string())
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                            Err("not readable".to_string())
                        }
                        Err(e) => Err(e.to_string()),
                    };
                    let _ = tx.send(Msg::AttachmentChecked { tab, path, result });
                });
            }
            Effect::LoadClosedTabs => self.on_store(
                move |store| {
                    let r = store.closed_tabs(50).map_err(|e| e.to_string());
                    let _ = tx.send(Msg::ClosedTabs(r));
                },
                Msg::ClosedTabs(Err(
                    "no local store: closed tabs are kept only with one".into()
                )),
            ),
            Effect::RegisterPush {
                tab,
                agent,
                task_id,
                context_id,
            } => {
                let (Some(conn), Some(receiver)) = (self.client(agent), self.push.as_ref()) else {
                    return;
                };
                let cfg = match receiver.config_for(agent, &task_id, context_id.as_deref()) {
                    Ok(cfg) => cfg,
                    Err(e) => {
                        let _ = tx.send(Msg::PushConfigs {
                            tab,
                            result: Err(e),
                            what: "registered",
                        });
                        return;
                    }
                };
                tokio::spawn(async move {
                    let result = conn
                        .client
                        .create_push_config(&cfg)
                        .await
                        .map(|c| vec![c])
                        .map_err(|e| classify(&e).message);
                    let _ = tx.send(Msg::PushConfigs {
                        tab,
                        result,
                        what: "registered",
                    });
                });
            }
            Effect::ListPush {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::ListTaskPushNotificationConfigsRequest {
                        task_id,
                        page_size: None,
                        page_token: None,
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .list_push_configs(&req)
                        .await
                        .map(|r| r.configs)
                        .map_err(|e| classify(&e).message);
                    Some(Msg::PushConfigs {
                        tab,
                        result,
                        what: "listed",
                    })
                });
            }
            Effect::DeletePush {
                tab,
                agent,
                task_id,
                ids,
            } => {
                let Some(conn) = self.client(agent) else {
                    return;
                };
                if let Some(r) = self.push.as_ref() {
                    r.unregister(&agent, &task_id);
                }
                tokio::spawn(async move {
                    let mut result = Ok(Vec::new());
                    for id in ids {
                        let req = a2a::DeleteTaskPushNotificationConfigRequest {
                            task_id: task_id.clone(),
                            id,
                            tenant: None,
                        };
                        if let Err(e) = conn.client.delete_push_config(&req).await {
                            result = Err(classify(&e).message);
                            break;
                        }
                    }
                    let _ = tx.send(Msg::PushConfigs {
                        tab,
                        result,
                        what: "deleted",
                    });
                });
            }
            Effect::DeviceFlow {
                tab,
                device_url,
                token_url,
                client_id,
                scopes,
                timeout,
            } => {
                let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
                self.oauth_cancels
                    .insert(crate::app::state::SignInFor::Approval(tab), cancel_tx);
                tokio::spawn(async move {
                    let http = match crate::remote::auth::oauth::http_client_within(timeout) {
                        Ok(h) => h,
                        Err(e) => {
                            let _ = tx.send(Msg::DeviceCode {
                                tab,
                                result: Err(e.to_string()),
                            });
                            return;
                        }
                    };
                    let auth = match crate::remote::auth::oauth::start_device_flow(
                        &http,
                        &device_url,
                        &client_id,
                        &scopes,
                    )
                    .await
                    {
                        Ok(a) => a,
                        Err(e) => {
                            let _ = tx.send(Msg::DeviceCode {
                                tab,
                                result: Err(e.within(timeout)),
                            });
                            return;
                        }
                    };
                    let shown = auth
                        .verification_uri_complete
                        .clone()
                        .unwrap_or_else(|| auth.verification_uri.clone());
                    let _ = tx.send(Msg::DeviceCode {
                        tab,
                        result: Ok((auth.user_code.clone(), shown)),
                    });
                    let result = crate::remote::auth::oauth::poll_device_token(
                        &http, &token_url, &client_id, &auth, cancel_rx,
                    )
                    .await
                    .map_err(|e| e.within(timeout))
                    .and_then(|t| match t.bearer() {
                        Ok(crate::remote::auth::Credential::Bearer(s)) => Ok(s),
                        Ok(_) => Err("the token is not a bearer token".to_string()),
                        Err(e) => Err(e.to_string()),
                    });
                    let _ = tx.send(Msg::OAuthDone {
                        owner: crate::app::state::SignInFor::Approval(tab),
                        result,
                        source: "OAuth device-flow token",
                    });
                });
            }
            Effect::CodeFlow {
                owner,
                plan,
                auth,
                scope,
                label,
            } => {
                let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
                self.oauth_cancels.insert(owner, cancel_tx);
                let (paste_tx, paste_rx) = tokio::sync::mpsc::unbounded_channel();
                self.code_pastes.insert(owner, paste_tx);
                tokio::spawn(async move {
                    let result = crate::remote::auth::sign_in::run_code_flow(
                        &plan,
                        auth.as_deref(),
                        &scope,
                        &label,
                        crate::remote::auth::sign_in::DialogIo {
                            cancel: cancel_rx,
                            pastes: paste_rx,
                            open_browser: crate::remote::auth::sign_in::browser_available(false),
                        },
                        |url, port| {
                            let _ = tx.send(Msg::CodeFlowStarted {
                                owner,
                                result: Ok((url, port)),
                            });
                        },
                    )
                    .await;
                    let _ = tx.send(Msg::OAuthDone {
                        owner,
                        result,
                        source: "OAuth 2.0 sign-in token",
                    });
                });
            }
            Effect::CodeFlowPaste { owner, pasted } => {
                if let Some(s) = self.code_pastes.get(&owner) {
                    let _ = s.send(pasted);
                }
            }
            Effect::CancelOAuth { owner } => {
                if let Some(c) = self.oauth_cancels.remove(&owner) {
                    let _ = c.send(true);
                }
                self.code_pastes.remove(&owner);
            }
            Effect::ExportTab {
                tab_key,
                agent_url,
                agent_name,
                path,
            } => {
                let answer = tx.clone();
                self.on_store(
                    move |store| {
                        let r = super::persist::export_tab(
                            store,
                            &tab_key,
                            &agent_url,
                            &agent_name,
                            &path,
                        );
                        let _ = answer.send(Msg::Saved(r));
                    },
                    Msg::Saved(Err("no local store: nothing to export from".into())),
                );
            }
            Effect::LoadAudit => {
                let answer = tx.clone();
                self.on_store(
                    move |store| {
                        let _ =
                            answer.send(Msg::AuditLoaded(super::persist::audit_lines(store, 500)));
                    },
                    Msg::AuditLoaded(Err(
                        "no local store: the audit log is kept only with one".into()
                    )),
                );
            }
            Effect::Copy { text, what } => {
                let _ = tx.send(Msg::Saved(super::clipboard::copy(
                    self.clipboard_enabled,
                    &text,
                    &what,
                )));
            }
            Effect::Bell => {
                if self.bell_enabled {
                    use std::io::Write;
                    let mut out = std::io::stdout();
                    let _ = out.write_all(b"\x07");
                    let _ = out.flush();
                }
            }
            Effect::Cancel {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::CancelTaskRequest {
                        id: task_id,
                        metadata: None,
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .cancel_task(&req)
                        .await
                        .map_err(|e| classify(&e).message);
                    Some(Msg::Canceled { tab, result })
                });
            }
            Effect::AddAgentToConfig { url, name } => {
                let path = self
                    .config_path
                    .clone()
                    .or_else(crate::config::default_path);
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::files::edit_text(&p, true, |text, label| {
                            crate::config::edit::add_agent(text, label, &url, name.as_deref())
                        })
                        .map(|_| format!("added {url} to {}", p.display())),
                        None => Err("no config file location".into()),
                    };
                    let _ = tx.send(Msg::ConfigSaved(r));
                });
            }
            Effect::RenameAgentInConfig {
                agent,
                key,
                name,
                label,
            } => {
                let path = self
                    .config_path
                    .clone()
                    .or_else(crate::config::default_path);
                tokio::task::spawn_blocking(move || {
                    let pick = |agents: &[crate::config::AgentConfig]| {
                        crate::app::state::config_entry_with_key(agents, &key)
                    };
                    let result = match path {
                        Some(p) => crate::files::edit_text(&p, false, |text, label| {
                            crate::config::edit::rename_agent(text, label, pick, name.as_deref())
                                .map(Some)
                        })
                        .map(|_| format!("saved the new name in {}", p.display())),
                        None => Err("no config file location".into()),
                    };
                    let _ = tx.send(Msg::AgentRenamed {
                        agent,
                        label,
                        result,
                    });
                });
            }
            Effect::RemoveAgentFromConfig { url } => {
                let path = self.config_path.clone();
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::files::edit_text(&p, true, |text, label| {
                            crate::config::edit::remove_agent(text, label, &url)
                        })
                        .map(|removed| {
                            if removed {
                                format!("removed {url} from {}", p.display())
                            } else {
                                format!("{url} was not in {}", p.display())
                            }
                        }),
                        None => Ok("no config file to update".into()),
                    };
                    let _ = tx.send(Msg::ConfigSaved(r));
                });
            }
            Effect::PinKeyInConfig { url, thumbprint } => {
                let path = self.config_path.clone();
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::files::edit_text(&p, true, |text, label| {
                            crate::config::edit::pin_key(text, label, &url, &thumbprint).map(Some)
                        })
                        .map(|_| format!("pinned the key of {url} in {}", p.display())),
                        None => Err("no config file to hold the pin (it lasts this run)".into()),
                    };
                    let _ = tx.send(Msg::ConfigSaved(r));
                });
            }
            Effect::SaveFile {
                path,
                bytes,
                replace,
            } => {
                // Blocking file calls (create_new, fsync, rename) on a blocking thread, off the loop.
                tokio::task::spawn_blocking(move || {
                    let result = super::save::write_slice(&path, &bytes, replace);
                    let _ = tx.send(Msg::SaveDone { path, result });
                });
            }
            Effect::Highlight { key, lang, code } => {
                self.highlighter.request(key, lang.as_deref(), code)
            }
            Effect::StartDemo { port } => {
                let slot = self.demo.clone();
                tokio::spawn(async move {
                    let result = match crate::demo::spawn_stable(port).await {
                        Ok((agent, moved)) => {
                            let listening = crate::app::msg::DemoListening {
                                target: crate::demo::target(&agent.base_url(), agent.grpc_url()),
                                moved,
                            };
                            if let Ok(mut s) = slot.lock() {
                                *s = Some(agent);
                            }
                            Ok(listening)
                        }
                        Err(e) => Err(format!("{e:#}")),
                    };
                    let _ = tx.send(Msg::DemoStarted(result));
                });
            }
            Effect::SetCodeTheme(theme) => self.highlighter.set_theme(theme),
            Effect::Quit => {}
        }
    }

    /// Re-attach to a task's events after `delay_ms`; when the agent cannot stream, poll GetTask instead until
    /// the task finishes or waits for the user.
    fn subscribe(
        &mut self,
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
        delay_ms: u64,
    ) {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.stream_tx.clone();
        let handle = tokio::spawn(async move {
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            let streaming = conn.card.card.capabilities.streaming == Some(true);
            let req = a2a::SubscribeToTaskRequest {
                id: task_id.clone(),
                tenant: None,
            };
            if streaming {
                match conn.client.subscribe_to_task(&req).await {
                    Ok(events) => {
                        pump(events, &tx, tab, generation).await;
                        return;
                    }
                    Err(e) if not_found(&e) => {
                        gone(&tx, tab, generation, &e).await;
                        return;
                    }
                    // Some agents stream but cannot re-attach: poll instead.
                    Err(_) => {}
                }
            }
            poll(&conn, &tx, tab, generation, task_id).await;
        });
        if let Some(old) = self.streams.insert(tab, handle) {
            old.abort();
        }
    }
}

/// How many times an approval is re-sent while the agent says the task's execution is still in progress.
const APPROVAL_RETRIES: u32 = 10;

/// How often to poll GetTask for an agent that cannot stream, and for how long at most.
const POLL_EVERY: Duration = Duration::from_secs(2);
const POLL_FOR: Duration = Duration::from_secs(600);

/// Poll GetTask, delivering each snapshot as a stream event, until the task settles.
async fn poll(conn: &Connected, tx: &StreamTx, tab: TabId, generation: u64, task_id: String) {
    let started = Instant::now();
    loop {
        let req = a2a::GetTaskRequest {
            id: task_id.clone(),
            history_length: Some(0),
            tenant: None,
        };
        match conn.client.get_task(&req).await {
            Ok(task) => {
                let settled = crate::task::phase::phase(&task.status.state)
                    != crate::task::phase::Phase::Active;
                let ev = Box::new(a2a::StreamResponse::Task(task));
                let sent = tx
                    .send(Msg::Stream {
                        tab,
                        generation,
                        source: crate::task::log::Source::Poll,
                        item: StreamItem::Event(ev),
                    })
                    .await;
                if sent.is_err() || settled {
                    break;
                }
            }
            Err(e) if not_found(&e) => {
                gone(tx, tab, generation, &e).await;
                return;
            }
            Err(e) => {
                let _ = tx
                    .send(Msg::Stream {
                        tab,
                        generation,
                        source: crate::task::log::Source::Poll,
                        item: StreamItem::Error(format!(
                            "polling GetTask: {}",
                            classify(&e).message
                        )),
                    })
                    .await;
                break;
            }
        }
        if started.elapsed() > POLL_FOR {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    let _ = tx
        .send(Msg::Stream {
            tab,
            generation,
            source: crate::task::log::Source::Poll,
            item: StreamItem::End,
        })
        .await;
}

/// The agent's answer means "no such task" (A2A `TaskNotFoundError`, -32001).
fn not_found(e: &a2a::A2AError) -> bool {
    classify(e).code == Some(a2a::error_code::TASK_NOT_FOUND)
}

async fn gone(tx: &StreamTx, tab: TabId, generation: u64, e: &a2a::A2AError) {
    let _ = tx
        .send(Msg::TaskGone {
            tab,
            generation,
            why: classify(e).message,
        })
        .await;
}

/// The HTTP clients for loading `agent`: the shared ones, or its own when it has TLS settings — built the first
/// time (reading its PEM files) and reused while the settings stay the same; a refresh (`r`) reads the files
/// again, so a certificate renewed on disk is used without a restart.
fn agent_clients(
    agent: AgentId,
    target: &crate::remote::connect::agent::AgentTarget,
    own: &super::runtime::OwnHttp,
    (shared_http, shared_fetcher): (reqwest::Client, Arc<crate::remote::card::CardFetcher>),
    refresh: bool,
) -> Result<
    (reqwest::Client, Arc<crate::remote::card::CardFetcher>),
    crate::remote::error::RemoteError,
> {
    let Some(settings) = &target.tls else {
        return Ok((shared_http, shared_fetcher));
    };
    if let Some((_, h)) = own.lock().ok().and_then(|m| {
        m.get(&agent)
            .filter(|(s, _)| s == settings && !refresh)
            .cloned()
    }) {
        return Ok((h.http, h.fetcher));
    }
    let Some(built) = target.own_http()? else {
        return Ok((shared_http, shared_fetcher));
    };
    for w in &built.warnings {
        tracing::warn!(agent = %crate::remote::error::one_line(&target.label), "{w}");
    }
    if let Ok(mut m) = own.lock() {
        m.insert(agent, (settings.clone(), built.clone()));
    }
    Ok((built.http, built.fetcher))
}

/// Send the follow-up that answers an auth-required task, with the approved credential on this request only.
async fn approve_request(
    conn: &Connected,
    target: &crate::remote::connect::agent::AgentTarget,
    http: reqwest::Client,
    credential: crate::app::msg::ApprovalCredential,
    task_id: String,
    context_id: Option<String>,
) -> Result<a2a::SendMessageResponse, String> {
    use crate::app::msg::ApprovalCredential;
    use crate::remote::auth::{Credential, HeaderInterceptor};
    let credential = match credential {
        ApprovalCredential::Pasted(token) => Credential::Bearer(token),
        ApprovalCredential::Configured => {
            let auth = target
                .auth
                .as_ref()
                .ok_or("no credential is configured for this agent")?;
            // The same rule as at connect time: the configured secret goes to its own origins only (the token
            // endpoint of a client-credentials flow, and the interface this request goes to).
            let scope = target.scope().map_err(|e| e.message)?;
            if !scope.permits_url(&conn.selected.interface.url) {
                return Err(scope.refusal(
                    "the interface this approval would go to",
                    &conn.selected.interface.url,
                    &conn.label,
                ));
            }
            crate::remote::auth::resolve_scoped(
                auth,
                conn.card.card.security_schemes.as_ref(),
                Some((&scope, &conn.label)),
                target.timeout,
            )
            .await
            .map_err(|e| e.message)?
        }
    };
    let headers = Arc::new(HeaderInterceptor::new(&target.headers, Some(&credential)));
    let client = crate::remote::connect::build(crate::remote::connect::ClientSpec {
        card: &conn.card.card,
        selected: &conn.selected,
        http,
        headers,
        credential: Some(&credential),
        limits: target.limits(),
        tls: target.tls.as_ref(),
    })
    .await
    .map_err(|e| e.message)?;
    let mut message = a2a::Message::new(
        a2a::Role::User,
        vec![a2a::Part::text(crate::app::msg::APPROVAL_TEXT)],
    );
    message.task_id = Some(task_id);
    message.context_id = context_id;
    let req = a2a::SendMessageRequest {
        message,
        configuration: None,
        metadata: None,
        tenant: None,
    };
    // A blocking SendMessage, even for a streaming agent: some servers (the Rust SDK's) still hold the task's
    // execution for a moment after entering auth-required, and a streaming follow-up sent then is attached to
    // the old execution and silently dropped; a blocking one waits its turn. If the task is still running when
    // the reply comes, `update` re-attaches to it.
    // An agent that keeps its stream open while it waits may still be "executing" the task for a moment and
    // refuse the follow-up as already in progress (the Rust SDK answers -32600); wait and try again, briefly.
    let mut attempts = 0;
    loop {
        match client.send_message(&req).await {
            Err(e) if attempts < APPROVAL_RETRIES && e.message.contains("already in progress") => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            other => return other.map_err(|e| classify(&e).message),
        }
    }
}

/// Forward a stream's items to the app, then say it ended.
/// Forward a stream's items to the app, then say it ended. The queue is bounded: when the app is behind, this
/// waits, and so does the network read behind it.
async fn pump(
    mut events: a2a_client::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>>,
    tx: &StreamTx,
    tab: TabId,
    generation: u64,
) {
    let source = crate::task::log::Source::Stream(generation);
    // Whether the last state seen waits for the user or is final: a stream that then goes quiet is not news.
    let mut settled = false;
    while let Some(item) = events.next().await {
        let item = match item {
            Ok(ev) => {
                let state = match &ev {
                    a2a::StreamResponse::Task(t) => Some(&t.status.state),
                    a2a::StreamResponse::StatusUpdate(u) => Some(&u.status.state),
                    _ => None,
                };
                if let Some(s) = state {
                    settled = crate::task::phase::phase(s) != crate::task::phase::Phase::Active;
                }
                StreamItem::Event(Box::new(ev))
            }
            Err(e) if not_found(&e) => {
                gone(tx, tab, generation, &e).await;
                return;
            }
            Err(e) if settled && crate::remote::wire::is_idle(&e) => break,
            Err(e) => StreamItem::Error(classify(&e).message),
        };
        let msg = Msg::Stream {
            tab,
            generation,
            source,
            item,
        };
        if tx.send(msg).await.is_err() {
            return;
        }
    }
    let _ = tx
        .send(Msg::Stream {
            tab,
            generation,
            source,
            item: StreamItem::End,
        })
        .await;
}
