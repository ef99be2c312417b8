//! The demo agent's cards (public and extended) and the well-known endpoint that serves the public
//! one with `Cache-Control` and an `ETag` it honours on `If-None-Match`.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use a2a::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill,
    HttpAuthSecurityScheme, SecurityScheme, TRANSPORT_PROTOCOL_GRPC, TRANSPORT_PROTOCOL_HTTP_JSON,
    TRANSPORT_PROTOCOL_JSONRPC,
};
use axum::{
    body::Bytes,
    extract::State,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

use super::DEMO_BEARER_TOKEN;

/// Name of the card's one security scheme.
pub(crate) const BEARER_SCHEME: &str = "bearer";

/// How long clients may cache the card (§8.6).
const CARD_MAX_AGE: &str = "max-age=60";

/// Where the agent's interfaces live; the gRPC one is `host:port` (§5.8), the others full URLs.
pub(crate) struct Endpoints {
    pub base_url: String,
    pub jsonrpc_url: String,
    pub rest_url: String,
    pub grpc_addr: Option<String>,
}

/// One skill: id, name, description, tags, examples. The examples are the exact trigger text, so a
/// user can pick one and send it as is.
type SkillSpec = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// The public skills, one per scenario. Descriptions are read by people in the console's skill
/// list.
const SKILLS: &[SkillSpec] = &[
    (
        "echo",
        "Echo",
        "Repeats your text back as a text artifact and completes. Anything that doesn't start with one of the \
         other trigger words ends up here too.",
        &["basics", "text"],
        &["echo hello, agent"],
    ),
    (
        "stream",
        "Streaming story",
        "Writes a short markdown story as one artifact delivered in many small chunks, about 30 ms apart, so \
         you can watch it grow. Add a number to choose how many chunks (default 40, at most 10 000).",
        &["streaming", "artifacts", "markdown"],
        &["stream", "stream 200"],
    ),
    (
        "code",
        "Code and data",
        "Returns a markdown artifact with a heading, a list and a fenced Rust code block, plus a second \
         artifact holding structured JSON data.",
        &["markdown", "code", "json"],
        &["code"],
    ),
    (
        "file",
        "File parts",
        "Returns a small CSV report twice in one artifact: as inline bytes, and as a link to the same file \
         served by this agent. \"files\" returns three file parts in two artifacts instead (a source file \
         and a PNG, then a dotfile), to save any of them with S.",
        &["files", "csv"],
        &["file", "files"],
    ),
    (
        "ask",
        "Ask for input",
        "Asks for your name and waits for your answer (input required). Reply on the same task to finish; an \
         empty answer or \"?\" makes it ask again.",
        &["multi-turn", "input-required"],
        &["ask"],
    ),
    (
        "auth",
        "Needs authorization",
        "Pauses until you supply the operator token (auth required), either in a reply on the same task or as \
         an Authorization: Bearer header. Anything else keeps it waiting.",
        &["multi-turn", "auth-required", "security"],
        &["auth"],
    ),
    (
        "fail",
        "Fail on purpose",
        "Ends the task as failed, with a status message explaining why.",
        &["errors"],
        &["fail"],
    ),
    (
        "reject",
        "Reject the request",
        "Declines the request: the task ends as rejected, with the reason in a status message.",
        &["errors"],
        &["reject"],
    ),
    (
        "slow",
        "Slow job",
        "Works for a while and reports progress every second (default 120 seconds). Use it to try cancelling \
         a running task, or reconnecting to one.",
        &["long-running", "cancel"],
        &["slow", "slow 10"],
    ),
    (
        "hostile",
        "Hostile output",
        "Sends text built to attack a terminal and its user: escape sequences that clear the screen, write the \
         clipboard or disguise links, invisible and direction-changing characters, a prompt injection and a \
         fake approval prompt. A safe client shows all of it as inert text.",
        &["security", "terminal"],
        &["hostile"],
    ),
    (
        "big",
        "Large artifact",
        "Produces a large plain-text artifact in 256 KiB chunks. Add a number for the size in megabytes \
         (default 5, at most 64).",
        &["performance", "artifacts"],
        &["big", "big 32"],
    ),
    (
        "flood",
        "Status flood",
        "Sends a burst of status updates as fast as it can, then completes. Add a number for how many \
         (default 10 000, at most 1 000 000). Meant for benchmarking clients.",
        &["performance", "streaming"],
        &["flood", "flood 100000"],
    ),
    (
        "message",
        "Direct message",
        "Answers with a plain message instead of creating a task.",
        &["basics", "message"],
        &["message"],
    ),
];

fn skill((id, name, description, tags, examples): &SkillSpec) -> AgentSkill {
    AgentSkill {
        id: (*id).into(),
        name: (*name).into(),
        description: (*description).into(),
        tags: tags.iter().map(|t| (*t).into()).collect(),
        examples: Some(examples.iter().map(|e| (*e).into()).collect()),
        input_modes: None,
        output_modes: None,
        security_requirements: None,
    }
}

/// The public agent card.
pub(crate) fn public_card(endpoints: &Endpoints) -> AgentCard {
    // JSON-RPC first: the first interface is the preferred one (§8.3.2).
    let mut interfaces = vec![
        AgentInterface::new(&endpoints.jsonrpc_url, TRANSPORT_PROTOCOL_JSONRPC),
        AgentInterface::new(&endpoints.rest_url, TRANSPORT_PROTOCOL_HTTP_JSON),
    ];
    if let Some(grpc) = &endpoints.grpc_addr {
        interfaces.push(AgentInterface::new(grpc, TRANSPORT_PROTOCOL_GRPC));
    }
    let bearer = SecurityScheme::HttpAuth(HttpAuthSecurityScheme {
        scheme: "Bearer".into(),
        description: Some(format!(
            "Operator token. Needed only for the extended agent card and the 'auth' skill; everything else \
             works without it. For this demo the token is '{DEMO_BEARER_TOKEN}'."
        )),
        bearer_format: None,
    });
    // The same operator token, obtainable by signing in with the OAuth 2.0 device flow (RFC 8628) against the
    // demo's own tiny authorization server (`demo/oauth.rs`).
    let oauth = SecurityScheme::OAuth2(a2a::OAuth2SecurityScheme {
        flows: a2a::OAuthFlows::DeviceCode(a2a::DeviceCodeOAuthFlow {
            device_authorization_url: format!("{}/oauth/device", endpoints.base_url),
            token_url: format!("{}/oauth/token", endpoints.base_url),
            refresh_url: None,
            scopes: HashMap::from([("operator".to_owned(), "Run the protected step of the 'auth' skill".to_owned())]),
        }),
        description: Some("Sign in with the device flow to get the operator token (approved automatically in this demo).".into()),
        oauth2_metadata_url: None,
    });
    AgentCard {
        name: "a2a-console demo agent".into(),
        description: "A built-in agent for trying out a2a-console: each skill below is a scenario that exercises \
                      one part of the A2A protocol, from streaming and multi-turn input to cancellation, \
                      authentication and output that tries to attack your terminal."
            .into(),
        version: env!("CARGO_PKG_VERSION").into(),
        supported_interfaces: interfaces,
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: None,
            extended_agent_card: Some(true),
        },
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec![
            "text/plain".into(),
            "text/markdown".into(),
            "application/json".into(),
            "text/csv".into(),
        ],
        skills: SKILLS.iter().map(skill).collect(),
        provider: Some(AgentProvider {
            organization: "a2a-console".into(),
            url: endpoints.base_url.clone(),
        }),
        documentation_url: None,
        icon_url: None,
        security_schemes: Some(HashMap::from([
            (BEARER_SCHEME.to_owned(), bearer),
            ("operator-oauth".to_owned(), oauth),
        ])),
        // Two alternatives (OpenAPI semantics: any one suffices): no credentials at all, or the
        // bearer token. Listing the empty one first keeps ordinary calls anonymous while still
        // naming the scheme.
        security_requirements: Some(vec![
            HashMap::new(),
            HashMap::from([(BEARER_SCHEME.to_owned(), Vec::new())]),
            HashMap::from([("operator-oauth".to_owned(), vec!["operator".to_owned()])]),
        ]),
        signatures: None,
    }
}

/// The extended card: the public one plus the `operator-tools` skill, which only operators may see.
pub(crate) fn extended_card(public: &AgentCard) -> AgentCard {
    let mut card = public.clone();
    let mut operator = skill(&(
        "operator-tools",
        "Operator tools",
        "Listed only on the extended agent card, which you see after authenticating with the operator token — \
         so its presence tells you the console fetched the extended card. Its example runs the 'auth' scenario.",
        &["operator", "security"],
        &["auth"],
    ));
    operator.security_requirements = Some(vec![HashMap::from([(
        BEARER_SCHEME.to_owned(),
        Vec::new(),
    )])]);
    card.skills.push(operator);
    card
}

/// The serialised public card and its validator, computed once since the card never changes while
/// serving.
pub(crate) struct CardDocument {
    body: Bytes,
    etag: HeaderValue,
}

impl CardDocument {
    /// Serialises `card` as ProtoJSON, the same conversion the SDK uses for cards on its REST
    /// binding, so both routes describe the agent identically.
    pub(crate) fn new(card: &AgentCard, base_url: &str) -> anyhow::Result<Self> {
        let mut value = a2a_pb::protojson_conv::to_value(card)
            .map_err(|e| anyhow::anyhow!("cannot serialise the demo agent card: {e}"))?;
        // Signed as served, so the check runs over exactly these bytes (`demo/signing.rs`).
        super::signing::sign(&mut value, base_url)?;
        let body = Bytes::from(serde_json::to_vec_pretty(&value)?);
        // A content hash rather than the version (the SDK's choice) because the card embeds the
        // port, which changes between runs while the version does not.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut hasher);
        let etag = HeaderValue::from_str(&format!("\"{:016x}\"", hasher.finish()))?;
        Ok(CardDocument { body, etag })
    }
}

/// Whether an `If-None-Match` header list matches `etag`, using the weak comparison RFC 9110
/// §13.1.2 requires.
fn if_none_match_hits(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = etag.as_bytes();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/").as_bytes() == ours)
}

/// `GET /.well-known/agent-card.json` (and the legacy `agent.json`).
pub(crate) async fn serve_card(
    State(doc): State<Arc<CardDocument>>,
    headers: HeaderMap,
) -> Response {
    let cache = [
        (header::ETAG, doc.etag.clone()),
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static(CARD_MAX_AGE),
        ),
        // Public discovery document; browser-based tools may fetch it too.
        (
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        ),
    ];
    if if_none_match_hits(&headers, &doc.etag) {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    (
        StatusCode::OK,
        cache,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        doc.body.clone(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoints() -> Endpoints {
        Endpoints {
            base_url: "http://127.0.0.1:1".into(),
            jsonrpc_url: "http://127.0.0.1:1/jsonrpc".into(),
            rest_url: "http://127.0.0.1:1/rest".into(),
            grpc_addr: Some("127.0.0.1:2".into()),
        }
    }

    #[test]
    fn every_skill_has_examples_and_tags() {
        let card = public_card(&endpoints());
        assert_eq!(card.skills.len(), 13);
        for skill in &card.skills {
            assert!(!skill.tags.is_empty(), "{}", skill.id);
            assert!(
                skill.examples.as_ref().is_some_and(|e| !e.is_empty()),
                "{}",
                skill.id
            );
        }
    }

    #[test]
    fn extended_card_adds_operator_tools() {
        let public = public_card(&endpoints());
        let extended = extended_card(&public);
        assert!(!public.skills.iter().any(|s| s.id == "operator-tools"));
        assert!(extended.skills.iter().any(|s| s.id == "operator-tools"));
    }

    #[test]
    fn card_json_lists_jsonrpc_first_and_grpc_as_host_port() -> anyhow::Result<()> {
        let doc = CardDocument::new(&public_card(&endpoints()), "http://127.0.0.1:1")?;
        let json: serde_json::Value = serde_json::from_slice(&doc.body)?;
        let interfaces = &json["supportedInterfaces"];
        assert_eq!(interfaces[0]["protocolBinding"], "JSONRPC");
        assert_eq!(interfaces[0]["protocolVersion"], "1.0");
        assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
        assert_eq!(interfaces[2]["url"], "127.0.0.1:2");
        assert_eq!(
            json["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
            "Bearer"
        );
        Ok(())
    }

    #[test]
    fn if_none_match_uses_weak_comparison_and_lists() -> anyhow::Result<()> {
        let etag = HeaderValue::from_static("\"abc\"");
        let mut headers = HeaderMap::new();
        assert!(!if_none_match_hits(&headers, &etag));
        headers.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"x\", W/\"abc\""),
        );
        assert!(if_none_match_hits(&headers, &etag));
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"abcd\""));
        assert!(!if_none_match_hits(&headers, &etag));
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(if_none_match_hits(&headers, &etag));
        Ok(())
    }
}
