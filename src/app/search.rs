//! Searching a tab's transcript and artifacts: the match list is computed here, in `update`, once per query
//! (and again when the transcript has grown and the user moves to another match), never per frame. The text
//! searched is each logical line as the transcript draws it, so a match's line is where the view scrolls to.
//! The renderer highlights only the rows on screen, with the same [`Finder`].

use std::borrow::Cow;

use super::parts::{PartView, human_bytes};
use super::task::{Entry, TaskTab};
use crate::task::phase::state_name;

/// The remote gutter the transcript draws before remote text (`ui::wrap::BAR`; `app` does not import `ui`).
const BAR: &str = "▍";

/// More matches than this are not listed (the title says "10000+"): a one-letter query over a 5 MB artifact
/// must not build a million-entry list.
pub const MAX_MATCHES: usize = 10_000;
/// Below this many bytes of transcript, a search follows new events as they arrive; above it the list is
/// brought up to date when the user moves to the next match (so a flood never re-scans megabytes per event).
pub const LIVE_RESCAN_BYTES: usize = 256 * 1024;

/// A query, ready to search with: smart case (case-insensitive unless the query has an upper-case letter;
/// folding covers ASCII letters, other letters match as typed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finder {
    needle: String,
    fold: bool,
}

impl Finder {
    /// `None` for an empty query.
    pub fn new(query: &str) -> Option<Finder> {
        if query.is_empty() {
            return None;
        }
        let fold = !query.chars().any(char::is_uppercase);
        Some(Finder {
            needle: if fold {
                query.to_ascii_lowercase()
            } else {
                query.to_string()
            },
            fold,
        })
    }

    /// Byte ranges of the non-overlapping matches in `hay`, in order. Candidates come from `memchr` on the
    /// needle's first byte (both cases), so a 5 MB text is one fast pass.
    pub fn find_iter<'a>(&'a self, hay: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
        let needle = self.needle.as_bytes();
        let n = needle.len();
        let bytes = hay.as_bytes();
        let first = needle.first().copied().unwrap_or(0);
        let other = if self.fold {
            first.to_ascii_uppercase()
        } else {
            first
        };
        let mut pos = 0usize;
        std::iter::from_fn(move || {
            while pos + n <= bytes.len() {
                let rest = bytes.get(pos..)?;
                let at = pos + memchr::memchr2(first, other, rest)?;
                let cand = bytes.get(at..at + n)?;
                let hit = if self.fold {
                    cand.eq_ignore_ascii_case(needle)
                } else {
                    cand == needle
                };
                if hit {
                    pos = at + n;
                    return Some((at, at + n));
                }
                pos = at + 1;
            }
            None
        })
    }
}

/// One match: the logical line it is on, and which match of that line it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    pub line: usize,
    pub nth: u32,
}

/// A tab's search.
#[derive(Clone, Debug)]
pub struct Search {
    pub query: String,
    pub finder: Finder,
    pub matches: Vec<Match>,
    /// Index into `matches` of the current one.
    pub current: usize,
    /// More than [`MAX_MATCHES`] were found.
    pub capped: bool,
    /// The transcript grew since the list was made (brought up to date on the next move).
    pub stale: bool,
    /// What the transcript held when the list was made (entries, artifact bytes): a change means new text.
    pub made_from: (usize, usize),
}

impl Search {
    /// "match 3/17", "no match", "match 4/10000+".
    pub fn label(&self) -> String {
        if self.matches.is_empty() {
            return format!("no match for {:?}", self.query);
        }
        let plus = if self.capped { "+" } else { "" };
        let stale = if self.stale { " (n updates)" } else { "" };
        format!(
            "match {}/{}{plus} for {:?}{stale}",
            self.current + 1,
            self.matches.len(),
            self.query
        )
    }

    pub fn current_match(&self) -> Option<Match> {
        self.matches.get(self.current).copied()
    }
}

/// Search `t` for `query` (the list is capped at [`MAX_MATCHES`]).
pub fn search(t: &TaskTab, query: &str) -> Option<Search> {
    let finder = Finder::new(query)?;
    let mut matches = Vec::new();
    let capped = collect(t, &finder, &mut matches);
    Some(Search {
        query: query.to_string(),
        finder,
        matches,
        current: 0,
        capped,
        stale: false,
        made_from: extent(t),
    })
}

/// How much text a tab holds, cheaply (entries, artifact bytes): compared to see whether a search is current.
pub fn extent(t: &TaskTab) -> (usize, usize) {
    (
        t.transcript.len(),
        t.artifacts.iter().map(|a| a.text.len()).sum(),
    )
}

/// Push the matches of every logical line; true when the cap was hit.
fn collect(t: &TaskTab, f: &Finder, out: &mut Vec<Match>) -> bool {
    let mut line = 0usize;
    let push_line = |line: usize, text: &str, out: &mut Vec<Match>| -> bool {
        for (nth, _) in f.find_iter(text).enumerate() {
            if out.len() >= MAX_MATCHES {
                return true;
            }
            out.push(Match {
                line,
                nth: nth as u32,
            });
        }
        false
    };
    for e in &t.transcript {
        match e {
            Entry::Artifact { index } => {
                let Some(a) = t.artifacts.get(*index) else {
                    continue;
                };
                for h in artifact_head(t, a) {
                    if push_line(line, &h, out) {
                        return true;
                    }
                    line += 1;
                }
                match &a.rendered {
                    Some(blocks) => {
                        for l in blocks.iter().flat_map(|b| b.lines.iter()) {
                            let text: String = std::iter::once(BAR)
                                .chain(l.spans.iter().map(|s| s.content.as_ref()))
                                .collect();
                            if push_line(line, &text, out) {
                                return true;
                            }
                            line += 1;
                        }
                        // An artifact still arriving: its unfinished tail, drawn as plain text.
                        let tail = a.raw_tail();
                        if !tail.is_empty() {
                            if artifact_text(line, tail, f, out) {
                                return true;
                            }
                            line += a.raw_tail_lines();
                        }
                    }
                    None => {
                        // A spooled text is read a pass at a time, never whole (`app::spool`).
                        let mut capped = false;
                        a.text.for_each_piece(|before, piece| {
                            capped = artifact_text(line + before, piece, f, out);
                            !capped
                        });
                        if capped {
                            return true;
                        }
                        line += a.text.line_count();
                    }
                }
            }
            other => {
                for text in entry_lines(t, other) {
                    if push_line(line, &text, out) {
                        return true;
                    }
                    line += 1;
                }
            }
        }
    }
    false
}

/// The matches of an artifact's plain text drawn from logical line `first` on: one pass over the whole
/// text; lines are counted between matches with `memchr`, so 100 000 lines cost no per-line work.
fn artifact_text(first: usize, text: &str, f: &Finder, out: &mut Vec<Match>) -> bool {
    let bytes = text.as_bytes();
    let (mut line, mut counted_to) = (first, 0usize);
    let mut nth = 0u32;
    for (start, end) in f.find_iter(text) {
        // A match across a line break is not on any drawn line.
        if memchr::memchr(b'\n', bytes.get(start..end).unwrap_or_default()).is_some() {
            continue;
        }
        let between = bytes.get(counted_to..start).unwrap_or_default();
        let breaks = memchr::memchr_iter(b'\n', between).count();
        if breaks > 0 {
            line += breaks;
            nth = 0;
        }
        counted_to = start;
        if out.len() >= MAX_MATCHES {
            return true;
        }
        out.push(Match { line, nth });
        nth += 1;
    }
    false
}

/// The provenance label over a piece of remote text ("remote · agent · task 1a2b3c4d · field"), without the
/// bar: built here once, drawn by `ui::remote::block` and read by the search.
pub fn remote_label(p: &crate::trust::sanitize::Provenance) -> String {
    let task = p
        .task
        .as_deref()
        .map(|t| {
            format!(
                " · task {}",
                crate::task::short_id::tail(t, super::short_id::SHORT)
            )
        })
        .unwrap_or_default();
    format!("remote · {}{task} · {}", p.agent, p.field)
}

/// How a folded status line says it was updated (empty when it was not).
pub fn updates_label(updates: u32) -> String {
    match updates {
        0 => String::new(),
        n => format!(" · updated {n}×"),
    }
}

/// The logical lines of a piece of remote text as `ui::remote::block` draws it: provenance (with the time for a
/// transcript entry), its lines behind the bar, its flags.
fn remote_lines<'a>(
    text: &'a crate::trust::sanitize::Untrusted,
    at: Option<&chrono::DateTime<chrono::Local>>,
) -> Vec<Cow<'a, str>> {
    let bar = BAR;
    let time = at
        .map(|at| format!(" · {}", at.format("%H:%M:%S")))
        .unwrap_or_default();
    let mut v = vec![Cow::Owned(format!(
        "{bar}{}{time}",
        remote_label(&text.provenance)
    ))];
    v.extend(
        text.as_str()
            .lines()
            .map(|l| Cow::Owned(format!("{bar}{l}"))),
    );
    if text.as_str().is_empty() {
        v.push(Cow::Owned(format!("{bar}(empty)")));
    }
    v.extend(
        text.findings
            .flags
            .iter()
            .map(|f| Cow::Owned(format!("{bar}⚠ {}", f.reason))),
    );
    v
}

/// The text of an entry's logical lines as `ui::tab` draws them (tested against it), for every entry but an
/// artifact.
pub fn entry_lines<'a>(t: &'a TaskTab, e: &'a Entry) -> Vec<Cow<'a, str>> {
    match e {
        Entry::User { text, files, at } => {
            let mut v = vec![Cow::Owned(format!("you · {}", at.format("%H:%M:%S")))];
            v.extend(text.lines().map(|l| Cow::Owned(format!("  {l}"))));
            v.extend(files.iter().map(|f| Cow::Owned(format!("  📎 {f}"))));
            v
        }
        Entry::Remote { text, at, updates } => {
            let mut v = remote_lines(text, Some(at));
            if let Some(first) = v.first_mut()
                && *updates > 0
            {
                first.to_mut().push_str(&updates_label(*updates));
            }
            v
        }
        Entry::State { state, at } => {
            let b = super::task::badge::Badge::of_state(state);
            vec![Cow::Owned(format!(
                "{} state → {} · {}",
                b.symbol(),
                state_name(state),
                at.format("%H:%M:%S")
            ))]
        }
        Entry::Console {
            text, at, quote, ..
        } => {
            let mut v = vec![Cow::Owned(format!(
                "console · {} · {text}",
                at.format("%H:%M:%S")
            ))];
            if let Some(q) = quote {
                v.extend(remote_lines(q, None));
            }
            v
        }
        Entry::Artifact { index } => t
            .artifacts
            .get(*index)
            .map(|a| artifact_head(t, a))
            .unwrap_or_default()
            .into_iter()
            .map(Cow::Owned)
            .collect(),
    }
}

/// An artifact's header lines (title, files, flags) as drawn.
pub fn artifact_head(t: &TaskTab, a: &super::task::ArtifactView) -> Vec<String> {
    let name = if a.name.is_empty() {
        String::new()
    } else {
        format!(" {:?}", a.name)
    };
    let progress = match (a.complete, a.limited) {
        (true, None) => "complete",
        (false, None) => "streaming…",
        // What is shown is all that is kept: the user must not take a cut artifact for the whole one.
        (true, Some(_)) => "complete · cut at the size limit",
        (false, Some(_)) => "streaming… · cut at the size limit",
    };
    // The artifact's own task: an earlier task's artifact keeps its label after a follow-up starts another.
    let task = a
        .task
        .as_ref()
        .map(|s| format!(" · task {s}"))
        .unwrap_or_default();
    let mut head = vec![format!(
        "▍remote · {}{task} · artifact{name} ({}) · {} chunk(s) · {} · {progress}",
        t.agent_name,
        a.id,
        a.chunks,
        human_bytes(a.bytes)
    )];
    // Among several parts laid out, each file is described under its own part header (in `rendered`).
    for f in a.files.iter().filter(|_| a.files_in_head()) {
        head.push(format!("{BAR}{}", PartView::file_line(f)));
    }
    for r in &a.flagged {
        head.push(format!("▍⚠ {r}"));
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(q: &str, hay: &str) -> Vec<(usize, usize)> {
        Finder::new(q).unwrap().find_iter(hay).collect()
    }

    #[test]
    fn smart_case_and_non_overlapping_matches() {
        assert_eq!(hits("ab", "xAbyabAB"), [(1, 3), (4, 6), (6, 8)]);
        assert_eq!(hits("Ab", "xAbyabAB"), [(1, 3)]);
        assert_eq!(hits("aa", "aaaa"), [(0, 2), (2, 4)]);
        assert_eq!(hits("é", "Éé"), [(2, 4)]);
        assert!(Finder::new("").is_none());
    }

    #[test]
    fn a_spooled_artifact_is_searched_a_piece_at_a_time_with_the_right_line_numbers() {
        use crate::app::task::TaskTab;
        let mut t = TaskTab::new(1, crate::app::ids::AgentId(1), "demo");
        let per_chunk = 4096;
        let chunks = 2 * crate::app::spool::SPOOL_AT / (per_chunk * 64) + 2;
        for c in 0..chunks {
            let text: String = (0..per_chunk)
                .map(|i| format!("line {:08}: {}\n", c * per_chunk + i + 1, "x".repeat(48)))
                .collect();
            t.receive(
                crate::task::log::Source::Stream(0),
                Box::new(crate::testing::chunk(
                    "t1",
                    "a",
                    &text,
                    c > 0,
                    c + 1 == chunks,
                )),
                chrono::Utc::now(),
            );
        }
        assert!(t.artifacts[0].text.is_spooled());
        let wanted = chunks * per_chunk - 7;
        let s = search(&t, &format!("line {wanted:08}:")).unwrap();
        assert_eq!(s.matches.len(), 1, "{:?}", s.matches);
        // The artifact's first line is right after its header; the match is `wanted - 1` lines below.
        let first = crate::app::layout::artifact_starts(&t)[0] + 1;
        assert_eq!(s.matches[0].line, first + wanted - 1);
    }

    #[test]
    fn artifact_text_maps_offsets_to_lines() {
        let f = Finder::new("x").unwrap();
        let mut out = Vec::new();
        artifact_text(10, "ax\nb\nxx\n\nx", &f, &mut out);
        let got: Vec<(usize, u32)> = out.iter().map(|m| (m.line, m.nth)).collect();
        assert_eq!(got, [(10, 0), (12, 0), (12, 1), (14, 0)]);
    }
}
