//! Server-Sent Events from a response body, in time linear in its size and memory bounded by its largest
//! event, with an idle bound and an overall deadline.
//!
//! The fields of each event (`data:`, `event:`, `id:`, comments, the BOM, the three line endings) are read by
//! `eventsource-stream`, which follows the HTML spec. It is not handed the raw chunks, though: it keeps its
//! input in a `String` and `split_off`s the rest after every line, which copies what follows the line each
//! time: O(lines × chunk) per chunk, and O(n²) for one large event that arrives in many chunks (it rescans it
//! from the start for a line end on each). So `LineSplitter` cuts the body into whole lines first: each byte
//! is scanned once for a line end, a line is handed on as a zero-copy slice, and the event-size limit is
//! checked before anything grows without bound. `eventsource-stream` then only ever holds one line.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use a2a::A2AError;
use bytes::{Bytes, BytesMut};
use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use tokio::time::Instant;

use super::http::seconds;
use super::{WireLimits, fault, human_size};
use crate::remote::card::reqwest_reason;

/// Why the splitter refused input.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The current event has grown past the limit.
    TooLarge,
    /// A line is not UTF-8; the rest of its event is skipped.
    NotUtf8,
}

/// Cuts a byte stream into SSE lines, each scanned once. Lines keep their own terminator, except a lone CR,
/// which becomes LF (so the field parser never has to wait for the next line to know a line has ended).
#[derive(Debug)]
pub struct LineSplitter {
    buf: BytesMut,
    /// How much of `buf` is known to hold no line end.
    scanned: usize,
    /// Bytes of the current event's complete lines.
    event_bytes: usize,
    max_event: usize,
    /// After a line that was not UTF-8: drop lines up to the end of that event.
    skipping: bool,
    /// After an event past the limit: nothing more comes out (the stream is given up).
    refused: bool,
    /// Whether the start of the body has been looked at for a byte-order mark.
    bom_checked: bool,
}

const BOM: &[u8] = b"\xef\xbb\xbf";

impl LineSplitter {
    pub fn new(max_event: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            scanned: 0,
            event_bytes: 0,
            max_event,
            skipping: false,
            refused: false,
            bom_checked: false,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.buf.extend_from_slice(chunk);
    }

    /// The next complete line, if the input holds one.
    pub fn next_line(&mut self) -> Option<Result<Bytes, FrameError>> {
        if self.refused {
            return None;
        }
        if !self.bom_checked {
            // `eventsource-stream` strips a leading BOM itself, but slices it as one byte and panics (it is
            // three), so it must never see one. Every leading BOM goes, not just the first: a second one would
            // reach it as the first character just the same.
            while self.buf.starts_with(BOM) {
                let _ = self.buf.split_to(BOM.len());
            }
            if self.buf.is_empty() || BOM.starts_with(&self.buf) {
                return None;
            }
            self.bom_checked = true;
        }
        loop {
            let found = memchr::memchr2(b'\n', b'\r', self.buf.get(self.scanned..)?)
                .map(|i| i + self.scanned);
            let Some(at) = found else {
                self.scanned = self.buf.len();
                if self.event_bytes + self.buf.len() > self.max_event {
                    return Some(Err(self.refuse()));
                }
                return None;
            };
            let (end, lone_cr) = match (self.buf.get(at), self.buf.get(at + 1)) {
                (Some(b'\r'), Some(b'\n')) => (at + 2, false),
                (Some(b'\r'), Some(_)) => (at + 1, true),
                // A CR at the very end: the next chunk says whether an LF follows it.
                (Some(b'\r'), None) => {
                    self.scanned = at;
                    return None;
                }
                _ => (at + 1, false),
            };
            let line = self.buf.split_to(end).freeze();
            self.scanned = 0;
            if at == 0 {
                // A blank line ends the event.
                self.event_bytes = 0;
                let was_skipping = std::mem::replace(&mut self.skipping, false);
                if was_skipping {
                    continue;
                }
                return Some(Ok(if lone_cr {
                    Bytes::from_static(b"\n")
                } else {
                    line
                }));
            }
            self.event_bytes += line.len();
            if self.event_bytes > self.max_event {
                return Some(Err(self.refuse()));
            }
            if self.skipping {
                continue;
            }
            let Some(content) = line.get(..at) else {
                continue;
            };
            if std::str::from_utf8(content).is_err() {
                self.skipping = true;
                return Some(Err(FrameError::NotUtf8));
            }
            return Some(Ok(if lone_cr {
                let mut l = BytesMut::with_capacity(at + 1);
                l.extend_from_slice(content);
                l.extend_from_slice(b"\n");
                l.freeze()
            } else {
                line
            }));
        }
    }

    fn refuse(&mut self) -> FrameError {
        self.refused = true;
        self.buf = BytesMut::new();
        FrameError::TooLarge
    }

    /// At the end of the body: whether an event was left unfinished (no blank line after it), and the bytes
    /// that finish it (the unterminated last line, if any, then the blank line). Servers do end streams
    /// that way; the event is delivered rather than dropped, and a cut one fails to decode visibly.
    pub fn finish(&mut self) -> Option<Bytes> {
        if self.skipping || self.refused {
            return None;
        }
        let rest = self.buf.split();
        if rest.is_empty() && self.event_bytes == 0 {
            return None;
        }
        if std::str::from_utf8(&rest).is_err() {
            return None;
        }
        let mut tail = BytesMut::with_capacity(rest.len() + 2);
        tail.extend_from_slice(&rest);
        tail.extend_from_slice(if rest.is_empty() { b"\n" } else { b"\n\n" });
        self.event_bytes = 0;
        Some(tail.freeze())
    }
}

/// One event's data (the `data:` lines joined), and whether it is the unfinished one at the end of the body.
#[derive(Debug)]
pub struct SseData {
    pub data: String,
    /// Its place in the stream, from 1.
    pub index: usize,
    pub unfinished: bool,
}

/// Counts shared between the line reader and the event decoder, for messages ("after 12 events").
#[derive(Default)]
struct Progress {
    events: AtomicUsize,
    flushed: AtomicBool,
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

struct Reader {
    body: ByteStream,
    splitter: LineSplitter,
    limits: WireLimits,
    /// When the overall deadline falls, if there is one.
    deadline: Option<Instant>,
    progress: Arc<Progress>,
    done: bool,
}

impl Reader {
    fn after(&self) -> String {
        match self.progress.events.load(Ordering::Relaxed) {
            1 => "after 1 event".to_string(),
            n => format!("after {n} events"),
        }
    }

    async fn next_line(&mut self) -> Option<Result<Bytes, A2AError>> {
        loop {
            match self.splitter.next_line() {
                Some(Ok(line)) => return Some(Ok(line)),
                Some(Err(FrameError::TooLarge)) => {
                    self.done = true;
                    return Some(Err(fault(format!(
                        "event larger than the limit ({}) {}; the stream was closed",
                        human_size(self.limits.max_event_bytes),
                        self.after()
                    ))));
                }
                Some(Err(FrameError::NotUtf8)) => {
                    return Some(Err(fault(format!(
                        "an event that is not UTF-8 text was skipped ({})",
                        self.after()
                    ))));
                }
                None => {}
            }
            if self.done {
                return None;
            }
            let idle_until = Instant::now() + self.limits.idle;
            let until = match self.deadline {
                Some(d) if d < idle_until => d,
                _ => idle_until,
            };
            match tokio::time::timeout_at(until, self.body.next()).await {
                Ok(Some(Ok(chunk))) => self.splitter.push(&chunk),
                Ok(Some(Err(e))) => {
                    self.done = true;
                    return Some(Err(fault(format!(
                        "connection closed mid-stream {} — {}",
                        self.after(),
                        reqwest_reason(&e)
                    ))));
                }
                Ok(None) => {
                    self.done = true;
                    let tail = self.splitter.finish()?;
                    self.progress.flushed.store(true, Ordering::Relaxed);
                    return Some(Ok(tail));
                }
                Err(_) if self.deadline.is_some_and(|d| Instant::now() >= d) => {
                    self.done = true;
                    return Some(Err(fault(format!(
                        "the stream's deadline of {} has passed {}; it was closed",
                        seconds(self.limits.overall.unwrap_or_default()),
                        self.after()
                    ))));
                }
                Err(_) => {
                    self.done = true;
                    return Some(Err(fault(format!(
                        "no event for {} (idle timeout) {}; the stream was closed",
                        seconds(self.limits.idle),
                        self.after()
                    ))));
                }
            }
        }
    }
}

/// The events of an SSE body, as their data. Errors (a line that is not UTF-8, a transport failure, an
/// idle or overall timeout, an event past the limit) come through as items; after one that ends the stream,
/// it ends. `started` is when the request was sent (the overall deadline counts from there).
pub fn events<S>(
    body: S,
    limits: WireLimits,
    started: Instant,
) -> BoxStream<'static, Result<SseData, A2AError>>
where
    S: Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
{
    let progress = Arc::new(Progress::default());
    let reader = Reader {
        body: Box::pin(body),
        splitter: LineSplitter::new(limits.max_event_bytes),
        limits,
        deadline: limits.overall.map(|d| started + d),
        progress: progress.clone(),
        done: false,
    };
    let lines = futures::stream::unfold(reader, |mut r| async move {
        let line = r.next_line().await?;
        Some((line, r))
    });
    lines
        .eventsource()
        .map(move |item| match item {
            Ok(ev) => {
                let index = progress.events.fetch_add(1, Ordering::Relaxed) + 1;
                Ok(SseData {
                    data: ev.data,
                    index,
                    unfinished: progress.flushed.load(Ordering::Relaxed),
                })
            }
            Err(EventStreamError::Transport(e)) => Err(e),
            Err(EventStreamError::Utf8(e)) => Err(fault(format!("SSE text is not UTF-8: {e}"))),
            Err(EventStreamError::Parser(e)) => Err(fault(format!("malformed SSE line: {e}"))),
        })
        .boxed()
}

/// How many events a stream delivered, for "connection closed … after N events" from a decoder that sees
/// the stream end without the end it expected.
pub fn count_label(n: usize) -> String {
    match n {
        1 => "1 event".to_string(),
        n => format!("{n} events"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn lines_of(splitter: &mut LineSplitter) -> Vec<Result<String, FrameError>> {
        std::iter::from_fn(|| splitter.next_line())
            .map(|r| r.map(|b| String::from_utf8(b.to_vec()).unwrap()))
            .collect()
    }

    #[test]
    fn lines_keep_lf_and_crlf_and_turn_a_lone_cr_into_lf() {
        let mut s = LineSplitter::new(1 << 20);
        s.push(b"data: a\n\ndata: b\r\n\r\ndata: c\rdata: d\r\r");
        assert_eq!(
            lines_of(&mut s),
            vec![
                Ok("data: a\n".into()),
                Ok("\n".into()),
                Ok("data: b\r\n".into()),
                Ok("\r\n".into()),
                Ok("data: c\n".into()),
                Ok("data: d\n".into()),
            ]
        );
        // The last CR waits: it may be the first half of a CRLF.
        s.push(b"x");
        assert_eq!(lines_of(&mut s), vec![Ok("\n".into())]);
    }

    #[test]
    fn a_line_split_anywhere_comes_out_whole_even_mid_character() {
        let text = "data: {\"t\":\"héllo ✓\"}\r\n\r\n".as_bytes();
        for cut in 0..text.len() {
            let mut s = LineSplitter::new(1 << 20);
            s.push(&text[..cut]);
            let mut got = lines_of(&mut s);
            s.push(&text[cut..]);
            got.extend(lines_of(&mut s));
            assert_eq!(
                got,
                vec![
                    Ok("data: {\"t\":\"héllo ✓\"}\r\n".into()),
                    Ok("\r\n".into())
                ],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn an_event_past_the_limit_is_refused_before_its_line_ends() {
        let mut s = LineSplitter::new(100);
        s.push(b"data: ");
        s.push(&[b'x'; 200]);
        assert_eq!(lines_of(&mut s), vec![Err(FrameError::TooLarge)]);
        // Many small lines add up too.
        let mut s = LineSplitter::new(100);
        for _ in 0..20 {
            s.push(b"data: 0123456789\n");
        }
        assert!(lines_of(&mut s).contains(&Err(FrameError::TooLarge)));
    }

    #[test]
    fn a_line_that_is_not_utf8_skips_its_event_only() {
        let mut s = LineSplitter::new(1 << 20);
        s.push(b"data: \xff\xfe\ndata: more\n\ndata: ok\n\n");
        assert_eq!(
            lines_of(&mut s),
            vec![
                Err(FrameError::NotUtf8),
                Ok("data: ok\n".into()),
                Ok("\n".into())
            ]
        );
    }

    #[test]
    fn finish_delivers_an_unterminated_last_event() {
        let mut s = LineSplitter::new(1 << 20);
        s.push(b"data: 1\n\ndata: 2");
        assert_eq!(lines_of(&mut s).len(), 2);
        assert_eq!(s.finish().as_deref(), Some(&b"data: 2\n\n"[..]));
        let mut s = LineSplitter::new(1 << 20);
        s.push(b"data: 1\n\n");
        lines_of(&mut s);
        assert_eq!(s.finish(), None);
    }

    fn body(
        chunks: Vec<&'static [u8]>,
    ) -> impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static {
        futures::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from_static(c))))
    }

    fn limits() -> WireLimits {
        WireLimits::new(Duration::from_secs(5))
    }

    async fn collect(
        s: BoxStream<'static, Result<SseData, A2AError>>,
    ) -> Vec<Result<String, String>> {
        s.map(|r| r.map(|d| d.data).map_err(|e| e.message))
            .collect()
            .await
    }

    #[tokio::test]
    async fn byte_order_marks_at_the_start_never_reach_the_field_parser() {
        // One BOM split over two chunks, then a second one: `eventsource-stream` would panic on either.
        let s = events(
            body(vec![b"\xef\xbb", b"\xbf\xef\xbb\xbfdata: a\n\n"]),
            limits(),
            Instant::now(),
        );
        assert_eq!(collect(s).await, vec![Ok("a".to_string())]);
    }

    #[tokio::test]
    async fn fields_are_read_per_the_html_spec() {
        let s = events(
            body(vec![
                b"\xef\xbb\xbf: comment\nevent: x\nid: 7\ndata: a\ndata:b\n\n",
                b"retry: 10\ndata:  c\r\n\r\n",
            ]),
            limits(),
            Instant::now(),
        );
        assert_eq!(
            collect(s).await,
            vec![Ok("a\nb".to_string()), Ok(" c".to_string())]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_stream_ends_with_the_idle_timeout() {
        let chunks = futures::stream::iter(vec![Ok(Bytes::from_static(b"data: 1\n\n"))])
            .chain(futures::stream::pending());
        let mut l = limits();
        l.idle = Duration::from_secs(30);
        let got = collect(events(chunks, l, Instant::now())).await;
        assert_eq!(got[0], Ok("1".to_string()));
        assert_eq!(
            got[1],
            Err("no event for 30 s (idle timeout) after 1 event; the stream was closed".into())
        );
        assert_eq!(got.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_lively_stream_still_ends_at_its_deadline() {
        let ticks = futures::stream::unfold(0u32, |n| async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Some((Ok(Bytes::from_static(b"data: t\n\n")), n + 1))
        });
        let mut l = limits();
        l.overall = Some(Duration::from_secs(10));
        let got = collect(events(ticks, l, Instant::now())).await;
        let last = got.last().cloned().unwrap().unwrap_err();
        assert!(
            last.starts_with("the stream's deadline of 10 s has passed after"),
            "{last}"
        );
        assert!(got.len() <= 11, "{}", got.len());
    }

    #[tokio::test]
    async fn an_unterminated_last_event_is_delivered_and_marked() {
        let mut s = events(
            body(vec![b"data: 1\n\ndata: {\"cut"]),
            limits(),
            Instant::now(),
        );
        let first = s.next().await.unwrap().unwrap();
        assert!(!first.unfinished);
        let last = s.next().await.unwrap().unwrap();
        assert_eq!(last.data, "{\"cut");
        assert!(last.unfinished);
        assert!(s.next().await.is_none());
    }
}
