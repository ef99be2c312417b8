//! Tests for the highlighter: synchronous output, the worker's answers, superseding, cancelling,
//! shutdown and limits.

use std::collections::HashSet;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::*;

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn distinct_styles(lines: &[Line<'_>]) -> usize {
    lines
        .iter()
        .flat_map(|l| &l.spans)
        .map(|s| s.style)
        .collect::<HashSet<_>>()
        .len()
}

const RUST: &str = "// comment\nfn main() {\n\tlet x: u32 = 42;\n    println!(\"{x}\");\n}\n";
const JSON: &str = "{\n  \"name\": \"agent\",\n  \"n\": 3,\n  \"ok\": true\n}";

#[test]
fn rust_and_json_get_several_styles_and_keep_their_text() {
    for (lang, code) in [("rust", RUST), ("json", JSON)] {
        let lines = highlight_now(Some(lang), code, "dark");
        assert!(distinct_styles(&lines) > 1, "{lang}");
        let want: Vec<String> = code.lines().map(|l| l.replace('\t', "    ")).collect();
        assert_eq!(lines.iter().map(text).collect::<Vec<_>>(), want, "{lang}");
        // Foreground only: no background slab, no underline.
        for sp in lines.iter().flat_map(|l| &l.spans) {
            assert!(matches!(sp.style.fg, Some(Color::Rgb(..))));
            assert_eq!(sp.style.bg, None);
            assert!(!sp.style.add_modifier.contains(Modifier::UNDERLINED));
        }
    }
}

/// Code is readable on the background its scheme is chosen for: every highlighted colour has 4.5:1 against
/// white for the light console theme and against black for the dark ones, comments included.
#[test]
fn highlighted_code_reaches_wcag_aa_on_its_background() {
    use crate::config::contrast::{BLACK, MIN_TEXT_CONTRAST, WHITE, contrast};
    let samples = [
        ("rust", RUST),
        ("json", JSON),
        (
            "python",
            "# comment\ndef f(x: int) -> str:\n    return f\"{x}\" if x else None  # more\n",
        ),
        (
            "bash",
            "#!/bin/sh\n# c\nfor f in *; do echo \"$f\" > /dev/null; done\n",
        ),
        ("html", "<!-- c --><a href=\"x\" class='y'>t &amp; u</a>"),
        ("yaml", "# c\nkey: value\nlist: [1, true, ~]\n"),
    ];
    let mut failures = Vec::new();
    for (theme, bg) in [("light", WHITE), ("dark", BLACK)] {
        for (lang, code) in samples {
            for sp in highlight_now(Some(lang), code, theme)
                .iter()
                .flat_map(|l| &l.spans)
            {
                let Some(Color::Rgb(r, g, b)) = sp.style.fg else {
                    panic!("{theme} {lang}: {:?} has no colour", sp.content);
                };
                let ratio = contrast([r, g, b], bg);
                if ratio < MIN_TEXT_CONTRAST {
                    failures.push(format!(
                        "{theme} {lang}: {:?} in #{r:02x}{g:02x}{b:02x} is {ratio:.2}:1",
                        sp.content
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn aliases_and_case_are_understood() {
    for lang in ["RS", "Rust", "rs"] {
        assert!(distinct_styles(&highlight_now(Some(lang), RUST, "dark")) > 1);
    }
    let ts = "const x: number = 1; // c";
    assert!(distinct_styles(&highlight_now(Some("typescript"), ts, "dark")) > 1);
    assert!(distinct_styles(&highlight_now(Some("shell"), "echo \"$HOME\" # c", "dark")) > 1);
    // No tag, but a shebang.
    assert!(distinct_styles(&highlight_now(None, "#!/bin/sh\necho \"hi\" # c", "dark")) > 1);
}

#[test]
fn themes_differ_and_unknown_theme_falls_back() {
    let dark = highlight_now(Some("rust"), RUST, "dark");
    let light = highlight_now(Some("rust"), RUST, "light");
    assert_ne!(dark, light);
    assert_eq!(highlight_now(Some("rust"), RUST, "no-such-theme"), dark);
    assert_ne!(highlight_now(Some("rust"), RUST, "Solarized (dark)"), dark);
}

#[test]
fn unknown_language_and_oversized_blocks_are_plain() {
    let plain = |lines: &[Line<'_>]| {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .all(|s| s.style == Style::default())
    };
    let lines = highlight_now(Some("klingon"), "a\nb", "dark");
    assert!(plain(&lines));
    assert_eq!(lines.len(), 2);
    assert!(plain(&highlight_now(None, "just text", "dark")));

    let big = "let a = 1;\n".repeat(MAX_HIGHLIGHT_BYTES / 11 + 1);
    let lines = highlight_now(Some("rust"), &big, "dark");
    assert!(plain(&lines));
    assert_eq!(lines.len(), big.lines().count());

    let long_line = format!("let a = \"{}\";", "x".repeat(MAX_LINE_BYTES));
    assert!(plain(&highlight_now(Some("rust"), &long_line, "dark")));
}

#[test]
fn line_counts_match_the_plain_fallback() {
    let styles = crate::markup::styles::render_styles(
        &crate::config::theme::Theme::builtin("dark").unwrap(),
    );
    for code in ["", "a", "a\n", "a\n\nb", "a\r\nb\r\n", "\n\n"] {
        assert_eq!(
            highlight_now(Some("rust"), code, "dark").len(),
            crate::markup::markdown::render_plain_code(code, &styles).len(),
            "{code:?}"
        );
    }
}

#[test]
fn hostile_input_does_not_panic() {
    let mut x: u64 = 0x1234_5678_9abc_def1;
    let alphabet: Vec<char> = "{}[]\"'\\/*#<>!-\n\t é👍`$(".chars().collect();
    for lang in ["rust", "json", "html", "bash", "python", "yaml", "markdown"] {
        for _ in 0..20 {
            let code: String = (0..200)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            let lines = highlight_now(Some(lang), &code, "dark");
            assert_eq!(lines.len(), code.lines().count().max(1));
        }
    }
}

#[test]
fn cache_is_bounded() {
    let mut cache = Cache::default();
    let key = |i: usize, len: usize| CacheKey {
        lang: None,
        code_hash: i as u64,
        code_len: len,
        theme: "dark".into(),
    };
    for i in 0..CACHE_ENTRIES + 10 {
        cache.insert(key(i, 1), vec![Line::raw("x")]);
    }
    assert_eq!(cache.map.len(), CACHE_ENTRIES);
    assert!(cache.get(&key(0, 1)).is_none());
    assert!(cache.get(&key(CACHE_ENTRIES + 9, 1)).is_some());
    for i in 0..10 {
        cache.insert(key(1000 + i, CACHE_CODE_BYTES / 4), Vec::new());
    }
    assert!(cache.bytes <= CACHE_CODE_BYTES);
    assert_eq!(cache.map.len(), cache.order.len());
}

async fn next(rx: &mut UnboundedReceiver<HighlightDone>) -> Option<HighlightDone> {
    // Generous: the first request also loads the syntax set, in a debug build, on a busy machine.
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("the highlighter did not answer in time")
}

/// Big enough that it cannot finish between two back-to-back sends.
fn big_rust() -> String {
    "fn f() { let s = \"x\"; /* c */ }\n".repeat(20_000)
}

#[tokio::test]
async fn worker_answers_through_the_channel() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    h.request(1, Some("rust"), RUST.to_string());
    let done = next(&mut rx).await.unwrap();
    assert_eq!(done.key, 1);
    assert_eq!(done.lines, highlight_now(Some("rust"), RUST, "dark"));
    // Same code again: answered (from the cache) under the new key.
    h.request(2, Some("rust"), RUST.to_string());
    let again = next(&mut rx).await.unwrap();
    assert_eq!((again.key, again.lines), (2, done.lines));
}

#[tokio::test]
async fn newer_request_supersedes_older_one_with_the_same_key() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    h.request(7, Some("rust"), big_rust());
    h.request(7, Some("json"), JSON.to_string());
    let first = next(&mut rx).await.unwrap();
    assert_eq!(first.key, 7);
    assert_eq!(first.lines, highlight_now(Some("json"), JSON, "dark"));
    // Requests are served in order, so if the old one were still coming it would arrive first.
    h.request(8, Some("json"), "1".to_string());
    assert_eq!(next(&mut rx).await.unwrap().key, 8);
}

#[tokio::test]
async fn running_request_is_superseded_too() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    // Make sure the worker is busy with the big block before the replacement comes.
    h.request(1, Some("json"), "1".to_string());
    assert_eq!(next(&mut rx).await.unwrap().key, 1);
    h.request(7, Some("rust"), big_rust());
    std::thread::yield_now();
    h.request(7, Some("json"), JSON.to_string());
    let first = next(&mut rx).await.unwrap();
    assert_eq!(first.key, 7);
    assert_eq!(first.lines.len(), JSON.lines().count());
}

/// A theme switch: what is asked after it is highlighted for the new background (the cache keeps both), and
/// what was queued before it is dropped (the console asks again).
#[tokio::test]
async fn a_theme_switch_highlights_later_requests_for_the_new_background() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    h.request(1, Some("rust"), RUST.to_string());
    let dark = next(&mut rx).await.unwrap();
    assert_eq!(dark.lines, highlight_now(Some("rust"), RUST, "dark"));
    h.request(2, Some("rust"), big_rust());
    h.set_theme("light");
    h.request(3, Some("rust"), RUST.to_string());
    let light = next(&mut rx).await.unwrap();
    assert_eq!(
        light.key, 3,
        "the request queued before the switch is dropped"
    );
    assert_eq!(light.lines, highlight_now(Some("rust"), RUST, "light"));
    assert_ne!(light.lines, dark.lines);
}

#[tokio::test]
async fn cancelled_request_is_never_answered() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    h.request(9, Some("rust"), big_rust());
    h.cancel(9);
    h.request(10, Some("json"), JSON.to_string());
    assert_eq!(next(&mut rx).await.unwrap().key, 10);
}

#[tokio::test]
async fn worker_exits_when_the_highlighter_is_dropped() {
    let (tx, mut rx) = unbounded_channel();
    let h = Highlighter::spawn(tx, "dark");
    h.request(1, Some("rust"), big_rust());
    drop(h);
    // The worker owned the only sender; the channel closes once it has exited.
    assert!(next(&mut rx).await.is_none());
}

#[test]
fn queue_keeps_one_job_per_key_in_arrival_order() {
    let job = |key, code: &str| {
        Cmd::Request(Job {
            key,
            lang: None,
            code: code.into(),
        })
    };
    let mut q = Queue::default();
    assert!(!q.absorb(job(1, "a"), None));
    assert!(!q.absorb(job(2, "b"), None));
    assert!(!q.absorb(job(1, "c"), None));
    assert!(q.absorb(job(3, "d"), Some(3)));
    assert!(q.absorb(Cmd::Cancel(5), Some(5)));
    assert!(!q.absorb(Cmd::Cancel(2), None));
    let order: Vec<(u64, String)> =
        std::iter::from_fn(|| q.pop().map(|j| (j.key, j.code))).collect();
    assert_eq!(order, [(1, "c".to_string()), (3, "d".to_string())]);
}
