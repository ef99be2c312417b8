//! What a check will do, decided from the card before anything else is sent: which interfaces get which
//! probes, which are skipped and why (a binding or version we have no probes for, another origin the user has
//! not allowed), and the most requests it can take, said up front.

use serde_json::{Map, Value};

use super::exchange::Prober;
use super::report::{Finding, Outcome};
use super::requirement::{Area, CATALOGUE};

/// One interface the card declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub binding: String,
    pub version: String,
    pub url: String,
    /// How the report names it: `JSONRPC 1.0 http://…`.
    pub label: String,
}

/// The capabilities the card declares (absent is false, §3.3.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    pub streaming: bool,
    pub push: bool,
    pub extended: bool,
}

impl Caps {
    pub fn of(card: &Map<String, Value>) -> Caps {
        let flag = |f: &str| {
            card.get("capabilities")
                .and_then(|c| c.get(f))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        Caps {
            streaming: flag("streaming"),
            push: flag("pushNotifications"),
            extended: flag("extendedAgentCard"),
        }
    }
}

/// What to do with one interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    JsonRpc(Interface),
    Rest(Interface),
    Grpc(Interface),
    Skip(Interface, Area, String),
}

impl Step {
    pub fn requests(&self) -> usize {
        match self {
            Step::JsonRpc(_) => super::jsonrpc::REQUESTS,
            Step::Rest(_) => super::rest::REQUESTS,
            Step::Grpc(_) => super::grpc::REQUESTS,
            Step::Skip(..) => 0,
        }
    }
}

/// The interfaces of a card as written (sanitised labels; entries without a url or binding are left to the
/// card's own findings).
pub fn interfaces(card: &Map<String, Value>) -> Vec<Interface> {
    let Some(list) = card.get("supportedInterfaces").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|i| {
            let url = i.get("url")?.as_str()?.to_string();
            let binding = i.get("protocolBinding")?.as_str()?.to_string();
            let version = i
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let label =
                crate::trust::sanitize::sanitize_line(&format!("{binding} {version} {url}")).0;
            Some(Interface {
                binding,
                version,
                url,
                label,
            })
        })
        .collect()
}

/// The step for each interface.
pub fn steps(interfaces: &[Interface], prober: &Prober) -> Vec<Step> {
    interfaces
        .iter()
        .map(|i| {
            let area = match i.binding.as_str() {
                "JSONRPC" => Area::JsonRpc,
                "HTTP+JSON" => Area::HttpJson,
                "GRPC" => Area::Grpc,
                _ => {
                    return Step::Skip(
                        i.clone(),
                        Area::Card,
                        "a binding check has no probes for".into(),
                    );
                }
            };
            let major = i.version.split('.').next().unwrap_or_default();
            if major != "1" {
                return Step::Skip(
                    i.clone(),
                    area,
                    format!(
                        "protocol version {:?}: check judges v1.0 interfaces (no probes for this version yet)",
                        i.version
                    ),
                );
            }
            let url = if area == Area::Grpc && !i.url.contains("://") {
                format!("http://{}", i.url)
            } else {
                i.url.clone()
            };
            if !prober.in_scope(&url) {
                let origin = crate::remote::auth::origin::Origin::of(&url)
                    .map_or_else(|| i.url.clone(), |o| o.to_string());
                return Step::Skip(
                    i.clone(),
                    area,
                    format!(
                        "on {origin}, another origin than the agent's: nothing is sent there unless you allow it \
                         (--allow-origin {origin})"
                    ),
                );
            }
            match area {
                Area::JsonRpc => Step::JsonRpc(i.clone()),
                Area::HttpJson => Step::Rest(i.clone()),
                _ => Step::Grpc(Interface { url, ..i.clone() }),
            }
        })
        .collect()
}

/// SKIP findings for every requirement of `area` on a skipped interface.
pub fn skipped(iface: &Interface, area: Area, why: &str, out: &mut Vec<Finding>) {
    let ids: Vec<&str> = CATALOGUE
        .iter()
        .filter(|r| r.area == area)
        .map(|r| r.id)
        .collect();
    if ids.is_empty() || area == Area::Card {
        out.push(Finding::new(
            "card.bindings-known",
            Some(&iface.label),
            Outcome::skip(why),
        ));
        return;
    }
    for id in ids {
        out.push(Finding::new(id, Some(&iface.label), Outcome::skip(why)));
    }
}

/// A task id no agent has: every read-only probe asks about it.
pub fn unknown_task_id() -> String {
    format!("a2a-console-check-{}", uuid::Uuid::new_v4())
}
