//! The one-shot redirect listener of a native-app sign-in (RFC 8252 §7.3): a TCP listener on
//! 127.0.0.1 (never a wildcard address, so nothing off the machine can reach it), on a random port
//! unless the provider needs a registered one, which answers the browser's redirect and hands the
//! callback URL to whoever checks it ([`SignIn::check_redirect`](crate::remote::auth::oauth_code::SignIn)).
//!
//! It speaks just enough HTTP/1.1 for a browser's GET: the request head is read with a size and time
//! cap, the answer is a short `text/plain` page of our own words (the browser is told not to sniff it
//! as HTML, so a sanitised server message in it cannot become markup), and the connection is closed.
//! Requests for other paths (a browser's `/favicon.ico`) get a 404 and the listener keeps waiting;
//! the first request for the callback path ends the wait, whatever it holds: a wrong `state` fails
//! the sign-in rather than waiting on, because a redirect with a foreign state means another page is
//! driving this sign-in, and the user should start again knowingly.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use url::Url;

use crate::remote::auth::oauth::OAuthError;
use crate::remote::error::one_line;

/// The path the provider redirects to. Fixed, so a registered redirect URI can name it.
pub const CALLBACK_PATH: &str = "/callback";
/// A browser's request head is well under this; more is not a browser.
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// How long one connection may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// A bound listener, waiting to be handed the one redirect.
#[derive(Debug)]
pub struct RedirectListener {
    listener: TcpListener,
    redirect_uri: Url,
}

impl RedirectListener {
    /// Binds 127.0.0.1 on `port` (0 or `None`: a port the system picks).
    pub async fn bind(port: Option<u16>) -> Result<Self, OAuthError> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|e| OAuthError::Network {
                what: "redirect listener on 127.0.0.1",
                reason: one_line(&e.to_string()),
            })?;
        let port = listener
            .local_addr()
            .map_err(|e| OAuthError::Network {
                what: "redirect listener on 127.0.0.1",
                reason: one_line(&e.to_string()),
            })?
            .port();
        let redirect_uri =
            Url::parse(&format!("http://127.0.0.1:{port}{CALLBACK_PATH}")).map_err(|e| {
                OAuthError::InvalidUrl {
                    what: "redirect URI",
                    url: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
                    reason: e.to_string(),
                }
            })?;
        Ok(Self {
            listener,
            redirect_uri,
        })
    }

    /// `http://127.0.0.1:PORT/callback`: what the authorization request names as `redirect_uri`.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    pub fn port(&self) -> u16 {
        self.redirect_uri.port().unwrap_or(0)
    }

    /// Waits for the browser's request to the callback path and answers it with what `check` says
    /// about the full callback URL: `Ok` → "signed in, you may close this page", `Err` → the error's
    /// words. Returns `check`'s result; the listener is closed when this returns (dropped), also
    /// when `cancel` turns `true`.
    pub async fn wait<T>(
        self,
        check: impl Fn(&Url) -> Result<T, OAuthError>,
        mut cancel: watch::Receiver<bool>,
    ) -> Result<T, OAuthError> {
        loop {
            let accepted = tokio::select! {
                biased;
                () = cancelled(&mut cancel) => return Err(OAuthError::Cancelled),
                a = self.listener.accept() => a,
            };
            // A failed accept (a peer that reset at once) is that connection's problem only.
            let Ok((mut stream, _)) = accepted else {
                continue;
            };
            let target = match tokio::time::timeout(HEAD_TIMEOUT, read_target(&mut stream)).await {
                Ok(Ok(t)) => t,
                Ok(Err(status)) => {
                    respond(
                        &mut stream,
                        status,
                        "This is not a request the sign-in expects.",
                    )
                    .await;
                    continue;
                }
                Err(_) => continue,
            };
            let Ok(url) = self.redirect_uri.join(&target) else {
                respond(&mut stream, 400, "This address could not be read.").await;
                continue;
            };
            if url.path() != CALLBACK_PATH {
                respond(&mut stream, 404, "Not found.").await;
                continue;
            }
            let result = check(&url);
            match &result {
                Ok(_) => {
                    respond(
                        &mut stream,
                        200,
                        "a2a-console: signed in. You can close this page and return to the terminal.",
                    )
                    .await;
                }
                Err(e) => {
                    let text = format!("a2a-console: sign-in failed: {e}");
                    respond(&mut stream, 400, &text).await;
                }
            }
            return result;
        }
    }
}

/// Reads the request head and returns the request target of a `GET`, or the status to refuse with.
async fn read_target(stream: &mut TcpStream) -> Result<String, u16> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    loop {
        let n = stream.read(&mut buf).await.map_err(|_| 400u16)?;
        if n == 0 {
            return Err(400);
        }
        head.extend_from_slice(buf.get(..n).unwrap_or_default());
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(431);
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| 400u16)?;
    let line = text.lines().next().unwrap_or_default();
    let mut parts = line.split(' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("GET"), Some(target), Some(v)) if v.starts_with("HTTP/1.") => {
            if target.starts_with('/') {
                Ok(target.to_string())
            } else {
                Err(400)
            }
        }
        (Some(_), Some(_), Some(_)) => Err(405),
        _ => Err(400),
    }
}

async fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Bad Request",
    };
    let body = format!("{text}\n");
    let answer = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n\
         x-content-type-options: nosniff\r\ncache-control: no-store\r\n\
         referrer-policy: no-referrer\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // The browser may already be gone; the sign-in's outcome does not depend on this page.
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Resolves when `cancel` holds `true`; never, once the sender is gone.
async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    if cancel.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Sends raw bytes to the listener and returns its whole answer.
    async fn raw(port: u16, bytes: &[u8]) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        s.write_all(bytes).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn listens_on_loopback_only_and_ignores_what_is_not_a_callback() {
        let l = RedirectListener::bind(None).await.unwrap();
        let port = l.port();
        assert_eq!(
            l.redirect_uri().as_str(),
            format!("http://127.0.0.1:{port}/callback")
        );
        assert!(l.listener.local_addr().unwrap().ip().is_loopback());
        let (_tx, rx) = watch::channel(false);
        let wait = tokio::spawn(l.wait(
            |u| {
                u.query_pairs()
                    .find(|(k, _)| k == "code")
                    .map(|(_, v)| v.to_string())
                    .ok_or(OAuthError::WrongState)
            },
            rx,
        ));
        // A POST, a head that never ends within the cap, and another path: refused, still waiting.
        let post = raw(port, b"POST /callback HTTP/1.1\r\nHost: x\r\n\r\n").await;
        assert!(post.starts_with("HTTP/1.1 405"), "{post}");
        let mut huge = b"GET /callback?".to_vec();
        huge.extend(std::iter::repeat_n(b'a', MAX_HEAD_BYTES + 10));
        let big = raw(port, &huge).await;
        assert!(big.starts_with("HTTP/1.1 431"), "{big}");
        let other = raw(port, b"GET /favicon.ico HTTP/1.1\r\n\r\n").await;
        assert!(other.starts_with("HTTP/1.1 404"), "{other}");
        assert!(!wait.is_finished());
        // The callback: answered as plain text, never HTML, and the wait ends with its result.
        let ok = raw(port, b"GET /callback?code=abc&state=s HTTP/1.1\r\n\r\n").await;
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(
            ok.contains("content-type: text/plain; charset=utf-8"),
            "{ok}"
        );
        assert!(ok.contains("x-content-type-options: nosniff"), "{ok}");
        assert_eq!(wait.await.unwrap().unwrap(), "abc");
    }

    #[tokio::test]
    async fn cancel_closes_the_listener() {
        let l = RedirectListener::bind(None).await.unwrap();
        let port = l.port();
        let (tx, rx) = watch::channel(false);
        let wait = tokio::spawn(l.wait(|_| Ok(()), rx));
        tx.send(true).unwrap();
        assert!(matches!(wait.await.unwrap(), Err(OAuthError::Cancelled)));
        assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
    }
}
