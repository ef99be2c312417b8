//! From a card and the user's preferences to a working SDK client: which interface (binding + protocol
//! version), which transport (our own for JSON-RPC and HTTP+JSON, both versions — see `wire/` for why —
//! and the SDK's for gRPC), and the interceptors that add headers and credentials. Nothing above `remote/`
//! learns which version or binding is on the wire.

pub mod agent;
pub mod echoed;
pub mod grpc_tls;
pub mod grpc_tls_watch;
pub mod guard;
pub mod tls;

use std::sync::Arc;

use a2a::{AgentCard, AgentInterface};
use a2a_client::{A2AClient, Transport, TransportFactory};

use crate::config::protocol::{Binding, Preferences, ProtocolChoice};
use crate::remote::auth::{Credential, HeaderInterceptor};
use crate::remote::connect::guard::GuardedTransport;
use crate::remote::error::RemoteError;
use crate::remote::wire::WireLimits;
use crate::remote::wire::jsonrpc::{JsonRpcTransport, RpcEndpoint};
use crate::remote::wire::rest::{RestEndpoint, RestTransport};
use crate::remote::wire::v03::V03Transport;
use crate::remote::wire::v03_rest::V03RestTransport;

/// The SDK client type every operation goes through.
pub type Client = A2AClient<Box<dyn Transport>>;

/// The interface chosen from a card.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    pub interface: AgentInterface,
    pub binding: Binding,
    pub protocol: ProtocolChoice,
}

/// Choose an interface: walk `supportedInterfaces` in the card's order (its preference), keep those we can
/// speak and that match the user's choices, prefer 1.x over 0.3, and among equals the user's binding first.
pub fn select_interface(card: &AgentCard, prefs: Preferences) -> Result<Selected, RemoteError> {
    select_interface_within(card, prefs, None)
}

/// `select_interface`, preferring interfaces on the origins of `scope` when the agent's calls carry a
/// credential or headers (a card may list the same agent on several hosts).
pub fn select_interface_within(
    card: &AgentCard,
    prefs: Preferences,
    scope: Option<&crate::remote::auth::origin::CredentialScope>,
) -> Result<Selected, RemoteError> {
    let mut candidates: Vec<(usize, Selected)> = Vec::new();
    for (order, iface) in card.supported_interfaces.iter().enumerate() {
        let Some(binding) = Binding::from_card(&iface.protocol_binding) else {
            continue;
        };
        let Ok(protocol) = ProtocolChoice::parse(&iface.protocol_version) else {
            continue;
        };
        // `card::rules::interface_use` says which interfaces are usable, and why not (the tests keep the two
        // in step): 0.3 goes over JSON-RPC and HTTP+JSON, 0.2.x over JSON-RPC only.
        if !crate::remote::card::rules::interface_use(
            &iface.protocol_binding,
            &iface.protocol_version,
        )
        .is_usable()
        {
            continue;
        }
        if prefs.binding.is_some_and(|b| b != binding)
            || prefs.protocol.is_some_and(|p| p != protocol)
        {
            continue;
        }
        candidates.push((
            order,
            Selected {
                interface: iface.clone(),
                binding,
                protocol,
            },
        ));
    }
    candidates.sort_by_key(|(order, s)| {
        let outside = scope.is_some_and(|sc| !sc.permits_url(&s.interface.url));
        (outside, std::cmp::Reverse(s.protocol), *order)
    });
    match candidates.into_iter().next() {
        Some((_, s)) => Ok(s),
        None => Err(RemoteError::usage(no_interface_message(card, prefs))),
    }
}

/// How many of a card's interfaces the "no interface" error names (a hostile card may list thousands).
const OFFERED_SHOWN: usize = 4;

/// "no interface we can use …; the card offers: …", each offer with why it is not used (`card::rules`).
fn no_interface_message(card: &AgentCard, prefs: Preferences) -> String {
    use crate::remote::card::rules::{InterfaceUse, interface_use, quote};
    let offered: Vec<String> = card
        .supported_interfaces
        .iter()
        .take(OFFERED_SHOWN)
        .map(|i| {
            let why = match interface_use(&i.protocol_binding, &i.protocol_version) {
                InterfaceUse::Unusable { short, .. } => format!(" ({short})"),
                InterfaceUse::Usable { .. } => String::new(),
            };
            format!(
                "{} {} at {}{why}",
                quote(&i.protocol_binding).trim_matches('"'),
                quote(&i.protocol_version).trim_matches('"'),
                quote(&i.url).trim_matches('"')
            )
        })
        .collect();
    let more = card
        .supported_interfaces
        .len()
        .saturating_sub(OFFERED_SHOWN);
    let wanted = match (prefs.binding, prefs.protocol) {
        (None, None) => String::new(),
        (b, p) => format!(
            " matching{}{}",
            b.map(|b| format!(" binding {}", b.wire_name()))
                .unwrap_or_default(),
            p.map(|p| format!(" protocol {}", p.label()))
                .unwrap_or_default()
        ),
    };
    if offered.is_empty() {
        return format!("no interface we can use{wanted}: the card lists none");
    }
    format!(
        "no interface we can use{wanted}; the card offers: {}{}",
        offered.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    )
}

/// Everything needed to build a client for one agent.
pub struct ClientSpec<'a> {
    pub card: &'a AgentCard,
    pub selected: &'a Selected,
    pub http: reqwest::Client,
    pub headers: Arc<HeaderInterceptor>,
    pub credential: Option<&'a Credential>,
    /// Deadlines and size limits of every call.
    pub limits: WireLimits,
    /// The agent's `[agents.tls]`, for a gRPC interface at an https URL (HTTP bindings have it in `http`).
    pub tls: Option<&'a crate::remote::connect::tls::TlsSettings>,
}

/// Build the SDK client for the chosen interface.
pub async fn build(spec: ClientSpec<'_>) -> Result<Client, RemoteError> {
    let mut iface = spec.selected.interface.clone();
    if let Some((name, value)) = spec.credential.and_then(Credential::query) {
        if spec.selected.binding == Binding::Grpc {
            return Err(RemoteError::usage(
                "an API key in the query string cannot go over gRPC; use location = \"header\" or another binding",
            ));
        }
        let mut url = url::Url::parse(&iface.url)
            .map_err(|e| RemoteError::usage(format!("interface URL {:?}: {e}", iface.url)))?;
        url.query_pairs_mut().append_pair(&name, value.expose());
        iface.url = url.to_string();
    }
    let http = spec.http.clone();
    let limits = spec.limits;
    let transport: Box<dyn Transport> = match (spec.selected.protocol, spec.selected.binding) {
        (ProtocolChoice::V03, Binding::JsonRpc) => Box::new(V03Transport::new(RpcEndpoint::new(
            http,
            iface.url.clone(),
            limits,
        ))),
        (ProtocolChoice::V03, Binding::HttpJson) => Box::new(V03RestTransport::new(rest_endpoint(
            http, &iface.url, limits,
        )?)),
        (ProtocolChoice::V1, Binding::JsonRpc) => Box::new(JsonRpcTransport::new(
            RpcEndpoint::new(http, iface.url.clone(), limits),
        )),
        (ProtocolChoice::V1, Binding::HttpJson) => {
            Box::new(RestTransport::new(rest_endpoint(http, &iface.url, limits)?))
        }
        (ProtocolChoice::V03, Binding::Grpc) => {
            return Err(RemoteError::usage(
                "protocol 0.3 over gRPC is not supported; choose JSON-RPC or HTTP+JSON",
            ));
        }
        (ProtocolChoice::V1, Binding::Grpc) => {
            let (factory, watch) = if crate::remote::connect::grpc_tls::wants_tls(&iface.url) {
                let (config, watch) = crate::remote::connect::grpc_tls::client_config(spec.tls)?;
                (
                    a2a_grpc::client::GrpcTransportFactory::with_rustls_config(config),
                    Some(watch),
                )
            } else {
                (a2a_grpc::client::GrpcTransportFactory::new(), None)
            };
            let grpc = tokio::time::timeout(limits.request, factory.create(spec.card, &iface))
                .await
                .map_err(|_| {
                    RemoteError::transport(format!("gRPC connect to {} timed out", iface.url))
                })?
                .map_err(|e| match watch.as_ref().and_then(|w| w.hint()) {
                    Some(hint) => RemoteError::transport(format!(
                        "gRPC connect to {}: {hint}",
                        crate::remote::error::one_line(&iface.url)
                    )),
                    None => crate::remote::error::classify(&e),
                })?;
            // The SDK's gRPC transport has no deadline of its own: bound each call, and each stream's
            // silence and length, here.
            let guarded = GuardedTransport::new(grpc, limits);
            Box::new(match watch {
                Some(w) => guarded.with_tls_watch(w),
                None => guarded,
            })
        }
    };
    // Every reply passes one redactor: a credential the agent echoes back is gone before anything shows or
    // stores it (`echoed`).
    let transport: Box<dyn Transport> = Box::new(
        crate::remote::connect::echoed::RedactingTransport::new(transport),
    );
    let mut client = A2AClient::new(transport).with_interceptors(vec![spec.headers.clone()]);
    if let Some(tenant) = iface.tenant.as_deref().filter(|t| !t.is_empty()) {
        client = client.with_tenant(tenant);
    }
    Ok(client)
}

/// An HTTP+JSON base URL must parse (a card's URL is remote text).
fn rest_endpoint(
    http: reqwest::Client,
    url: &str,
    limits: WireLimits,
) -> Result<RestEndpoint, RemoteError> {
    url::Url::parse(url).map_err(|e| RemoteError::usage(format!("interface URL {url:?}: {e}")))?;
    Ok(RestEndpoint::new(http, url, limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(ifaces: &[(&str, &str, &str)]) -> AgentCard {
        let interfaces: Vec<serde_json::Value> = ifaces
            .iter()
            .map(|(u, b, v)| serde_json::json!({"url": u, "protocolBinding": b, "protocolVersion": v}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "name": "x", "description": "", "version": "1", "supportedInterfaces": interfaces,
            "capabilities": {}, "skills": []
        }))
        .unwrap()
    }

    #[test]
    fn prefers_v1_then_card_order() {
        let c = card(&[
            ("http://127.0.0.1:1/old", "JSONRPC", "0.3.0"),
            ("http://127.0.0.1:1/rest", "HTTP+JSON", "1.0"),
            ("http://127.0.0.1:1/rpc", "JSONRPC", "1.0"),
        ]);
        let s = select_interface(&c, Preferences::default()).unwrap();
        assert_eq!(s.interface.url, "http://127.0.0.1:1/rest");
        assert_eq!(s.protocol, ProtocolChoice::V1);
        let s = select_interface(
            &c,
            Preferences {
                binding: Some(Binding::JsonRpc),
                protocol: None,
            },
        )
        .unwrap();
        assert_eq!(s.interface.url, "http://127.0.0.1:1/rpc");
        let s = select_interface(
            &c,
            Preferences {
                binding: None,
                protocol: Some(ProtocolChoice::V03),
            },
        )
        .unwrap();
        assert_eq!(s.interface.url, "http://127.0.0.1:1/old");
    }

    #[test]
    fn v03_only_card_selects_03_and_unknown_bindings_are_skipped() {
        let c = card(&[
            ("http://127.0.0.1:1/x", "SLIMRPC", "1.0"),
            ("http://127.0.0.1:1/", "JSONRPC", "0.3.0"),
        ]);
        let s = select_interface(&c, Preferences::default()).unwrap();
        assert_eq!(s.protocol, ProtocolChoice::V03);
    }

    #[test]
    fn no_match_lists_what_is_offered() {
        let c = card(&[("http://127.0.0.1:1/rpc", "JSONRPC", "1.0")]);
        let err = select_interface(
            &c,
            Preferences {
                binding: Some(Binding::Grpc),
                protocol: None,
            },
        )
        .unwrap_err();
        assert!(err.message.contains("binding GRPC"), "{}", err.message);
        assert!(
            err.message
                .contains("JSONRPC 1.0 at http://127.0.0.1:1/rpc")
        );
    }
}
