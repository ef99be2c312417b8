//! Hostile HTTP servers on 127.0.0.1 written byte by byte: one that trickles its response headers (one line
//! every 2 s, never the blank line that ends them) and one whose chunked body never ends. Each counts the
//! connections it accepted, so a test can also prove that nothing connected.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How the server misbehaves.
#[derive(Clone, Copy, Debug)]
pub enum Misbehaviour {
    /// `HTTP/1.1 200 OK`, then one header line every 2 s, for ever.
    TrickleHeaders,
    /// Complete headers (`Transfer-Encoding: chunked`, JSON), then a one-byte chunk every second, for ever.
    EndlessChunks,
}

/// A running hostile server; dropped with the test's runtime.
pub struct Hostile {
    pub base: String,
    pub port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Hostile {
    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// Serve `how` on `ip` (a loopback address), answering every request the same way.
pub async fn serve_on(ip: &str, how: Misbehaviour) -> Hostile {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                // Read the request head (enough for GET and a small POST) before answering.
                let mut buf = vec![0u8; 16 * 1024];
                let mut seen = Vec::new();
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = misbehave(&mut sock, how).await;
            });
        }
    });
    Hostile {
        base: format!("http://{ip}:{port}"),
        port,
        accepted,
    }
}

/// `serve_on` 127.0.0.1.
pub async fn serve(how: Misbehaviour) -> Hostile {
    serve_on("127.0.0.1", how).await
}

async fn misbehave(sock: &mut tokio::net::TcpStream, how: Misbehaviour) -> std::io::Result<()> {
    match how {
        Misbehaviour::TrickleHeaders => {
            sock.write_all(b"HTTP/1.1 200 OK\r\n").await?;
            for i in 0.. {
                tokio::time::sleep(Duration::from_secs(2)).await;
                sock.write_all(format!("X-Slow-{i}: yes\r\n").as_bytes())
                    .await?;
            }
        }
        Misbehaviour::EndlessChunks => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n",
            )
            .await?;
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                sock.write_all(b"1\r\n \r\n").await?;
            }
        }
    }
    Ok(())
}

/// A plain server answering every request with `body` as JSON (a card, say), counting connections. For the
/// tests that need one well-behaved document beside a hostile one.
pub async fn json_on(ip: &str, body: String) -> Hostile {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    let body = Arc::new(body);
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            let body = body.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                let mut seen = Vec::new();
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
            });
        }
    });
    Hostile {
        base: format!("http://{ip}:{port}"),
        port,
        accepted,
    }
}
