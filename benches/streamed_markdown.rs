//! What laying out a markdown artifact as it streams costs (issue 10, item 5): a 256 KiB markdown text (headings,
//! lists, quotes, inline markup, fenced code) streamed to a tab in chunks of 128 bytes and of 4 KiB, fed
//! through the task's gate as the console feeds it. Side by side, in one run, each the median of 3:
//!
//! - `feed only`: the chunks through `TaskTab::feed`, nothing laid out (the floor every mode pays);
//! - `at the end`: laid out once when the artifact completes (what the console did before: raw text until the
//!   end, then the whole block re-flowed);
//! - `as it arrives`: `app::incremental::advance` after every chunk (what it does now: each chunk read once);
//! - `afresh per chunk`: the whole text laid out again after every chunk (the naive way to render as it
//!   arrives, for comparison).
//!
//! Target: `as it arrives` within 2× of `at the end`, and far below `afresh per chunk`.
//! Run: `cargo bench --bench streamed_markdown` (release profile; a few seconds). No network.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a measurement binary: failing loudly is right

use std::time::{Duration, Instant};

use a2a_console::app::ids::AgentId;
use a2a_console::app::incremental::advance;
use a2a_console::app::parts::Chrome;
use a2a_console::app::task::TaskTab;
use a2a_console::config::theme::Theme;
use a2a_console::markup::styles::{RenderStyles, render_styles};
use a2a_console::testing::chunk;

const SIZE: usize = 256 * 1024;
const RUNS: usize = 3;

/// A markdown text of about `SIZE` bytes, with every construct the renderer knows.
fn story() -> String {
    let block = "## Chapter\n\nThe keeper counted the waves the way other people count sheep. Every seventh one \
        was **taller**, and every *seventy-seventh* carried `something`.\n\n- the lamp turned\n- the fog rolled \
        in\n  - and stayed\n\n> Keep the light burning, whatever answers.\n\n```rust\nfn main() {\n    \
        println!(\"hello\");\n}\n```\n\n1. first\n2. second [link](http://127.0.0.1/x)\n\n";
    block.repeat(SIZE / block.len() + 1)
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    FeedOnly,
    AtTheEnd,
    AsItArrives,
    AfreshPerChunk,
}

fn run(text: &str, size: usize, mode: Mode, styles: &RenderStyles, chrome: Chrome) -> Duration {
    let pieces: Vec<&str> = {
        let mut v = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            v.push(&text[at..end]);
            at = end;
        }
        v
    };
    let events: Vec<_> = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| chunk("t1", "story", p, i > 0, i + 1 == pieces.len()))
        .collect();
    let mut t = TaskTab::new(1, AgentId(1), "bench");
    let mut highlights = 0;
    let started = Instant::now();
    for ev in &events {
        t.feed(ev);
        let raw = &t.log.artifacts[0].artifact.parts;
        let a = &mut t.artifacts[0];
        match mode {
            Mode::FeedOnly => {}
            Mode::AtTheEnd if !a.complete => {}
            Mode::AtTheEnd | Mode::AsItArrives => {
                highlights += advance(a, raw, styles, chrome, 0).len();
            }
            Mode::AfreshPerChunk => {
                a.rendered = None;
                highlights += advance(a, raw, styles, chrome, 0).len();
            }
        }
    }
    let took = started.elapsed();
    assert!(mode == Mode::FeedOnly || t.artifacts[0].rendered.is_some());
    std::hint::black_box(highlights);
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let theme = Theme::builtin("dark").unwrap();
    let styles = render_styles(&theme);
    let chrome = Chrome {
        label: theme.remote_label,
        text: theme.remote_text,
    };
    let text = story();
    println!(
        "streamed markdown: {} KiB, median of {RUNS} runs",
        text.len() / 1024
    );
    for size in [128, 4096] {
        let time = |mode| {
            median(
                (0..RUNS)
                    .map(|_| run(&text, size, mode, &styles, chrome))
                    .collect(),
            )
        };
        let feed = time(Mode::FeedOnly);
        let end = time(Mode::AtTheEnd);
        let arrives = time(Mode::AsItArrives);
        let afresh = time(Mode::AfreshPerChunk);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  chunks of {size:>4} B ({} chunks): feed only {:8.1} ms · at the end {:8.1} ms · as it arrives {:8.1} ms · afresh per chunk {:9.1} ms",
            text.len().div_ceil(size),
            ms(feed),
            ms(end),
            ms(arrives),
            ms(afresh)
        );
        println!(
            "    layout alone (minus feed): at the end {:.1} ms, as it arrives {:.1} ms ({:.2}×), afresh per chunk {:.1} ms ({:.0}× as it arrives)",
            ms(end.saturating_sub(feed)),
            ms(arrives.saturating_sub(feed)),
            ms(arrives.saturating_sub(feed)) / ms(end.saturating_sub(feed)).max(0.001),
            ms(afresh.saturating_sub(feed)),
            ms(afresh.saturating_sub(feed)) / ms(arrives.saturating_sub(feed)).max(0.001),
        );
    }
}
