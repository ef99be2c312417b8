//! Server-Sent Events from a response body, in time linear in its size and memory bounded by its largest
//! event, with an idle bound and an overall deadline.
//!
//! `LineSplitter` cuts the body into lines, scanning each byte once (memchr) and handing each line on as a
//! zero-copy slice, and checks the event-size limit before anything grows without bound; `EventFields` reads
//! the fields of each line as the HTML spec says (`data:` joined by LF, one leading space dropped, comments,
//! `event`/`id`/`retry` recognised and not needed here, a leading BOM dropped).
//!
//! Why not `eventsource-stream` (a dependency until this module): measured on a replayed 100,000-event stream
//! it took 24 % of the CLI's whole time, fed our lines (it copies each line twice, into a buffer it then
//! `split_off`s, and revalidates UTF-8); fed raw chunks, as it is meant to be, it is quadratic (`split_off`
//! after every line copies the rest of the chunk; a large event arriving in many chunks is rescanned from its
//! start for a line end on each); and it panics on a UTF-8 byte-order mark (it slices the three-byte BOM as
//! one byte), which a remote server chooses to send. The field rules are a dozen lines; they are tested here
//! on the spec's own examples and fuzzed.

use std::pin::Pin;

use a2a::A2AError;
use bytes::{Bytes, BytesMut};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use tokio::time::Instant;

use super::{WireLimits, fault, human_size};
use crate::remote::http::reqwest_reason;
use crate::remote::wire::http::seconds;

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
            // The spec drops one BOM at the start of the stream.
            if self.buf.starts_with(BOM) {
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

    /// At the end of the body: end the last line and the last event, so that an event the server did not
    /// finish with a blank line (servers do end streams that way) is delivered rather than dropped. A cut
    /// one then fails to decode, visibly.
    pub fn end(&mut self) {
        self.push(b"\n\n");
    }
}

/// The fields of SSE lines, per the HTML spec's "interpret the event stream": only the data buffer matters
/// here (A2A sends every event as the default `message` type and never uses `id` or `retry`).
#[derive(Debug, Default)]
pub struct EventFields {
    data: String,
    has_data: bool,
}

impl EventFields {
    /// Forget the event being read (its rest was skipped: a line of it was not UTF-8).
    pub fn discard(&mut self) {
        self.data.clear();
        self.has_data = false;
    }

    /// Take one line (terminator included, UTF-8 already checked); a blank line ends the event and returns
    /// its data if it had any.
    pub fn line(&mut self, line: &[u8]) -> Option<String> {
        let line = line
            .strip_suffix(b"\n")
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .unwrap_or(line);
        if line.is_empty() {
            if !self.has_data {
                return None;
            }
            self.has_data = false;
            let mut data = std::mem::take(&mut self.data);
            if data.ends_with('\n') {
                data.pop();
            }
            return Some(data);
        }
        let Ok(line) = std::str::from_utf8(line) else {
            return None;
        };
        let (field, value) = match line.split_once(':') {
            // A comment (keep-alives are sent this way).
            Some(("", _)) => return None,
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        if field == "data" {
            if self.data.is_empty() {
                // One allocation of the right size for the usual one-line event, not a doubling series.
                self.data.reserve(value.len() + 1);
            }
            self.data.push_str(value);
            self.data.push('\n');
            self.has_data = true;
        }
        None
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

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

struct Reader {
    body: ByteStream,
    splitter: LineSplitter,
    fields: EventFields,
    limits: WireLimits,
    /// When the overall deadline falls, if there is one.
    deadline: Option<Instant>,
    /// Events delivered so far.
    events: usize,
    /// The body has ended (what is left in the splitter was finished by `end`).
    ended: bool,
    done: bool,
}

impl Reader {
    fn after(&self) -> String {
        match self.events {
            1 => "after 1 event".to_string(),
            n => format!("after {n} events"),
        }
    }

    async fn next_event(&mut self) -> Option<Result<SseData, A2AError>> {
        loop {
            match self.splitter.next_line() {
                Some(Ok(line)) => {
                    if let Some(data) = self.fields.line(&line) {
                        self.events += 1;
                        return Some(Ok(SseData {
                            data,
                            index: self.events,
                            unfinished: self.ended,
                        }));
                    }
                    continue;
                }
                Some(Err(FrameError::TooLarge)) => {
                    self.done = true;
                    return Some(Err(fault(format!(
                        "event larger than the limit ({}) {}; the stream was closed",
                        human_size(self.limits.max_event_bytes),
                        self.after()
                    ))));
                }
                Some(Err(FrameError::NotUtf8)) => {
                    // The splitter skips the rest of the event; what was read of it must not run into the
                    // next one (found by fuzzing: two events' data merged past the size limit).
                    self.fields.discard();
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
                    self.ended = true;
                    self.splitter.end();
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
                    return Some(Err(super::idle_fault(format!(
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
    let reader = Reader {
        body: Box::pin(body),
        splitter: LineSplitter::new(limits.max_event_bytes),
        fields: EventFields::default(),
        limits,
        deadline: limits.overall.map(|d| started + d),
        events: 0,
        ended: false,
        done: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        let event = r.next_event().await?;
        Some((event, r))
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
    fn fields_follow_the_spec_including_its_edge_cases() {
        let run = |text: &str| -> Vec<String> {
            let mut f = EventFields::default();
            let mut s = LineSplitter::new(1 << 20);
            // No `end()`: the spec drops an event the stream did not finish (we deliver it, see `end`).
            s.push(text.as_bytes());
            std::iter::from_fn(|| s.next_line())
                .filter_map(|l| f.line(&l.unwrap()))
                .collect()
        };
        // The spec's examples (html.spec.whatwg.org, "Server-sent events", 9.2.6).
        assert_eq!(
            run("data: YHOO\ndata: +2\ndata: 10\n\n"),
            vec!["YHOO\n+2\n10"]
        );
        assert_eq!(
            run(
                ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
            ),
            vec!["first event", "second event", " third event"]
        );
        assert_eq!(run("data\n\ndata\ndata\n\ndata:\n"), vec!["", "\n"]);
        assert_eq!(run("data:test\n\ndata: test\n\n"), vec!["test", "test"]);
        // Other fields and unknown ones do not touch the data.
        assert_eq!(
            run("event: add\nretry: 10\nfoo: bar\ndata: 73857293\n\n"),
            vec!["73857293"]
        );
    }

    #[test]
    fn the_end_of_the_body_finishes_an_unterminated_last_event() {
        let mut s = LineSplitter::new(1 << 20);
        let mut f = EventFields::default();
        s.push(b"data: 1\n\ndata: 2");
        let mut got: Vec<String> = std::iter::from_fn(|| s.next_line())
            .filter_map(|l| f.line(&l.unwrap()))
            .collect();
        assert_eq!(got, vec!["1"]);
        s.end();
        got.extend(std::iter::from_fn(|| s.next_line()).filter_map(|l| f.line(&l.unwrap())));
        assert_eq!(got, vec!["1", "2"]);
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
        // One BOM split over two chunks is dropped (`eventsource-stream` panicked on it); a BOM anywhere else is
        // part of a field's name, as the spec says, so that line is an unknown field.
        let s = events(
            body(vec![b"\xef\xbb", b"\xbfdata: a\n\n\xef\xbb\xbfdata: b\n\n"]),
            limits(),
            Instant::now(),
        );
        assert_eq!(collect(s).await, vec![Ok("a".to_string())]);
        let s = events(
            body(vec![b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n"]),
            limits(),
            Instant::now(),
        );
        assert_eq!(collect(s).await, vec![Ok("b".to_string())]);
    }

    /// Found by fuzzing (`fuzz sse`): the data read of an event before a line that is not UTF-8 ran into the
    /// next event, merging the two (and past the size limit).
    #[tokio::test]
    async fn an_event_with_a_bad_line_is_dropped_whole_not_merged_into_the_next() {
        let s = events(
            body(vec![b"data: a\ndata: \xff\ndata: c\n\ndata: b\n\n"]),
            limits(),
            Instant::now(),
        );
        let got = collect(s).await;
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].as_ref().is_err_and(|e| e.contains("not UTF-8")));
        assert_eq!(got[1], Ok("b".to_string()));
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
