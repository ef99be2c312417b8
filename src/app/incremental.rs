//! An artifact laid out as it arrives. The markdown renderer carries nothing from one source line to the next
//! but an open code fence, so every complete line outside a fence, and a fence once it closes, is laid out as
//! soon as it arrives, exactly as the finished artifact lays it out; only the unfinished tail (the last line,
//! an open fence) is drawn as the raw text it is. Each pass reads only what arrived since the last one, so an
//! artifact streamed in 10 000 chunks is read once, not 10 000 times, and completing it settles the tail
//! without moving a line already shown.

use a2a::PartContent;
use ratatui::text::{Line, Span};

use super::msg::Effect;
use super::parts::{Chrome, PartKind, PartView};
use super::task::{ArtifactView, RenderedBlock};
use crate::markup::json_view::JsonView;
use crate::markup::markdown::{LineParser, Settled, render_plain_code};
use crate::markup::styles::RenderStyles;

/// Largest artifact laid out; bigger ones stay plain text, drawn a screenful at a time.
pub const MAX_LAYOUT_BYTES: usize = 1024 * 1024;
/// Most parts an artifact still arriving is laid out with: each new part relabels every part header
/// ("part k/n"), so past this many the artifact is plain text until it completes, and is laid out once then.
pub const MAX_LIVE_PARTS: usize = 64;
/// Code-block keys are `key_base ^ n` with `n` below this (the artifact's index sits above it in the base).
const KEY_SPAN: u64 = 1 << 20;

/// How far an artifact's layout has read it.
#[derive(Debug, Default)]
pub struct Progress {
    /// `ArtifactView::rendered` holds what this progress laid out (else the next pass starts afresh).
    started: bool,
    /// What the last pass saw (text length, part count — what the headers are labelled with —, and whether it
    /// laid out every part as final): an unchanged artifact costs nothing.
    seen: (usize, usize, bool),
    /// Parts laid out for good; the part at this index is the one being read.
    done: usize,
    /// The part being read has its header, and its text is read from `read` (a line start, on line
    /// `read_line`); no line break lies between `read` and `scanned`.
    begun: bool,
    read: usize,
    read_line: usize,
    scanned: usize,
    /// Where the raw tail starts (the unfinished line, or the line that opened a fence still open), and its line.
    settled: usize,
    settled_line: usize,
    markdown: LineParser,
    /// The block the part's next lines go to (`None`: a new one).
    lines_block: Option<usize>,
    /// Code blocks queued for highlighting so far. Each gets a key of its own, also across a fresh layout, so
    /// a late answer for a block that is no longer there lands nowhere.
    keys: u64,
}

impl Progress {
    fn restart(&mut self) {
        *self = Progress {
            keys: self.keys,
            ..Progress::default()
        };
    }

    /// A view that replaces another keeps counting its code blocks' keys where the other stopped.
    pub fn continue_keys(&mut self, from: &Progress) {
        self.keys = self.keys.max(from.keys);
    }
}

impl ArtifactView {
    /// The end of the text drawn as it is under the laid-out lines while the artifact arrives (its unfinished
    /// line, a code fence still open); empty when the artifact is not laid out, or laid out whole.
    pub fn raw_tail(&self) -> &str {
        if self.rendered.is_none()
            || !self.progress.started
            || self.progress.settled >= self.text.len()
        {
            return "";
        }
        self.text
            .as_str()
            .and_then(|t| t.get(self.progress.settled..))
            .unwrap_or_default()
    }

    /// The lines of [`Self::raw_tail`] (as `str::lines` counts them), without reading it.
    pub fn raw_tail_lines(&self) -> usize {
        if self.raw_tail().is_empty() {
            return 0;
        }
        self.text
            .line_count()
            .saturating_sub(self.progress.settled_line)
    }
}

/// The shared state of one pass.
struct Pass<'a> {
    text: &'a str,
    styles: &'a RenderStyles,
    chrome: Chrome,
    key_base: u64,
    blocks: &'a mut Vec<RenderedBlock>,
    p: &'a mut Progress,
    fx: Vec<Effect>,
}

/// Lay out what arrived since the last pass: complete lines and closed fences of the part being read, and the
/// parts after it; all of it when the artifact is complete. Code blocks are queued for highlighting off the UI
/// thread (their keys start at `key_base`); `raw` is the artifact's wire parts (for a data part's JSON).
pub fn advance(
    a: &mut ArtifactView,
    raw: &[a2a::Part],
    styles: &RenderStyles,
    chrome: Chrome,
    key_base: u64,
) -> Vec<Effect> {
    let whole = a.complete;
    let of = a.parts.len();
    let ArtifactView {
        text,
        parts,
        rendered,
        progress: p,
        ..
    } = a;
    // Only an artifact in memory and under the limit is laid out (a spooled one is far over it).
    let Some(text) = text.as_str().filter(|t| t.len() <= MAX_LAYOUT_BYTES) else {
        *rendered = None;
        p.restart();
        return Vec::new();
    };
    if !whole && of > MAX_LIVE_PARTS {
        *rendered = None;
        p.restart();
        return Vec::new();
    }
    let now = (text.len(), of, whole);
    if p.started && rendered.is_some() && p.seen == now {
        return Vec::new();
    }
    // What was laid out cannot be extended when it was final (text arrived after it), when part headers appear
    // (a second part), or when it is gone.
    let (_, labelled, finished) = p.seen;
    if p.started && (finished || (labelled <= 1 && of > 1) || of < labelled || rendered.is_none()) {
        p.restart();
    }
    if !p.started {
        *rendered = Some(Vec::new());
        p.started = true;
    }
    let Some(blocks) = rendered.as_mut() else {
        return Vec::new();
    };
    // Headers say "part k/of" and each part's size: all change when parts are added, the growing one's with it.
    let relabel_from = if p.seen.1 == of { p.done } else { 0 };
    let mut s = Pass {
        text,
        styles,
        chrome,
        key_base,
        blocks,
        p,
        fx: Vec::new(),
    };
    while let Some(part) = parts.get_mut(s.p.done) {
        let last = s.p.done + 1 == of;
        if !s.part(part, raw, of, !last || whole) {
            break;
        }
        s.p.done += 1;
        s.p.begun = false;
    }
    for (k, part) in parts.iter().enumerate().skip(relabel_from) {
        if let Some(block) = part.header_block.and_then(|h| s.blocks.get_mut(h)) {
            block.lines = vec![Line::styled(part.header(k, of), chrome.label)];
        }
    }
    if s.p.done >= of {
        // Nothing is being read: nothing is drawn raw.
        s.p.settled = text.len();
        s.p.settled_line = newlines(text);
    }
    s.p.seen = now;
    s.fx
}

fn newlines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

impl Pass<'_> {
    /// Lay out what is new in part `k` (`self.p.done`); true when it is laid out for good.
    fn part(&mut self, part: &mut PartView, raw: &[a2a::Part], of: usize, last: bool) -> bool {
        let k = self.p.done;
        if !self.p.begun {
            self.p.begun = true;
            part.header_block = None;
            part.body_block = None;
            if of > 1 {
                part.header_block = Some(self.blocks.len());
                self.blocks.push(RenderedBlock {
                    key: None,
                    lines: vec![Line::styled(part.header(k, of), self.chrome.label)],
                });
            }
            self.p.read = part.range.start;
            self.p.scanned = part.range.start;
            self.p.read_line = part.first_line;
            self.p.settled = part.range.start;
            self.p.settled_line = part.first_line;
            self.p.lines_block = None;
            self.p.markdown = LineParser::default();
        }
        match part.kind {
            PartKind::Markdown | PartKind::Plain => {
                let markdown = part.kind == PartKind::Markdown;
                self.read_lines(part.range.end, markdown);
                if !last {
                    return false;
                }
                // The part is over: its last line needs no line break, and a fence still open shows its code.
                let rest = self
                    .text
                    .get(self.p.read..part.range.end)
                    .unwrap_or_default();
                if !rest.is_empty() {
                    self.line(rest, markdown);
                }
                if let Some(code) = self.p.markdown.finish() {
                    self.settle(code);
                }
                true
            }
            PartKind::Data => {
                if part.json.is_none()
                    && let Some(PartContent::Data(v)) = raw.get(part.raw).map(|p| &p.content)
                {
                    part.json = Some(JsonView::new(v.clone()));
                }
                if let Some(json) = &part.json {
                    part.body_block = Some(self.blocks.len());
                    self.blocks.push(RenderedBlock {
                        key: None,
                        lines: json.lines(self.styles),
                    });
                }
                true
            }
            // A lone file part is described in the artifact's header lines; among others, under its own.
            PartKind::File | PartKind::Url => {
                if let (true, Some(f)) = (of > 1, &part.file) {
                    self.blocks.push(RenderedBlock {
                        key: None,
                        lines: vec![Line::styled(PartView::file_line(f), self.chrome.label)],
                    });
                }
                true
            }
        }
    }

    /// Lay out the complete lines of the part being read, up to `end`; the tail moves past each line that
    /// settles (every line of plain text; a markdown line outside a code fence, or one that closes it).
    fn read_lines(&mut self, end: usize, markdown: bool) {
        let text = self.text;
        while let Some(nl) = text
            .get(self.p.scanned..end)
            .and_then(|s| memchr::memchr(b'\n', s.as_bytes()))
        {
            let line_end = self.p.scanned + nl;
            let raw = text.get(self.p.read..line_end).unwrap_or_default();
            // As `str::lines`: a CR before the LF is part of the line break.
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            self.p.read = line_end + 1;
            self.p.scanned = self.p.read;
            self.p.read_line += 1;
            self.line(raw, markdown);
            if !self.p.markdown.in_fence() {
                self.p.settled = self.p.read;
                self.p.settled_line = self.p.read_line;
            }
        }
        // The unfinished line is not searched again for a line break when more of it arrives.
        self.p.scanned = end.max(self.p.read);
    }

    fn line(&mut self, raw: &str, markdown: bool) {
        if markdown {
            if let Some(settled) = self.p.markdown.line(raw, self.styles) {
                self.settle(settled);
            }
        } else {
            let line = Line::from(Span::styled(raw.to_string(), self.chrome.text));
            self.push_line(line);
        }
    }

    fn settle(&mut self, settled: Settled) {
        match settled {
            Settled::Line(line) => self.push_line(line),
            Settled::Code { lang, code } => {
                let key = self.key_base ^ (self.p.keys % KEY_SPAN);
                self.p.keys += 1;
                self.blocks.push(RenderedBlock {
                    key: Some(key),
                    lines: render_plain_code(&code, self.styles),
                });
                self.fx.push(Effect::Highlight { key, lang, code });
                self.p.lines_block = None;
            }
        }
    }

    fn push_line(&mut self, line: Line<'static>) {
        match self.p.lines_block.and_then(|b| self.blocks.get_mut(b)) {
            Some(block) => block.lines.push(line),
            None => {
                self.p.lines_block = Some(self.blocks.len());
                self.blocks.push(RenderedBlock {
                    key: None,
                    lines: vec![line],
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use a2a::{Artifact, Part, StreamResponse, TaskArtifactUpdateEvent};

    use super::*;
    use crate::app::ids::AgentId;
    use crate::app::task::TaskTab;
    use crate::config::theme::Theme;

    /// The dark theme's styles, made once (a theme is parsed from its file).
    fn looks() -> (RenderStyles, Chrome) {
        static LOOKS: std::sync::OnceLock<(RenderStyles, Chrome)> = std::sync::OnceLock::new();
        *LOOKS.get_or_init(|| {
            let theme = Theme::builtin("dark").unwrap();
            let chrome = Chrome {
                label: theme.remote_label,
                text: theme.remote_text,
            };
            (crate::markup::styles::render_styles(&theme), chrome)
        })
    }

    fn update(parts: Vec<Part>, append: bool, last: bool) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t1".into(),
            context_id: "ctx".into(),
            artifact: Artifact {
                artifact_id: "a".into(),
                name: Some("story".into()),
                description: None,
                parts,
                metadata: None,
                extensions: None,
            },
            append: Some(append),
            last_chunk: Some(last),
            metadata: None,
        })
    }

    /// Feed one chunk and lay out what arrived, as `update` does after each event.
    fn feed(t: &mut TaskTab, ev: &StreamResponse, fx: &mut Vec<Effect>) {
        t.feed(ev);
        let raw = &t.log.artifacts[0].artifact.parts;
        let (styles, chrome) = looks();
        fx.extend(advance(&mut t.artifacts[0], raw, &styles, chrome, 0));
    }

    fn lines(a: &ArtifactView) -> Vec<Line<'static>> {
        a.rendered
            .iter()
            .flatten()
            .flat_map(|b| b.lines.clone())
            .collect()
    }

    fn highlights(fx: &[Effect]) -> Vec<(Option<String>, String)> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Highlight { lang, code, .. } => Some((lang.clone(), code.clone())),
                _ => None,
            })
            .collect()
    }

    /// The artifact holding these wire parts, arrived whole and laid out at once.
    fn whole(parts: Vec<Part>) -> (TaskTab, Vec<Effect>) {
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        let mut fx = Vec::new();
        feed(&mut t, &update(parts, false, true), &mut fx);
        (t, fx)
    }

    const SAMPLE: &str = "# Title\n\nSome **bold** and *em*, `code`.\n- one\n  - two [x](http://e.x)\n\
        > quote *q*\n```py\ndef f():\n\n    pass\n```\n1. first\n~~~\nopen `fence` never closed\nlast **line";

    #[test]
    fn streamed_in_chunks_of_any_size_the_text_lays_out_as_it_does_whole() {
        let (w, whole_fx) = whole(vec![Part::text(SAMPLE)]);
        let final_lines = lines(&w.artifacts[0]);
        let bounds: Vec<usize> = (0..=SAMPLE.len())
            .filter(|i| SAMPLE.is_char_boundary(*i))
            .collect();
        for size in 1..SAMPLE.len() {
            let mut t = TaskTab::new(1, AgentId(1), "demo");
            let mut fx = Vec::new();
            let mut at = 0;
            while at < SAMPLE.len() {
                let end = bounds
                    .iter()
                    .copied()
                    .find(|b| *b >= at + size)
                    .unwrap_or(SAMPLE.len());
                let piece = &SAMPLE[at..end];
                feed(
                    &mut t,
                    &update(vec![Part::text(piece)], at > 0, false),
                    &mut fx,
                );
                at = end;
                let a = &t.artifacts[0];
                let shown = lines(a);
                // What is laid out is what the finished artifact shows first, styles and all …
                assert_eq!(
                    final_lines.get(..shown.len()),
                    Some(&shown[..]),
                    "chunks of {size}, at {at}"
                );
                // … exactly the text before the raw tail, laid out whole; the tail is the rest, lines counted.
                let text = &SAMPLE[..at];
                let tail = a.raw_tail();
                assert!(text.ends_with(tail), "chunks of {size}, at {at}: {tail:?}");
                assert_eq!(a.raw_tail_lines(), tail.lines().count());
                let settled = &text[..text.len() - tail.len()];
                let (prefix, _) = whole(vec![Part::text(settled)]);
                assert_eq!(
                    lines(&prefix.artifacts[0]),
                    shown,
                    "chunks of {size}, at {at}"
                );
            }
            feed(&mut t, &update(vec![], true, true), &mut fx);
            assert!(t.artifacts[0].complete);
            assert_eq!(lines(&t.artifacts[0]), final_lines, "chunks of {size}");
            assert!(t.artifacts[0].raw_tail().is_empty());
            // Each code block is sent to the highlighter once, when it closes (the open one when it ends).
            assert_eq!(highlights(&fx), highlights(&whole_fx), "chunks of {size}");
        }
    }

    #[test]
    fn parts_added_while_streaming_end_as_the_whole_artifact_lays_them_out() {
        let events = [
            update(vec![Part::text("one **1**\ntw")], false, false),
            update(vec![Part::text("o\n```rust\nlet x")], true, false),
            update(
                vec![Part::data(serde_json::json!({"a": [1, 2], "b": "c"}))],
                true,
                false,
            ),
            update(
                vec![Part::text("plain *not markdown*\nmore").with_media_type("text/plain")],
                true,
                false,
            ),
            update(
                vec![Part::text(" of it\n").with_media_type("text/plain")],
                true,
                false,
            ),
            update(
                vec![Part::raw(b"PNG".to_vec()).with_filename("plot.png")],
                true,
                false,
            ),
            update(vec![Part::text("# after the file\n")], true, true),
        ];
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        let mut fx = Vec::new();
        for (i, ev) in events.iter().enumerate() {
            feed(&mut t, ev, &mut fx);
            let shown = lines(&t.artifacts[0]);
            assert!(!shown.is_empty(), "laid out from the first chunk on ({i})");
            if i >= 2 {
                // Each part under its header, the count in every header up to date.
                let n = t.artifacts[0].parts.len();
                let headers = shown
                    .iter()
                    .filter(|l| l.to_string().starts_with("── part "))
                    .filter(|l| l.to_string().contains(&format!("/{n} · ")))
                    .count();
                assert_eq!(headers, n, "{i}: {shown:?}");
            }
        }
        let raw = t.log.artifacts[0].artifact.parts.clone();
        let (w, whole_fx) = whole(raw);
        assert_eq!(lines(&t.artifacts[0]), lines(&w.artifacts[0]));
        assert_eq!(highlights(&fx), highlights(&whole_fx));
        let header_blocks = |a: &ArtifactView| -> Vec<_> {
            a.parts
                .iter()
                .map(|p| (p.header_block, p.body_block))
                .collect()
        };
        assert_eq!(
            header_blocks(&t.artifacts[0]),
            header_blocks(&w.artifacts[0])
        );
        assert!(!t.artifacts[0].files_in_head());
    }

    #[test]
    fn an_artifact_past_the_limits_is_plain_text_while_it_streams() {
        // Past the layout limit: plain text, now and once complete.
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        let mut fx = Vec::new();
        let line = "a **bold** line of a long artifact\n";
        let big = line.repeat(MAX_LAYOUT_BYTES / line.len() / 2 + 1);
        feed(
            &mut t,
            &update(vec![Part::text(&big)], false, false),
            &mut fx,
        );
        assert!(t.artifacts[0].rendered.is_some());
        feed(
            &mut t,
            &update(vec![Part::text(&big)], true, false),
            &mut fx,
        );
        feed(&mut t, &update(vec![Part::text(line)], true, true), &mut fx);
        assert!(t.artifacts[0].text.len() > MAX_LAYOUT_BYTES);
        assert!(t.artifacts[0].rendered.is_none());
        assert!(t.artifacts[0].raw_tail().is_empty());
        // Too many parts while it streams (each would relabel every header): plain text until it completes.
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        for i in 0..=MAX_LIVE_PARTS {
            let part = Part::data(serde_json::json!({ "n": i }));
            feed(&mut t, &update(vec![part], i > 0, false), &mut fx);
        }
        assert!(t.artifacts[0].rendered.is_none());
        feed(&mut t, &update(vec![], true, true), &mut fx);
        let raw = t.log.artifacts[0].artifact.parts.clone();
        let (w, _) = whole(raw);
        assert_eq!(lines(&t.artifacts[0]), lines(&w.artifacts[0]));
    }

    #[test]
    fn a_large_artifact_streamed_in_small_chunks_is_read_once() {
        // 4 000 chunks of 128 bytes (half a MiB), lines split across chunks. Laying out everything again on each
        // chunk reads a quarter of a MiB per chunk on average, a GiB in all; read once, it is half a MiB.
        let line =
            "- a list item with **bold**, *em* and `code` in it, long enough to cross the chunks\n";
        let text = line.repeat(4_000 * 128 / line.len());
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        let mut fx = Vec::new();
        let started = std::time::Instant::now();
        for (i, piece) in text.as_bytes().chunks(128).enumerate() {
            let piece = std::str::from_utf8(piece).unwrap();
            feed(
                &mut t,
                &update(vec![Part::text(piece)], i > 0, false),
                &mut fx,
            );
        }
        let took = started.elapsed();
        let shown = lines(&t.artifacts[0]);
        assert_eq!(shown.len(), text.lines().count(), "every line laid out");
        // Generous for a debug build on a shared machine (measured: 2 s, nearly all of it the gate taking the
        // 4 000 events; laid out again on each chunk, it took minutes).
        assert!(took < std::time::Duration::from_secs(15), "{took:?}");
    }
}
