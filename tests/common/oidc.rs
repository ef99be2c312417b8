//! The real OpenID provider for the sign-in tests (tests/peers/oidc_provider.mjs on oidc-provider 9.13.3)
//! and a person at its pages: a cookie-keeping HTTP client that follows redirects by hand, logs in and
//! consents (or aborts) on the provider's own dev interaction pages.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use url::Url;

/// The provider process and its addresses; killed on drop (and it exits when stdin closes).
pub struct Provider {
    child: Child,
    pub issuer: String,
    /// The protected agent: its card, `/whoami`, a JSON-RPC endpoint that checks the token.
    pub resource: String,
    /// A server on another port that counts the Authorization headers it receives (`/seen`).
    pub elsewhere: String,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn provider(args: &[&str]) -> Provider {
    let dir = super::peers_dir().join("oidc/node_modules/oidc-provider");
    assert!(
        dir.exists(),
        "oidc-provider is not installed at {}: run `bash tests/peers/install.sh`",
        dir.display()
    );
    let mut child = Command::new("node")
        .arg(super::repo().join("tests/peers/oidc_provider.mjs"))
        .args(args)
        .env("PEERS_DIR", super::peers_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start node");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the provider did not report its address within 60 s");
    let words: Vec<&str> = line.split_whitespace().collect();
    let issuer = words[3].to_string();
    let resource = words[5].to_string();
    let elsewhere = words[7].to_string();
    assert!(issuer.starts_with("http://127.0.0.1:"), "{line}");
    Provider {
        child,
        issuer,
        resource,
        elsewhere,
    }
}

/// The browser: a cookie jar, no automatic redirects.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// Follows redirects by hand from `url` until one leaves the provider (our redirect URI) or lands
/// on an interaction page; returns that address.
pub async fn follow(b: &reqwest::Client, issuer: &str, mut url: String) -> String {
    for _ in 0..10 {
        let r = b.get(&url).send().await.unwrap();
        let Some(loc) = r.headers().get("location") else {
            return url;
        };
        let next = Url::parse(&url)
            .unwrap()
            .join(loc.to_str().unwrap())
            .unwrap()
            .to_string();
        if !next.starts_with(issuer) || next.contains("/interaction/") {
            return next;
        }
        url = next;
    }
    panic!("too many redirects");
}

async fn post_form(b: &reqwest::Client, issuer: &str, url: &str, body: &str) -> String {
    let r = b
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let loc = r
        .headers()
        .get("location")
        .expect("a redirect after the form");
    let next = Url::parse(url)
        .unwrap()
        .join(loc.to_str().unwrap())
        .unwrap()
        .to_string();
    follow(b, issuer, next).await
}

/// A person at the provider: logs in as `user` and consents (or, with `consent = false`, aborts
/// on the consent page). Returns the address the provider finally redirects the browser to.
pub async fn person(issuer: &str, authorize_url: &Url, user: &str, consent: bool) -> String {
    let b = browser();
    let login = follow(&b, issuer, authorize_url.to_string()).await;
    assert!(
        login.contains("/interaction/"),
        "login page expected: {login}"
    );
    let after_login = post_form(
        &b,
        issuer,
        &login,
        &format!("prompt=login&login={user}&password=x"),
    )
    .await;
    assert!(
        after_login.contains("/interaction/"),
        "consent page expected: {after_login}"
    );
    if consent {
        post_form(&b, issuer, &after_login, "prompt=consent").await
    } else {
        follow(&b, issuer, format!("{after_login}/abort")).await
    }
}
