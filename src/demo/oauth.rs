//! A tiny OAuth 2.0 device-authorization server (RFC 8628) for the demo agent, so the console's "approve by
//! signing in" path can be tried end to end without any outside service: the device is approved on the first
//! poll (there is no browser step in a demo), and the access token it issues is the demo's operator token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Form, Json};
use serde_json::json;

use super::DEMO_BEARER_TOKEN;

/// Device codes handed out, and how many times each was polled.
#[derive(Clone, Default)]
pub(crate) struct DeviceCodes(Arc<Mutex<HashMap<String, u32>>>);

pub(crate) const DEVICE_PATH: &str = "/oauth/device";
pub(crate) const TOKEN_PATH: &str = "/oauth/token";
pub(crate) const VERIFY_PATH: &str = "/oauth/verify";

/// `POST /oauth/device`: a device code and a user code.
pub(crate) async fn device(State((codes, base)): State<(DeviceCodes, String)>) -> Response {
    let device_code = format!("dc-{}", uuid::Uuid::new_v4().simple());
    if let Ok(mut m) = codes.0.lock() {
        m.insert(device_code.clone(), 0);
    }
    Json(json!({
        "device_code": device_code,
        "user_code": "DEMO-4242",
        "verification_uri": format!("{base}{VERIFY_PATH}"),
        "expires_in": 300,
        "interval": 1
    }))
    .into_response()
}

/// `POST /oauth/token`: `authorization_pending` once, then the operator token.
pub(crate) async fn token(
    State((codes, _)): State<(DeviceCodes, String)>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let error =
        |code: &str| (StatusCode::BAD_REQUEST, Json(json!({ "error": code }))).into_response();
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:device_code")
    {
        return error("unsupported_grant_type");
    }
    let Some(dc) = form.get("device_code") else {
        return error("invalid_request");
    };
    let polls = match codes.0.lock() {
        Ok(mut m) => match m.get_mut(dc) {
            Some(n) => {
                *n += 1;
                *n
            }
            None => return error("invalid_grant"),
        },
        Err(_) => return error("server_error"),
    };
    if polls < 2 {
        return error("authorization_pending");
    }
    Json(json!({ "access_token": DEMO_BEARER_TOKEN, "token_type": "Bearer", "expires_in": 3600, "scope": "operator" }))
        .into_response()
}

/// `GET /oauth/verify`: where a real server would ask the user to sign in.
pub(crate) async fn verify() -> &'static str {
    "a2a-console demo agent: in this demo the device is approved automatically; go back to the console.\n"
}
