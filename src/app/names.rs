//! Agent names (and other one-line labels) cut to the room a tab title, the board's column or the agent list gives them, so that agents
//! whose names share a long beginning ("A2A Acceptance Python 1.0", "A2A Acceptance JS 1.0") still read apart:
//! the cut goes in the middle (`…`), and the part that tells a name from the others stays whole. Widths are
//! display columns (a CJK character takes two); a cut never splits a character.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `s` in at most `width` columns: its start and its end around a `…` when it does not fit. The end gets the
/// odd column, since names tend to end in what sets them apart (a version, a region, a number).
pub fn middle_ellipsis(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let room = width - 1;
    let head = take_cols(s, room / 2);
    // Columns a wide character left unused at the head go to the tail.
    let tail = take_cols_from_end(s, room - head.width());
    format!("{head}…{tail}")
}

/// `name` in at most `width` columns, kept apart from `others` (every name shown beside it; `name` itself
/// may be among them). A name that fits is unchanged. A name that shares its first words with another loses
/// the shared words, not the ones after them: `A2A…Python 1.0`. Any other name is cut in the middle.
pub fn shorten(name: &str, others: &[&str], width: usize) -> String {
    if name.width() <= width {
        return name.to_string();
    }
    if width < 2 {
        return middle_ellipsis(name, width);
    }
    // The shortest shared beginning: what follows it sets the name apart from every name it shares words with.
    let shared = others
        .iter()
        .filter(|o| **o != name)
        .map(|o| shared_words(name, o))
        .filter(|n| *n > 0)
        .min();
    let Some(shared) = shared else {
        return middle_ellipsis(name, width);
    };
    let (start, rest) = name.split_at(shared);
    let rest_w = rest.width();
    if rest_w < width.saturating_sub(1) {
        // What is left of the shared start, then the rest whole: `A2A Acc…JS 1.0`.
        let head = take_cols(start.trim_end(), width - 1 - rest_w);
        format!("{}…{rest}", head.trim_end())
    } else {
        // The distinguishing part alone is too long: it keeps its own start and end.
        format!("…{}", middle_ellipsis(rest, width.saturating_sub(1)))
    }
}

/// How wide a column of names must be for none of them to lose what sets it apart: `min`, unless names that
/// share their first words do not fit in it; then as wide as the widest of those, up to `max`.
pub fn column_width(names: &[&str], min: usize, max: usize) -> usize {
    let mut want = min;
    for (i, a) in names.iter().enumerate() {
        for b in names.iter().skip(i + 1) {
            if a == b || shared_words(a, b) == 0 {
                continue;
            }
            for n in [a, b] {
                if n.width() > min {
                    want = want.max(n.width());
                }
            }
        }
    }
    want.min(max.max(min))
}

/// The length in bytes of the whole words `a` begins with that `b` begins with too (up to and including the
/// separator after the last of them): `A2A Acceptance ` for "A2A Acceptance Python" and "A2A Acceptance JS".
/// 0 when they do not share a first word.
fn shared_words(a: &str, b: &str) -> usize {
    let mut end = 0;
    for ((i, ca), cb) in a.char_indices().zip(b.chars()) {
        if ca != cb {
            break;
        }
        if !ca.is_alphanumeric() {
            end = i + ca.len_utf8();
        }
    }
    end
}

/// `s` cut to `width` display columns, ending in `…` when it was cut, so a long name says it goes on (wide
/// characters count double; a cut never splits one).
pub fn ellipsize(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    match width.checked_sub(1) {
        Some(room) => format!("{}…", take_cols(s, room)),
        None => String::new(),
    }
}

/// `s` cut to `width` display columns (as [`ellipsize`]) and padded with spaces to fill them, so that a
/// column of names lines up whatever their characters' widths.
pub fn fit_cols(s: &str, width: usize) -> String {
    let cut = ellipsize(s, width);
    let pad = width.saturating_sub(cut.width());
    format!("{cut}{}", " ".repeat(pad))
}

/// The longest start of `s` that fits in `cols` columns (wide characters count double; none is split).
pub fn take_cols(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > cols {
            return &s[..i];
        }
        used += w;
    }
    s
}

/// The longest end of `s` that fits in `cols` columns.
fn take_cols_from_end(s: &str, cols: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > cols {
            return &s[i + c.len_utf8()..];
        }
        used += w;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_end_in_an_ellipsis_within_the_width() {
        assert_eq!(ellipsize("short", 10), "short");
        assert_eq!(ellipsize("exactly-10", 10), "exactly-10");
        assert_eq!(ellipsize("a-very-long-agent-name", 10), "a-very-lo…");
        // Wide characters take two columns: the cut lands before one that would not fit.
        assert_eq!(ellipsize("日本語のエージェント", 7), "日本語…");
        assert_eq!(ellipsize("abc", 0), "");
    }

    #[test]
    fn a_fitted_name_fills_its_columns_exactly() {
        assert_eq!(fit_cols("ab", 5), "ab   ");
        assert_eq!(fit_cols("a-long-name", 5), "a-lo…");
        // 日本 is four columns: one space fills the fifth; a cut before a wide character leaves a gap to pad.
        assert_eq!(fit_cols("日本", 5), "日本 ");
        assert_eq!(fit_cols("日本語のエ", 6), "日本… ");
    }

    const PY1: &str = "A2A Acceptance Python 1.0";
    const JS1: &str = "A2A Acceptance JS 1.0";
    const PY03: &str = "A2A Acceptance Python 0.3";

    #[test]
    fn the_middle_goes_and_both_ends_stay_within_the_width() {
        assert_eq!(middle_ellipsis("short", 10), "short");
        assert_eq!(middle_ellipsis("exactly-10", 10), "exactly-10");
        assert_eq!(middle_ellipsis(PY1, 14), "A2A Ac…hon 1.0");
        assert_eq!(middle_ellipsis(PY03, 14), "A2A Ac…hon 0.3");
        assert_eq!(middle_ellipsis("abcdef", 1), "…");
        assert_eq!(middle_ellipsis("abcdef", 0), "");
        for w in 0..30 {
            assert!(middle_ellipsis(PY1, w).width() <= w, "{w}");
        }
    }

    #[test]
    fn wide_characters_count_two_columns_and_are_never_split() {
        let name = "日本語のエージェント名前"; // 12 characters, 24 columns
        assert_eq!(middle_ellipsis(name, 9), "日本…名前");
        // An odd budget: the head cannot take half a character, so its column goes to the tail.
        assert_eq!(middle_ellipsis(name, 8), "日…名前");
        assert_eq!(middle_ellipsis(name, 6), "日…前");
        for w in 0..26 {
            let cut = middle_ellipsis(name, w);
            assert!(cut.width() <= w, "{w}: {cut}");
        }
        // Mixed: the ASCII tail keeps its version.
        assert_eq!(middle_ellipsis("エージェント v2.1", 10), "エー… v2.1");
    }

    #[test]
    fn names_sharing_their_first_words_keep_the_words_after_them() {
        let all = [PY1, JS1, PY03];
        let at = |w| all.map(|n| shorten(n, &all, w));
        assert_eq!(
            at(14),
            ["A2A…Python 1.0", "A2A Acc…JS 1.0", "A2A…Python 0.3"]
        );
        // Too narrow for the distinguishing part whole: it keeps its own start and end.
        assert_eq!(at(9), ["…Pyt… 1.0", "A2…JS 1.0", "…Pyt… 0.3"]);
        for w in 0..30 {
            let cut = at(w);
            for c in &cut {
                assert!(c.width() <= w, "{w}: {c}");
            }
            if w >= 7 {
                assert!(
                    cut[0] != cut[1] && cut[1] != cut[2] && cut[0] != cut[2],
                    "{w}: {cut:?}"
                );
            }
        }
        // Names that fit are left alone, and a name alone is only cut in the middle.
        assert_eq!(shorten(JS1, &all, 21), JS1);
        assert_eq!(shorten(PY1, &[PY1], 14), "A2A Ac…hon 1.0");
        // Wide characters: the shared word goes, the city stays.
        let cities = ["エージェント 東京", "エージェント 大阪"];
        assert_eq!(
            cities.map(|n| shorten(n, &cities, 10)),
            ["エー…東京", "エー…大阪"]
        );
        // Sharing part of a word is no shared word: "Alpha…" and "Alpine…" are cut in the middle.
        assert_eq!(
            shorten("Alphabet Soup Server", &["Alpine Soup Server"], 11),
            "Alpha…erver"
        );
    }

    #[test]
    fn the_column_grows_only_for_names_that_would_read_the_same() {
        assert_eq!(column_width(&[PY1, JS1, PY03], 18, 32), 25);
        assert_eq!(column_width(&[PY1, JS1, PY03], 18, 20), 20, "capped");
        assert_eq!(column_width(&["demo", "parts"], 18, 32), 18);
        // Long but unrelated names keep the column as it is: a middle cut tells them apart.
        assert_eq!(
            column_width(
                &["Weather forecasting agent", "Parts ordering agent"],
                18,
                32
            ),
            18
        );
        assert_eq!(column_width(&[PY1, PY1], 18, 32), 18, "one agent's tabs");
    }
}
