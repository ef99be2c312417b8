//! Tests of both nets: registered secrets replaced in any text, and names and shapes blanked in audit JSON.

use super::*;

#[test]
fn registered_secrets_are_replaced_everywhere_in_a_text() {
    register_secret("s3cr3t-token-for-redact-test");
    let out = redact(
        "Authorization: Bearer s3cr3t-token-for-redact-test (again s3cr3t-token-for-redact-test)",
    );
    assert_eq!(
        out,
        format!("Authorization: Bearer {REDACTED} (again {REDACTED})")
    );
    // Short values are not worth garbling text for.
    register_secret("abc");
    assert_eq!(redact("abc abc"), "abc abc");
}

#[test]
fn secret_query_values_are_replaced_in_urls_inside_messages() {
    let msg =
        "error sending request for url (http://127.0.0.1:9/jsonrpc?tenant=t1&key=HUNTER2&x=1)";
    assert_eq!(
        redact(msg),
        format!(
            "error sending request for url (http://127.0.0.1:9/jsonrpc?tenant=t1&key={REDACTED}&x=1)"
        )
    );
    assert_eq!(
        redact("https://a.example/cb?code=abc123#frag"),
        format!("https://a.example/cb?code={REDACTED}#frag")
    );
    // A name the user configured for a query-string key.
    register_query_param("zz_redact_test_k");
    assert_eq!(
        redact("http://h/p?ZZ_REDACT_TEST_K=v4lue"),
        format!("http://h/p?ZZ_REDACT_TEST_K={REDACTED}")
    );
    // Ordinary parameters and text stay as they are.
    assert_eq!(
        redact("http://h/p?page=2&q=rust"),
        "http://h/p?page=2&q=rust"
    );
    assert_eq!(redact("a = b & c"), "a = b & c");
}

#[test]
fn the_log_writer_redacts_each_line() {
    use std::io::Write;
    register_secret("log-line-secret-value");
    let mut w = RedactingWriter(Vec::new());
    w.write_all(b"DEBUG hyper: GET /x?token=abcdef headers: log-line-secret-value\n")
        .unwrap();
    let text = String::from_utf8(w.0).unwrap();
    assert!(!text.contains("abcdef"), "{text}");
    assert!(!text.contains("log-line-secret-value"), "{text}");
}

#[test]
fn secret_headers_are_recognised_by_name() {
    assert!(is_secret_header("X-API-Key"));
    assert!(is_secret_header("X-Auth-Token"));
    assert!(!is_secret_header("X-Tenant"));
}

use serde_json::json;

const SECRETS: &[&str] = &[
    "s3cr3t-bearer",
    "cookie-value-42",
    "xapikey-999",
    "hunter2",
    "client-secret-abc",
    "refresh-xyz",
    "push-token-777",
    "basic-dXNlcjpwYXNz",
    "query-key-555",
    "userinfo-pw",
    "cred-blob",
    "session-id-1",
];

fn assert_clean(text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "secret {s:?} survived in {text}");
    }
}

#[test]
fn audit_names_split_into_words() {
    assert_eq!(words("X-API-Key"), ["x", "api", "key"]);
    assert_eq!(words("apiKey"), ["api", "key"]);
    assert_eq!(words("APIKey"), ["api", "key"]);
    assert_eq!(words("client_secret"), ["client", "secret"]);
    for n in [
        "Authorization",
        "proxy-authorization",
        "Cookie",
        "Set-Cookie",
        "X-API-Key",
        "x-goog-api-key",
        "apiKey",
        "access_token",
        "refreshToken",
        "accesstoken",
        "password",
        "client_secret",
        "credentials",
        "X-Auth-Token",
        "token",
    ] {
        assert!(is_sensitive_name(n), "{n} should be sensitive");
    }
    for n in [
        "content-type",
        "a2a-version",
        "messageId",
        "taskId",
        "tokenUrl",
        "authorizationUrl",
        "text",
        "author",
        "keyboard",
        "monkey",
        "statusCode",
        "code",
    ] {
        assert!(!is_sensitive_name(n), "{n} should not be sensitive");
    }
}

#[test]
fn audit_no_secret_survives_headers() {
    // Headers as the audit log stores them: a JSON object of name -> values.
    let red = redact_json(json!({
        "Authorization": ["Bearer s3cr3t-bearer"],
        "Cookie": ["sid=cookie-value-42"],
        "X-API-Key": ["xapikey-999"],
        "X-Custom": ["Basic basic-dXNlcjpwYXNz"],
        "A2A-Version": ["1.0"],
        "x-trace": ["abc"],
    }));
    let text = red.to_string();
    assert_clean(&text);
    assert_eq!(red["A2A-Version"], json!(["1.0"]));
    assert_eq!(red["Authorization"], REDACTED);
    assert_eq!(red["X-Custom"], json!([format!("Basic {REDACTED}")]));
    assert_eq!(red["x-trace"], json!(["abc"]));
}

#[test]
fn audit_no_secret_survives_json() {
    let v = json!({
        "method": "SendMessage",
        "headers": {"Authorization": ["Bearer s3cr3t-bearer"], "cookie": "cookie-value-42"},
        "headerPairs": [["X-API-Key", "xapikey-999"], ["Accept", "text/event-stream"]],
        "params": {
            "message": {"messageId": "m1", "parts": [{"text": "my password is in a field, not here"}]},
            "configuration": {"pushNotificationConfig": {
                "url": "https://hook.example/cb?api_key=query-key-555&x=1",
                "token": "push-token-777",
                "authentication": {"schemes": ["Bearer"], "credentials": "cred-blob"}
            }}
        },
        "oauth": {"client_secret": "client-secret-abc", "refresh_token": "refresh-xyz",
                  "tokenUrl": "https://auth.example/token"},
        "login": {"user": "bob", "password": "hunter2"},
        "proxy": "https://bob:userinfo-pw@proxy.example/",
        "sessionId": "session-id-1",
        "nested": [{"deeper": [{"Set-Cookie": "cookie-value-42"}]}],
        "authHeader": "Basic basic-dXNlcjpwYXNz"
    });
    let red = redact_json(v);
    let text = red.to_string();
    assert_clean(&text);
    // What is not a credential is kept, so the log stays useful.
    assert_eq!(red["method"], "SendMessage");
    assert_eq!(red["params"]["message"]["messageId"], "m1");
    assert_eq!(red["oauth"]["tokenUrl"], "https://auth.example/token");
    assert_eq!(red["login"]["user"], "bob");
    assert_eq!(red["headerPairs"][1][1], "text/event-stream");
    assert!(text.contains("x=1"), "{text}");
    // Prose that starts like a scheme is not a credential.
    for prose in [
        "Basic idea: keep it simple",
        "Token counts are high",
        "Bearer of news",
    ] {
        assert_eq!(redact_shapes(prose), prose);
    }
    assert_eq!(
        redact_shapes("token ghp_abcdefgh1234"),
        format!("token {REDACTED}")
    );
}
