//! What a check will do, decided from the card before anything else is sent: which interfaces get which
//! probes, which are skipped and why (a binding or version we have no probes for, another origin the user has
//! not allowed), and the most requests it can take, said up front.

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
    /// From the card as the console reads it (a v0.3 card's top-level extended-card flag included).
    pub fn of(card: Option<&a2a::AgentCard>) -> Caps {
        let caps = card.map(|c| &c.capabilities);
        Caps {
            streaming: caps.and_then(|c| c.streaming).unwrap_or(false),
            push: caps.and_then(|c| c.push_notifications).unwrap_or(false),
            extended: caps.and_then(|c| c.extended_agent_card).unwrap_or(false),
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

/// The interfaces of a card as the console reads it (a v0.3 card's `url`, `preferredTransport` and
/// `additionalInterfaces` become interfaces there), with sanitised labels.
pub fn interfaces(card: Option<&a2a::AgentCard>) -> Vec<Interface> {
    card.map(|c| c.supported_interfaces.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|i| Interface {
            binding: i.protocol_binding.clone(),
            version: i.protocol_version.clone(),
            url: i.url.clone(),
            label: crate::trust::sanitize::sanitize_line(&format!(
                "{} {} {}",
                i.protocol_binding, i.protocol_version, i.url
            ))
            .0,
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
            // JSON-RPC at 0.3 (and 0.2.x, the same wire) is probed in 0.3's method names.
            let v03_rpc = area == Area::JsonRpc && (i.version == "0.3" || i.version.starts_with("0.3.") || i.version.starts_with("0.2."));
            if major != "1" && !v03_rpc {
                let why = match (major, area) {
                    // 0.3 fixes no error body for HTTP+JSON (v0.3 §3.2.3 only says "map consistently"), and its
                    // gRPC service is another proto package (`a2a.v1`) than the SDK's generated client speaks.
                    ("0", Area::HttpJson) => "v0.3 HTTP+JSON: 0.3 fixes no error format to judge it by (its §3.2.3)",
                    ("0", Area::Grpc) => "v0.3 gRPC: its service (package a2a.v1) is not the one check's client speaks",
                    _ => "a protocol version check has no probes for",
                };
                return Step::Skip(i.clone(), area, format!("protocol version {:?}: {why}", i.version));
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

/// Whether the extended card can be asked for with a credential; when none is configured, the finding says
/// so (the same on every binding).
pub fn can_ask_for_extended_card(
    prober: &Prober,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) -> bool {
    if !prober.has_credentials() {
        out.push(Finding::new(
            "extended-card.served",
            on,
            Outcome::skip("no credential is configured for this agent"),
        ));
    }
    prober.has_credentials()
}

/// A task id no agent has: every read-only probe asks about it.
pub fn unknown_task_id() -> String {
    format!("a2a-console-check-{}", uuid::Uuid::new_v4())
}
