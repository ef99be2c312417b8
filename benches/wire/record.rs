//! The recordings the wire bench replays, kept under `target/bench-wire/` and made again when missing or
//! unusable: the demo agent's card, a real `flood 100000` SSE reply (JSON-RPC 1.0 `SendStreamingMessage`,
//! raw HTTP body bytes), a real `echo` reply, and from that one a stream whose single artifact event is
//! 20 MiB (its text part enlarged, the envelope still valid ProtoJSON).
//!
//! The recording request carries a JSON-RPC id nothing else could contain ([`RECORDED_ID`]), so the replay
//! server can find every envelope's id and answer with the id of the request it is serving.

use std::path::{Path, PathBuf};

use axum::body::Bytes;

/// The id of the recording requests; every recorded envelope carries it, serialized as JSON.
pub const RECORDED_ID: &str = "wire-bench-recorded-id";
/// Status updates in the flood.
pub const FLOOD_EVENTS: u64 = 100_000;
/// Size of the enlarged artifact's text part.
pub const BIG_TEXT_BYTES: usize = 20 * 1024 * 1024;
const CARD_FILE: &str = "card.json";
const FLOOD_FILE: &str = "flood-100k.sse";
const ECHO_FILE: &str = "echo.sse";
const BIG_FILE: &str = "artifact-20mb.sse";
/// What was sent to get the echo recording (the replay server ignores what clients send).
const ECHO_TEXT: &str = "echo the wire bench";

/// One recorded stream, ready to replay.
pub struct Recording {
    /// What the table calls it.
    pub name: &'static str,
    /// The message text a client sends to ask for it (what was sent when it was recorded).
    pub text: String,
    /// The whole SSE body, as it came off the wire (or, for the big one, as built from a recording).
    pub body: Bytes,
    /// SSE events in it (each has exactly one `data:` line, checked on load).
    pub events: u64,
}

/// The card and the three streams.
pub struct Recordings {
    /// The demo agent's public card (parsed), with the demo's base URL still in it.
    pub card: serde_json::Value,
    pub demo_base: String,
    pub flood: Recording,
    /// The small echo stream: the replay server's id-indifference check uses it.
    pub echo: Recording,
    pub big: Recording,
}

/// Where the recordings live: `$CARGO_TARGET_DIR/bench-wire`, else `target/bench-wire` in the crate.
pub fn dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("bench-wire")
}

/// Load the recordings from `dir`, recording from the embedded demo agent whatever is missing or unusable.
pub async fn load_or_record(dir: &Path) -> Recordings {
    std::fs::create_dir_all(dir).expect("create the recordings directory");
    if let Some(r) = load(dir) {
        println!("recordings: loaded from {}", dir.display());
        return r;
    }
    println!(
        "recordings: recording from the embedded demo agent into {}…",
        dir.display()
    );
    record_all(dir).await;
    load(dir).expect("the fresh recordings load")
}

fn load(dir: &Path) -> Option<Recordings> {
    let card_text = std::fs::read(dir.join(CARD_FILE)).ok()?;
    let stored: serde_json::Value = serde_json::from_slice(&card_text).ok()?;
    let flood = load_stream(
        dir,
        FLOOD_FILE,
        "flood 100k",
        &format!("flood {FLOOD_EVENTS}"),
    )?;
    let echo = load_stream(dir, ECHO_FILE, "echo", ECHO_TEXT)?;
    let big = load_stream(dir, BIG_FILE, "20 MB artifact", ECHO_TEXT)?;
    if flood.events <= FLOOD_EVENTS {
        eprintln!(
            "recordings: {FLOOD_FILE} holds only {} events",
            flood.events
        );
        return None;
    }
    let longest = big.body.split(|b| *b == b'\n').map(<[u8]>::len).max()?;
    if longest < BIG_TEXT_BYTES {
        eprintln!("recordings: {BIG_FILE} has no event of 20 MiB");
        return None;
    }
    Some(Recordings {
        card: stored.get("card")?.clone(),
        demo_base: stored.get("base")?.as_str()?.to_string(),
        flood,
        echo,
        big,
    })
}

/// A stream file, if it is whole: one `data:` line per event, the recorded id in every one, and the task
/// completed in the last.
fn load_stream(dir: &Path, file: &str, name: &'static str, text: &str) -> Option<Recording> {
    let body = Bytes::from(std::fs::read(dir.join(file)).ok()?);
    let events = data_lines(&body);
    let blocks = event_blocks(&body);
    let ids = memchr::memmem::find_iter(&body, &id_token()).count() as u64;
    let last = body
        .split(|b| *b == b'\n')
        .rfind(|l| l.starts_with(b"data:"))?;
    let completed = memchr::memmem::find(last, b"TASK_STATE_COMPLETED").is_some();
    if events == 0 || events != blocks || ids != events || !completed {
        eprintln!(
            "recordings: {file} is unusable ({events} data lines, {blocks} events, {ids} recorded ids, completed at the end: {completed})"
        );
        return None;
    }
    Some(Recording {
        name,
        text: text.to_string(),
        body,
        events,
    })
}

/// The recorded id as it appears in the envelopes.
pub fn id_token() -> Vec<u8> {
    serde_json::to_vec(RECORDED_ID).expect("id JSON")
}

/// Lines that start with `data:`.
pub fn data_lines(body: &[u8]) -> u64 {
    let mut counter = DataLines::default();
    counter.feed(body);
    counter.count
}

/// SSE events: blocks of lines ended by a blank line that hold at least one `data:` line.
fn event_blocks(body: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(body);
    text.replace("\r\n", "\n")
        .split("\n\n")
        .filter(|block| block.lines().any(|l| l.starts_with("data:")))
        .count() as u64
}

/// Counts lines starting with `data:` in a body fed chunk by chunk (a line may straddle two chunks).
pub struct DataLines {
    /// The last bytes of what was fed so far (at most the pattern's length minus one), after a virtual `\n`.
    tail: Vec<u8>,
    pub count: u64,
}

impl Default for DataLines {
    fn default() -> Self {
        Self {
            tail: b"\n".to_vec(),
            count: 0,
        }
    }
}

impl DataLines {
    const PATTERN: &[u8] = b"\ndata:";

    pub fn feed(&mut self, chunk: &[u8]) {
        // Matches that begin in the tail: look at the tail plus the chunk's first few bytes.
        let head = &chunk[..chunk.len().min(Self::PATTERN.len() - 1)];
        let mut seam = self.tail.clone();
        seam.extend_from_slice(head);
        self.count += memchr::memmem::find_iter(&seam, Self::PATTERN)
            .filter(|&i| i < self.tail.len())
            .count() as u64;
        self.count += memchr::memmem::find_iter(chunk, Self::PATTERN).count() as u64;
        // Keep the last bytes of everything fed, for the next seam.
        let keep = Self::PATTERN.len() - 1;
        seam.extend_from_slice(&chunk[head.len()..]);
        let start = seam.len().saturating_sub(keep);
        self.tail = seam.split_off(start);
    }
}

async fn record_all(dir: &Path) {
    let demo = a2a_console::demo::spawn(0).await.expect("demo agent");
    let base = demo.base_url();
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("http client");
    let (card, rpc_url) = crate::demo_card::demo_card(&http, &base).await;
    let stored = serde_json::json!({ "base": base, "card": card });
    write_atomic(&dir.join(CARD_FILE), stored.to_string().as_bytes());

    let t = std::time::Instant::now();
    let flood = stream(&http, &rpc_url, &format!("flood {FLOOD_EVENTS}")).await;
    println!(
        "  flood: {} events, {:.1} MB, in {:.2} s",
        data_lines(&flood),
        flood.len() as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    write_atomic(&dir.join(FLOOD_FILE), &flood);
    let echo = stream(&http, &rpc_url, ECHO_TEXT).await;
    write_atomic(&dir.join(ECHO_FILE), &echo);
    let big = enlarge_artifact(&echo);
    println!(
        "  echo: {} events; with its artifact enlarged: {:.1} MB",
        data_lines(&echo),
        big.len() as f64 / 1e6
    );
    write_atomic(&dir.join(BIG_FILE), &big);
    demo.shutdown().await;
}

/// The whole SSE body of one `SendStreamingMessage(text)`, with the id the replay server puts back.
async fn stream(http: &reqwest::Client, rpc_url: &str, text: &str) -> Bytes {
    crate::demo_card::record_stream(http, rpc_url, serde_json::json!(RECORDED_ID), text).await
}

/// The echo stream with its one artifact event's text part grown to [`BIG_TEXT_BYTES`]; every other event
/// (and the SSE framing around the enlarged one) kept byte for byte.
fn enlarge_artifact(echo: &[u8]) -> Bytes {
    let text = std::str::from_utf8(echo).expect("UTF-8 stream");
    let mut out = String::with_capacity(BIG_TEXT_BYTES + text.len() + 1024);
    let mut enlarged = 0;
    for line in text.split_inclusive('\n') {
        let Some(data) = line.strip_prefix("data:") else {
            out.push_str(line);
            continue;
        };
        let (payload, end) = match data.strip_suffix("\r\n") {
            Some(p) => (p, "\r\n"),
            None => data.strip_suffix('\n').map_or((data, ""), |p| (p, "\n")),
        };
        let lead = if payload.starts_with(' ') { " " } else { "" };
        let mut envelope: serde_json::Value =
            serde_json::from_str(payload.trim_start()).expect("envelope JSON");
        match envelope
            .pointer_mut("/result/artifactUpdate/artifact/parts/0/text")
            .and_then(|t| t.as_str().map(str::to_string).map(|s| (t, s)))
        {
            Some((slot, original)) => {
                *slot = serde_json::Value::String(big_text(&original));
                enlarged += 1;
                out.push_str("data:");
                out.push_str(lead);
                out.push_str(&serde_json::to_string(&envelope).expect("envelope JSON"));
                out.push_str(end);
            }
            None => out.push_str(line),
        }
    }
    assert_eq!(
        enlarged, 1,
        "the echo stream should hold exactly one artifact event with a text part"
    );
    Bytes::from(out)
}

/// `original`, then numbered lines of plain text up to exactly [`BIG_TEXT_BYTES`] bytes.
fn big_text(original: &str) -> String {
    let mut s = String::with_capacity(BIG_TEXT_BYTES + 128);
    s.push_str(original);
    s.push('\n');
    let mut n = 0u64;
    while s.len() < BIG_TEXT_BYTES {
        n += 1;
        s.push_str(&format!(
            "line {n:>7}: the quick brown fox jumps over the lazy dog, 0123456789.\n"
        ));
    }
    s.truncate(BIG_TEXT_BYTES);
    s
}

/// Write through a temporary file, so an interrupted run leaves no half recording behind.
fn write_atomic(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).expect("write a recording");
    std::fs::rename(&tmp, path).expect("move the recording into place");
}
