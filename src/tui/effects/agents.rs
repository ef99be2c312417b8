//! Connecting to an agent (its card fetched, its client built, with HTTP clients of its own when it has TLS
//! settings) and forgetting one that was removed.

use std::sync::Arc;

use crate::app::agent::{AgentInfo, Usability};
use crate::app::ids::AgentId;
use crate::app::msg::Msg;
use crate::remote::connect::agent::{self, AgentTarget, Connection};
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn load_agent(&mut self, agent: AgentId, target: Box<AgentTarget>, refresh: bool) {
        let tx = self.tx.clone();
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
            let result = match agent::connect_with(&target, &http, &fetcher, refresh).await {
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

    pub(super) fn forget_agent(&mut self, agent: AgentId) {
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
}

/// The HTTP clients for loading `agent`: the shared ones, or its own when it has TLS settings — built the first
/// time (reading its PEM files) and reused while the settings stay the same; a refresh (`r`) reads the files
/// again, so a certificate renewed on disk is used without a restart.
fn agent_clients(
    agent: AgentId,
    target: &AgentTarget,
    own: &crate::tui::runtime::OwnHttp,
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
