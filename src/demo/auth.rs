//! The demo's one credential: the operator bearer token, how requests are checked for it, and the
//! HTTP guard that answers an unauthenticated extended-card request with 401.

use a2a::{
    A2AError, AgentCard, JsonRpcError, JsonRpcId, JsonRpcResponse, TypedDetail, errordetails,
};
use a2a_server::ServiceParams;
use axum::{
    Json,
    body::Body,
    extract::Request,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use super::DEMO_BEARER_TOKEN;

/// JSON-RPC code for "no valid credentials". A2A 1.0 defines none (§5.4 leaves auth to the
/// transport), so this borrows a2a-go's `ErrUnauthenticated` code, the only SDK that assigns one.
pub(crate) const UNAUTHENTICATED_CODE: i32 = -31401;

/// The `reason` put into the ErrorInfo of an authentication failure, as a2a-go does.
const UNAUTHENTICATED_REASON: &str = "UNAUTHENTICATED";

/// What a caller has to do to see the extended card; shown to users, so it says how to fix it.
const NEED_TOKEN: &str = "the extended agent card needs the operator token: send \
     'Authorization: Bearer <token>' (security scheme 'bearer' in the agent card)";

/// `WWW-Authenticate` challenge (RFC 6750 §3) for a request that carried no bearer token at all.
const CHALLENGE: &str = "Bearer realm=\"a2a-console demo agent\"";

/// The challenge for a request whose bearer token was wrong.
const CHALLENGE_INVALID: &str = "Bearer realm=\"a2a-console demo agent\", error=\"invalid_token\"";

/// Whether one `Authorization` header value is `Bearer <the demo token>`. The scheme is
/// case-insensitive (RFC 9110 §11.1); the token is not.
pub(crate) fn is_operator_authorization(value: &str) -> bool {
    let mut parts = value.trim().splitn(2, ' ');
    let scheme = parts.next().unwrap_or_default();
    let token = parts.next().unwrap_or_default().trim();
    scheme.eq_ignore_ascii_case("bearer") && token == DEMO_BEARER_TOKEN
}

/// Whether the service parameters of a call (HTTP headers or gRPC metadata, keys lower-cased by the
/// SDK) carry the operator token.
pub(crate) fn params_have_operator_token(params: &ServiceParams) -> bool {
    params
        .get(header::AUTHORIZATION.as_str())
        .is_some_and(|values| values.iter().any(|v| is_operator_authorization(v)))
}

/// Whether an HTTP request carries the operator token.
fn headers_have_operator_token(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(is_operator_authorization)
}

/// The SDK's hook for the extended card (§12.4): hand it out only to callers with the operator
/// token.
///
/// The HTTP guards below already answer unauthenticated JSON-RPC and REST requests with a proper
/// 401, so this check is what protects the gRPC binding, and a second line of defence for the
/// others.
pub(crate) fn extended_card_resolver(
    card: AgentCard,
) -> impl Fn(&ServiceParams) -> Result<AgentCard, A2AError> + Send + Sync + 'static {
    move |params: &ServiceParams| {
        if params_have_operator_token(params) {
            Ok(card.clone())
        } else {
            Err(A2AError::new(UNAUTHENTICATED_CODE, NEED_TOKEN))
        }
    }
}

/// The ErrorInfo detail of an authentication failure.
fn unauthenticated_info() -> TypedDetail {
    TypedDetail::error_info(UNAUTHENTICATED_REASON, errordetails::PROTOCOL_DOMAIN, None)
}

/// Adds the 401 status and challenge to an error body.
fn with_challenge(body: Response, had_token: bool) -> Response {
    let challenge = if had_token {
        CHALLENGE_INVALID
    } else {
        CHALLENGE
    };
    let mut response = (StatusCode::UNAUTHORIZED, body).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    response
}

/// Guard in front of the SDK's JSON-RPC router: a `GetExtendedAgentCard` call without the operator
/// token gets HTTP 401 with a JSON-RPC error body.
///
/// Why not leave it to the resolver: the SDK turns any error code it doesn't know into an ErrorInfo
/// with reason `INTERNAL_ERROR` (a2a-lf errors.rs `error_reason`), and its client then rewrites the
/// code to -32603, so a client could not tell "log in" from "server broke". Here the envelope keeps
/// -31401 / `UNAUTHENTICATED`, and the status code tells HTTP-aware clients the same thing.
pub(crate) async fn guard_jsonrpc(request: Request, next: Next) -> Response {
    if headers_have_operator_token(request.headers()) {
        return next.run(request).await;
    }
    let had_token = request.headers().contains_key(header::AUTHORIZATION);
    let (parts, body) = request.into_parts();
    // The SDK router enforces the same limit; buffering here just happens one layer earlier.
    let bytes = match axum::body::to_bytes(body, a2a_server::jsonrpc::MAX_REQUEST_BODY_BYTES).await
    {
        Ok(bytes) => bytes,
        Err(_) => return (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response(),
    };
    // Only parse bodies that could be the call in question, so ordinary traffic is not decoded
    // twice.
    if contains(&bytes, b"GetExtendedAgentCard")
        && let Ok(value) = serde_json::from_slice::<Value>(&bytes)
        && value.get("method").and_then(Value::as_str)
            == Some(a2a::jsonrpc::methods::GET_EXTENDED_AGENT_CARD)
    {
        let id = value
            .get("id")
            .cloned()
            .and_then(|id| serde_json::from_value::<JsonRpcId>(id).ok())
            .unwrap_or(JsonRpcId::Null);
        let error = JsonRpcError {
            code: UNAUTHENTICATED_CODE,
            message: NEED_TOKEN.into(),
            data: Some(json!([unauthenticated_info()])),
        };
        let body = Json(JsonRpcResponse::error(id, error)).into_response();
        return with_challenge(body, had_token);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Guard in front of the SDK's REST router: `GET /extendedAgentCard` (and the SDK's legacy alias)
/// without the operator token gets HTTP 401 with a google.rpc.Status body (§11.6), which the SDK
/// cannot produce itself because A2A has no error code for it.
pub(crate) async fn guard_rest(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let is_extended_card =
        path.ends_with("/extendedAgentCard") || path.ends_with("/agent-card/extended");
    if !is_extended_card || headers_have_operator_token(request.headers()) {
        return next.run(request).await;
    }
    let had_token = request.headers().contains_key(header::AUTHORIZATION);
    let body = Json(json!({
        "error": {
            "code": 401,
            "status": "UNAUTHENTICATED",
            "message": NEED_TOKEN,
            "details": [unauthenticated_info()],
        }
    }))
    .into_response();
    with_challenge(body, had_token)
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_scheme_is_case_insensitive_but_token_is_exact() {
        assert!(is_operator_authorization("Bearer demo-secret"));
        assert!(is_operator_authorization("bearer  demo-secret "));
        assert!(!is_operator_authorization("Bearer Demo-Secret"));
        assert!(!is_operator_authorization("Basic demo-secret"));
        assert!(!is_operator_authorization("demo-secret"));
    }

    #[test]
    fn service_params_are_checked_under_the_lowercase_key() {
        let mut params = ServiceParams::new();
        assert!(!params_have_operator_token(&params));
        params.insert(
            "authorization".into(),
            vec!["Bearer nope".into(), "Bearer demo-secret".into()],
        );
        assert!(params_have_operator_token(&params));
    }
}
