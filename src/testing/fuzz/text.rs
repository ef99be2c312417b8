//! Targets for the text decoders: the sanitiser and flagger, light markdown and the JSON view. The oracle
//! for "clean" ([`check_clean`]) is written out here on its own rather than reusing the sanitiser's
//! classifier, so a mistake there cannot hide itself.

use std::fmt::Write as _;

use ratatui::text::Line;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::ensure;
use crate::config::theme::Theme;
use crate::markup::json_view::{JsonView, MAX_INDENT_LEVELS};
use crate::markup::markdown::{self, Block, MAX_LANG_CHARS, RULE_WIDTH};
use crate::markup::styles::render_styles;
use crate::trust::flags::FlagKind;
use crate::trust::sanitize::{
    Findings, MAX_COMBINING, sanitize_bytes, sanitize_line, sanitize_text,
};

/// Whether text may hold line breaks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    Many,
    One,
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Default_Ignorable_Code_Point (Unicode 16) less the variation selectors, plus the Hangul fillers and the
/// interlinear annotation characters: what a terminal draws as nothing.
fn is_invisible(c: char) -> bool {
    !is_variation_selector(c)
        && matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180E}'
            | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2065}' | '\u{206A}'..='\u{206F}' | '\u{3164}'
            | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// What must hold for anything we draw: no control character (a line break only where lines are allowed),
/// no bidi control, nothing invisible, no two variation selectors in a row, at most [`MAX_COMBINING`]
/// zero-width characters stacked.
pub fn check_clean(s: &str, lines: Lines) -> Result<(), String> {
    let mut run = 0usize;
    let mut prev_vs = false;
    for (i, c) in s.char_indices() {
        let at = || format!("{:?} at byte {i} of {}", c, preview(s));
        ensure(
            !(c.is_control() && !(c == '\n' && lines == Lines::Many)),
            || format!("raw control character {}", at()),
        )?;
        ensure(!is_bidi_control(c), || format!("raw bidi control {}", at()))?;
        ensure(!is_invisible(c), || {
            format!("raw invisible character {}", at())
        })?;
        ensure(
            lines == Lines::Many || !matches!(c, '\u{2028}' | '\u{2029}'),
            || format!("line separator in a single line {}", at()),
        )?;
        let vs = is_variation_selector(c);
        ensure(!(vs && prev_vs), || {
            format!("two variation selectors in a row {}", at())
        })?;
        prev_vs = vs;
        run = if vs || c.width() == Some(0) {
            run + 1
        } else {
            0
        };
        ensure(run <= MAX_COMBINING, || {
            format!(
                "more than {MAX_COMBINING} zero-width characters stacked {}",
                at()
            )
        })?;
    }
    Ok(())
}

/// The input cut to something readable in a failure message.
fn preview(s: &str) -> String {
    let mut p: String = s.chars().take(80).collect();
    if p.len() < s.len() {
        p.push('…');
    }
    format!("{p:?}")
}

fn nothing_neutralised(f: &Findings) -> bool {
    f.escapes == 0 && f.controls == 0 && f.hidden == 0 && f.bidi == 0 && f.truncated_combining == 0
}

/// Counts and flags tell the same story: a kind is flagged exactly when sanitising counted it.
fn check_findings(f: &Findings) -> Result<(), String> {
    let pairs = [
        (f.escapes, FlagKind::EscapeSequence),
        (f.controls, FlagKind::ControlCharacter),
        (f.hidden, FlagKind::HiddenCharacter),
        (f.bidi, FlagKind::BidiOverride),
        (f.truncated_combining, FlagKind::CombiningFlood),
        (f.invalid_utf8, FlagKind::InvalidUtf8),
    ];
    for (n, kind) in pairs {
        let flagged = f.flags.iter().any(|fl| fl.kind == kind);
        ensure(flagged == (n > 0), || {
            format!("{} counted {n} times but flagged {flagged}", kind.label())
        })?;
    }
    for fl in &f.flags {
        // Reasons quote remote words and are drawn as they are.
        check_clean(&fl.reason, Lines::One).map_err(|e| format!("flag reason: {e}"))?;
        ensure(sanitize_line(&fl.reason).0 == fl.reason, || {
            format!(
                "flag reason changes when sanitised: {}",
                preview(&fl.reason)
            )
        })?;
    }
    Ok(())
}

/// Sanitised output is clean and a fixed point: sanitising it again changes nothing and finds nothing.
fn check_sanitised(out: &str, f: &Findings, lines: Lines) -> Result<(), String> {
    check_clean(out, lines)?;
    check_findings(f)?;
    let (again, f2) = match lines {
        Lines::Many => sanitize_text(out),
        Lines::One => sanitize_line(out),
    };
    ensure(again == out, || {
        format!(
            "not stable when re-sanitised: {} became {}",
            preview(out),
            preview(&again)
        )
    })?;
    ensure(nothing_neutralised(&f2), || {
        format!("re-sanitising {} still found {f2:?}", preview(out))
    })
}

/// `trust::sanitize` in all three modes, and `trust::flags` over the results.
pub fn sanitize(input: &[u8]) -> Result<(), String> {
    let (out, f) = sanitize_bytes(input);
    check_sanitised(&out, &f, Lines::Many).map_err(|e| format!("sanitize_bytes: {e}"))?;
    let text = String::from_utf8_lossy(input);
    let (out, f) = sanitize_text(&text);
    check_sanitised(&out, &f, Lines::Many).map_err(|e| format!("sanitize_text: {e}"))?;
    let (out, f) = sanitize_line(&text);
    check_sanitised(&out, &f, Lines::One).map_err(|e| format!("sanitize_line: {e}"))?;
    // The flagger on raw (unsanitised) text too: callers should not, but it must not panic either.
    let _ = crate::trust::flags::scan(&text);
    Ok(())
}

fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// A drawn line must be clean and a fixed point of `sanitize_line`: the terminal sees the spans' text
/// joined, so whatever the layout did between pieces of sanitised text must not undo the sanitising.
fn check_drawn(line: &str) -> Result<(), String> {
    check_clean(line, Lines::One)?;
    let (again, f) = sanitize_line(line);
    ensure(again == line && nothing_neutralised(&f), || {
        format!(
            "drawn line changes when sanitised: {} became {}",
            preview(line),
            preview(&again)
        )
    })
}

/// `markup::markdown::parse` (and the plain code view) over sanitised text: the same `LineParser` the app's
/// layout (`app::incremental`) feeds a line at a time as an artifact arrives.
pub fn markdown(input: &[u8]) -> Result<(), String> {
    let (text, _) = sanitize_bytes(input);
    let styles = render_styles(&Theme::builtin("dark")?);
    let blocks = markdown::parse(&text, &styles);
    // Non-fence source lines map one to one, in order, onto the rendered lines.
    let widest = text.lines().map(UnicodeWidthStr::width).max().unwrap_or(0);
    let bound = 2 * widest + RULE_WIDTH;
    for block in &blocks {
        match block {
            Block::Lines(lines) => {
                for l in lines {
                    let s = line_text(l);
                    check_drawn(&s).map_err(|e| format!("markdown line: {e}"))?;
                    ensure(s.width() <= bound, || {
                        format!(
                            "a line {} columns wide from source lines at most {widest}",
                            s.width()
                        )
                    })?;
                }
            }
            Block::Code { lang, code } => {
                ensure(
                    lang.as_ref().is_none_or(|l| {
                        !l.is_empty()
                            && l.chars().count() <= MAX_LANG_CHARS
                            && l.chars()
                                .all(|c| c.is_ascii_alphanumeric() || "+#._-".contains(c))
                    }),
                    || format!("bad fence language {lang:?}"),
                )?;
                check_clean(code, Lines::Many).map_err(|e| format!("code block: {e}"))?;
                for l in markdown::render_plain_code(code, &styles) {
                    check_drawn(&line_text(&l)).map_err(|e| format!("plain code line: {e}"))?;
                }
            }
        }
    }
    Ok(())
}

/// `markup::json_view` over any JSON document: every fold state draws clean, bounded lines.
pub fn json_view(input: &[u8]) -> Result<(), String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(input) else {
        return Ok(());
    };
    let styles = render_styles(&Theme::builtin("dark")?);
    let mut view = JsonView::new(value.clone());
    let check_lines = |view: &JsonView| -> Result<Vec<String>, String> {
        let lines: Vec<String> = view.lines(&styles).iter().map(line_text).collect();
        ensure(lines.len() == view.line_count(), || {
            format!("{} lines drawn, {} counted", lines.len(), view.line_count())
        })?;
        for l in &lines {
            check_drawn(l).map_err(|e| format!("JSON line: {e}"))?;
            let indent = l.len() - l.trim_start_matches(' ').len();
            ensure(indent <= 2 * MAX_INDENT_LEVELS, || {
                format!("indented {indent} columns")
            })?;
        }
        Ok(lines)
    };
    let unfolded = check_lines(&view)?;
    match serde_json::from_str::<serde_json::Value>(&unfolded.join("\n")) {
        // Floats may differ in the last digit (no `float_roundtrip`); anything else must come back the same.
        Ok(back) => ensure(back == value || has_float(&value), || {
            let mut msg = String::from("the unfolded view reads back as different JSON");
            let _ = write!(msg, ": {}", preview(&unfolded.join("\n")));
            msg
        })?,
        Err(e) => return Err(format!("the unfolded view is not JSON ({e})")),
    }
    // Fold states chosen from the input itself, so a failure replays exactly.
    let mut seed = input
        .iter()
        .fold(0x9E37_79B9u64, |h, b| h.rotate_left(5) ^ u64::from(*b));
    for depth in [0, 1, 2] {
        view.fold_all(depth);
        check_lines(&view)?;
    }
    for _ in 0..8 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let line = (seed % (view.line_count() as u64 + 2)) as usize;
        view.toggle_fold_at_line(line);
        check_lines(&view)?;
    }
    view.unfold_all();
    ensure(check_lines(&view)? == unfolded, || {
        "unfolding everything did not restore the view".into()
    })
}

/// Whether a float sits anywhere in the value.
pub(super) fn has_float(v: &serde_json::Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Number(n) if n.is_f64() => return true,
            serde_json::Value::Array(a) => stack.extend(a),
            serde_json::Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

/// `cli::output::safe_json`, which prints remote JSON (cards, tasks, stream events) for `--json`: in both
/// layouts every line is clean and the document reads back as the same JSON.
pub fn safe_json(input: &[u8]) -> Result<(), String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(input) else {
        return Ok(());
    };
    for pretty in [false, true] {
        let out = crate::cli::output::safe_json(&value, pretty);
        for l in out.lines() {
            check_drawn(l).map_err(|e| format!("safe_json (pretty {pretty}): {e}"))?;
        }
        match serde_json::from_str::<serde_json::Value>(&out) {
            Ok(back) => ensure(back == value || has_float(&value), || {
                format!(
                    "safe_json (pretty {pretty}) reads back as different JSON: {}",
                    preview(&out)
                )
            })?,
            Err(e) => return Err(format!("safe_json (pretty {pretty}) is not JSON ({e})")),
        }
    }
    Ok(())
}

/// `app::spool::ArtifactText`: the input's text, pushed in pieces whose sizes the input's own bytes choose and
/// spooled after a number of pieces it also chooses, must read back exactly as the same text held in memory.
pub fn spool(input: &[u8]) -> Result<(), String> {
    use crate::app::spool::ArtifactText;
    let text = String::from_utf8_lossy(input).into_owned();
    let mut t = ArtifactText::default();
    let spool_after = input.first().map_or(0, |b| usize::from(*b % 4));
    let (mut at, mut pieces) = (0usize, 0usize);
    while at < text.len() {
        let step = 1 + input.get(pieces).map_or(7, |b| usize::from(*b % 64));
        let mut end = (at + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        t.push_str(text.get(at..end).unwrap_or_default());
        pieces += 1;
        if pieces == spool_after {
            t.spool_now();
        }
        at = end;
    }
    t.spool_now();
    ensure(t.is_spooled() || text.is_empty(), || {
        format!("not spooled: {:?}", t.spool_error)
    })?;
    ensure(t.len() == text.len(), || {
        format!("len {} != {}", t.len(), text.len())
    })?;
    let lines: Vec<&str> = text.lines().collect();
    ensure(t.line_count() == lines.len(), || {
        format!("line_count {} != {}", t.line_count(), lines.len())
    })?;
    let mut joined = String::new();
    let mut counted = 0usize;
    let mut order = Ok(());
    t.for_each_piece(|before, piece| {
        if before != counted && order.is_ok() {
            order = Err(format!("piece starts at line {before}, {counted} counted"));
        }
        counted += piece.matches('\n').count();
        joined.push_str(piece);
        true
    });
    order?;
    ensure(joined == text, || {
        "the pieces do not join to the text".into()
    })?;
    let n = lines.len();
    for first in [0, 1, n / 2, n.saturating_sub(1), n, n + 1] {
        let want: Vec<&str> = lines.iter().skip(first).take(3).copied().collect();
        let got: Vec<String> = t
            .lines_from(first, 3)
            .into_iter()
            .map(|l| l.into_owned())
            .collect();
        ensure(got == want, || {
            format!("lines_from({first}, 3): {got:?} != {want:?}")
        })?;
    }
    let want: Vec<&str> = lines.iter().skip(n.saturating_sub(3)).copied().collect();
    let got: Vec<String> = t
        .last_lines(3)
        .into_iter()
        .map(|l| l.into_owned())
        .collect();
    ensure(got == want, || {
        format!("last_lines(3): {got:?} != {want:?}")
    })?;
    let cut = |i: usize| {
        let mut i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (cut(text.len() / 3), cut(text.len() * 2 / 3));
    let got = t.get(a..b).map(|c| c.into_owned());
    ensure(got.as_deref() == text.get(a..b), || {
        format!("get({a}..{b}): {got:?}")
    })?;
    Ok(())
}
