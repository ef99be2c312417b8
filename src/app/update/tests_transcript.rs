//! `update` flows of the transcript tools: search (`/`, `n`, `N`, Esc, a 100 000-line artifact), the
//! selection (`,` `.`), copy (`y`, `Y`, the size fallback, nothing remote can copy), raw JSON (`J`), the
//! follow indicator's bookkeeping and the status bar's expiry.

use std::time::{Duration, Instant};

use super::*;
use crate::app::state::PromptKind;
use crate::app::task::Entry;
use crate::testing::keys::{key, keys};
use crate::testing::{app, chunk, status};
use a2a::*;
use crossterm::event::KeyCode;

/// A tab on screen with command keys live, holding a message, a status message and an artifact.
fn tab_with(artifact: &str) -> (App, crate::app::ids::TabId) {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("find the Needle please", vec![], "");
    t.feed(&status(
        "t1",
        "ctx",
        TaskState::Working,
        Some("looking for a needle"),
    ));
    t.feed(&chunk("t1", "a1", artifact, false, true));
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    (app, id)
}

/// The raw JSON viewer's lines (the test fails when it is not open).
fn viewer_lines(app: &App) -> &Vec<String> {
    match &app.overlay {
        Some(Overlay::RawJson { lines, .. }) => lines,
        _ => panic!("the raw JSON viewer is not open"),
    }
}

fn search(app: &mut App, q: &str) {
    key(app, KeyCode::Char('/'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::TranscriptSearch(_),
            ..
        })
    ));
    keys(app, q);
    key(app, KeyCode::Enter);
    assert!(app.overlay.is_none());
}

#[test]
fn slash_n_and_shift_n_walk_the_matches_with_wrap_around_and_esc_clears() {
    let (mut app, id) = tab_with("one needle\nno\nneedle, needle\n```sh\necho needle\n```");
    search(&mut app, "needle");
    let s = app.tab(id).unwrap().search.clone().unwrap();
    // Case-insensitive: the user's "Needle", the status message and four in the artifact.
    assert_eq!(s.matches.len(), 6, "{:?}", s.matches);
    let first = s.current;
    assert!(
        app.status
            .as_ref()
            .unwrap()
            .text
            .contains(&format!("match {}/6", first + 1))
    );
    // The view scrolls to the current match.
    let line = s.current_match().unwrap().line;
    assert_eq!(app.tab(id).unwrap().scroll, Some(line.saturating_sub(2)));
    for _ in 0..6 {
        key(&mut app, KeyCode::Char('n'));
    }
    assert_eq!(app.tab(id).unwrap().search.as_ref().unwrap().current, first);
    assert!(
        app.tabs.len() == 1,
        "n with a search is next match, not a new task"
    );
    key(&mut app, KeyCode::Char('N'));
    let back = app.tab(id).unwrap().search.as_ref().unwrap().current;
    assert_eq!(back, (first + 5) % 6);
    // Smart case: a capital makes it exact.
    search(&mut app, "Needle");
    assert_eq!(
        app.tab(id).unwrap().search.as_ref().unwrap().matches.len(),
        1
    );
    // Esc clears the search and keeps the focus in the tab; then `n` is a new task again.
    key(&mut app, KeyCode::Esc);
    assert!(app.tab(id).unwrap().search.is_none());
    assert_eq!(app.focus, Focus::Main);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.tabs.len(), 2, "without a search, n starts a new task");
}

#[test]
fn the_board_keeps_its_own_slash() {
    let mut app = app();
    app.view = View::Board;
    app.focus = Focus::Main;
    key(&mut app, KeyCode::Char('/'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::BoardSearch,
            ..
        })
    ));
}

#[test]
fn an_empty_query_clears_and_no_match_says_so() {
    let (mut app, id) = tab_with("text");
    search(&mut app, "zzz");
    assert!(app.status.as_ref().unwrap().text.contains("no match"));
    key(&mut app, KeyCode::Char('/'));
    for _ in 0..3 {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.tab(id).unwrap().search.is_none());
}

#[test]
fn searching_a_100k_line_artifact_is_fast_capped_and_lands_on_the_right_line() {
    let mut text = String::with_capacity(5 * 1024 * 1024);
    for i in 0..100_000 {
        text.push_str(&format!(
            "line {i:06} of a long artifact with some filler text, base64 QUJD{i}\n"
        ));
    }
    text.push_str("the very last line holds the MARKER\n");
    let (mut app, id) = tab_with(&text);
    let started = Instant::now();
    search(&mut app, "marker");
    let one = started.elapsed();
    let t = app.tab(id).unwrap();
    let s = t.search.as_ref().unwrap();
    assert_eq!(s.matches.len(), 1);
    // The match's logical line is the artifact's last text line, as drawn.
    let start = crate::app::layout::artifact_starts(t)[0];
    let a = &t.artifacts[0];
    assert_eq!(s.matches[0].line, start + 1 + a.text.line_count() - 1);
    // A one-letter query is capped, not a million-entry list.
    let started = Instant::now();
    search(&mut app, "e");
    let many = started.elapsed();
    let s = app.tab(id).unwrap().search.as_ref().unwrap();
    assert_eq!(s.matches.len(), crate::app::search::MAX_MATCHES);
    assert!(s.capped && s.label().contains("10000+"));
    // New text in a big transcript marks the list out of date (no re-scan per event); `n` brings it up to date.
    search(&mut app, "marker");
    let generation = app.tab(id).unwrap().generation;
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation,
            source: crate::task::log::Source::Stream(generation),
            item: crate::app::msg::StreamItem::Event(Box::new(chunk(
                "t1",
                "a2",
                "a second MARKER",
                false,
                true,
            ))),
        },
    );
    let s = app.tab(id).unwrap().search.as_ref().unwrap();
    assert!(s.stale && s.matches.len() == 1 && s.label().contains("(n updates)"));
    key(&mut app, KeyCode::Char('n'));
    let s = app.tab(id).unwrap().search.as_ref().unwrap();
    assert!(!s.stale && s.matches.len() == 2, "{s:?}");
    // Generous bounds for a debug build on a shared machine (measured in a debug build: ~75 ms for the whole
    // 5 MB, ~6 ms to the cap).
    assert!(one < Duration::from_secs(2), "{one:?}");
    assert!(many < Duration::from_secs(2), "{many:?}");
}

#[test]
fn a_growing_transcript_keeps_the_search_up_to_date() {
    let (mut app, id) = tab_with("needle");
    search(&mut app, "needle");
    let before = app.tab(id).unwrap().search.as_ref().unwrap().matches.len();
    let generation = app.tab(id).unwrap().generation;
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation,
            source: crate::task::log::Source::Stream(generation),
            item: crate::app::msg::StreamItem::Event(Box::new(status(
                "t1",
                "ctx",
                TaskState::Working,
                Some("another needle"),
            ))),
        },
    );
    let after = app.tab(id).unwrap().search.as_ref().unwrap().matches.len();
    assert_eq!(after, before + 1);
}

#[test]
fn selection_moves_and_y_copies_the_sanitised_entry() {
    let (mut app, id) = tab_with("```rust\nfn main() {}\n```\ntext\n```\nsecond\n```");
    // `y` with nothing selected copies the newest entry (the artifact) and selects it.
    let fx = key(&mut app, KeyCode::Char('y'));
    let n = app.tab(id).unwrap().transcript.len();
    assert_eq!(app.tab(id).unwrap().selected, Some(n - 1));
    let [Effect::Copy { text, what }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert!(
        text.starts_with("```rust") && what.contains("artifact"),
        "{what}"
    );
    // `Y` copies its code blocks in turn.
    let fx = key(&mut app, KeyCode::Char('Y'));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, what }] if text == "fn main() {}" && what.contains("1/2"))
    );
    let fx = key(&mut app, KeyCode::Char('Y'));
    assert!(matches!(fx.as_slice(), [Effect::Copy { text, .. }] if text == "second"));
    // `,` moves up to the status message; `y` copies the agent's words.
    key(&mut app, KeyCode::Char(','));
    let sel = app.tab(id).unwrap().selected.unwrap();
    assert!(matches!(
        app.tab(id).unwrap().transcript[sel],
        Entry::Remote { .. }
    ));
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(matches!(fx.as_slice(), [Effect::Copy { text, .. }] if text == "looking for a needle"));
    // A message has no code block: said, nothing copied.
    let fx = key(&mut app, KeyCode::Char('Y'));
    assert!(fx.is_empty());
    assert!(app.status.as_ref().unwrap().error);
    // `.` goes back down, and stops at the end.
    keys(&mut app, "....");
    assert_eq!(app.tab(id).unwrap().selected, Some(n - 1));
    // Esc clears the selection.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.tab(id).unwrap().selected, None);
}

#[test]
fn nothing_remote_can_copy_and_escapes_never_reach_the_clipboard() {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    // An agent that asks for a clipboard write in every way it can: status text, artifact, message.
    let evil = "pwn \u{1b}]52;c;ZXZpbA==\u{7} \u{9b}52;c;eA==\u{7}";
    let generation = app.tab(id).unwrap().generation;
    let mut fx = Vec::new();
    for ev in [
        status("t1", "ctx", TaskState::Working, Some(evil)),
        chunk("t1", "a1", evil, false, true),
    ] {
        fx.extend(update(
            &mut app,
            Msg::Stream {
                tab: id,
                generation,
                source: crate::task::log::Source::Stream(generation),
                item: crate::app::msg::StreamItem::Event(Box::new(ev)),
            },
        ));
    }
    assert!(!fx.iter().any(|e| matches!(e, Effect::Copy { .. })));
    // The user's `y` copies the text as shown: sanitised, no escape left.
    let fx = key(&mut app, KeyCode::Char('y'));
    let [Effect::Copy { text, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{9b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
}

#[test]
fn too_large_for_osc_52_says_save_or_export_instead() {
    let (mut app, _) = tab_with(&"x".repeat(200_000));
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(fx.is_empty(), "nothing is silently dropped by the terminal");
    let s = app.status.as_ref().unwrap();
    assert!(
        s.error && s.text.contains("S saves") && s.text.contains("E exports"),
        "{}",
        s.text
    );
}

#[test]
fn j_shows_the_task_and_the_selected_entrys_event_and_scrolls() {
    let (mut app, _) = tab_with("artifact body");
    key(&mut app, KeyCode::Char('J'));
    let Some(Overlay::RawJson { lines, .. }) = &app.overlay else {
        panic!("no raw JSON viewer")
    };
    let all = lines.join("\n");
    assert!(
        all.contains("\"id\": \"t1\"") && all.contains("artifact body"),
        "{all}"
    );
    assert!(
        !all.contains("the event behind"),
        "no entry selected: the task only"
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    // Select the status message: its event (a status update) comes first.
    keys(&mut app, ",,");
    key(&mut app, KeyCode::Char('J'));
    let Some(Overlay::RawJson { lines, .. }) = &app.overlay else {
        panic!("no raw JSON viewer")
    };
    let all = lines.join("\n");
    assert!(all.starts_with("// the event behind entry"), "{all}");
    assert!(all.contains("looking for a needle"));
    // G shows the last page (scrolling stops there, as in every viewer).
    let last = lines
        .len()
        .saturating_sub(crate::app::scroll::viewer_rows(app.size));
    assert!(last > 0, "the test needs more than a page");
    key(&mut app, KeyCode::Char('G'));
    assert!(matches!(app.overlay, Some(Overlay::RawJson { scroll, .. }) if scroll == last));
    key(&mut app, KeyCode::Char('g'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::RawJson { scroll: 0, .. })
    ));
    // J in the agent list is still the raw card.
    key(&mut app, KeyCode::Esc);
    app.focus = Focus::Agents;
    key(&mut app, KeyCode::Char('J'));
    assert!(app.raw_card);
}

#[test]
fn a_big_event_is_not_kept_so_the_viewer_asks_the_store_for_it_and_shows_the_answer() {
    let (mut app, id) = tab_with(&"y".repeat(100_000));
    let t = app.tab(id).unwrap();
    let n = t.transcript.len();
    let artifact = (0..n)
        .find(|&i| matches!(t.transcript[i], crate::app::task::Entry::Artifact { .. }))
        .unwrap();
    let at = t.artifacts[0]
        .first_at
        .expect("the artifact's arrival time");
    let key_of_tab = t.key.to_string();
    app.tab_mut(id).unwrap().selected = Some(artifact);
    let fx = key(&mut app, KeyCode::Char('J'));
    assert!(
        matches!(fx.as_slice(), [Effect::LoadRawEvents { key, at: when }] if *key == key_of_tab && *when == at),
        "{fx:?}"
    );
    let lines = viewer_lines(&app);
    assert!(
        lines.iter().any(|l| l.contains("reading the event")),
        "{lines:?}"
    );
    // The store's answer replaces the placeholder, where it was (the task's JSON stays below).
    update(
        &mut app,
        Msg::RawEventsLoaded {
            at,
            result: Ok(vec!["{\n  \"artifactUpdate\": {}\n}".into()]),
        },
    );
    let lines = viewer_lines(&app);
    assert!(
        !lines.iter().any(|l| l.contains("reading the event")),
        "{lines:?}"
    );
    let event = lines
        .iter()
        .position(|l| l.contains("artifactUpdate"))
        .unwrap();
    let task = lines
        .iter()
        .position(|l| l.contains("the task as the console holds it"))
        .unwrap();
    assert!(event < task, "{lines:?}");
    // An answer for another time (a viewer opened since) changes nothing; without a store, it says so.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('J'));
    update(
        &mut app,
        Msg::RawEventsLoaded {
            at: at + chrono::Duration::seconds(1),
            result: Ok(vec!["{}".into()]),
        },
    );
    update(
        &mut app,
        Msg::RawEventsLoaded {
            at,
            result: Err("the console runs without a local store".into()),
        },
    );
    let lines = viewer_lines(&app);
    assert!(
        lines.iter().any(|l| l.contains("without a local store")),
        "{lines:?}"
    );
}

#[test]
fn the_users_own_message_has_no_event_and_the_viewer_says_so() {
    let (mut app, id) = tab_with("x");
    app.tab_mut(id).unwrap().selected = Some(0);
    let fx = key(&mut app, KeyCode::Char('J'));
    assert!(fx.is_empty(), "{fx:?}");
    let lines = viewer_lines(&app);
    assert!(
        lines.iter().any(|l| l.contains("your message")),
        "{lines:?}"
    );
}

#[test]
fn scrolling_up_remembers_the_length_and_g_follows_again() {
    let (mut app, id) = tab_with("a\nb\nc");
    key(&mut app, KeyCode::Char('k'));
    let t = app.tab(id).unwrap();
    assert_eq!(t.seen_lines, Some(t.total_lines()));
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.tab(id).unwrap().seen_lines, None);
}

#[test]
fn status_messages_expire_after_they_were_shown_and_info_goes_at_the_next_key() {
    let (mut app, _) = tab_with("x");
    app.set_status("an error", true);
    // Unseen: it never expires, however long it waits.
    let later = Instant::now() + Duration::from_secs(3600);
    update(&mut app, Msg::StatusDue(later));
    assert!(app.status.is_some());
    let shown = Instant::now();
    app.status_shown(shown);
    assert_eq!(
        app.status_deadline(),
        Some(shown + crate::app::status::ERROR_FOR)
    );
    // A key does not take an error away.
    key(&mut app, KeyCode::Char('k'));
    assert!(app.status.is_some());
    update(&mut app, Msg::StatusDue(shown + Duration::from_secs(9)));
    assert!(app.status.is_some());
    update(&mut app, Msg::StatusDue(shown + Duration::from_secs(10)));
    assert!(app.status.is_none());
    // Information: five seconds, or the next key once seen.
    app.set_status("saved", false);
    app.status_shown(shown);
    assert_eq!(app.status_deadline(), Some(shown + Duration::from_secs(5)));
    key(&mut app, KeyCode::Char('k'));
    assert!(app.status.is_none());
}

/// The SDK peers' multi-part `code` artifact (markdown with a code block, JSON, a file), laid out part by
/// part: search finds text inside a part and in a part header on the lines drawn, `y` copies the artifact's
/// whole text and `Y` its markdown part's code block.
#[test]
fn search_and_copy_reach_into_every_part_of_a_multi_part_artifact() {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    let stream = |app: &mut App, ev: StreamResponse| {
        let generation = app.tab(id).map(|t| t.generation).unwrap_or(0);
        update(
            app,
            Msg::Stream {
                tab: id,
                generation,
                source: crate::task::log::Source::Stream(generation),
                item: crate::app::msg::StreamItem::Event(Box::new(ev)),
            },
        )
    };
    stream(&mut app, status("t1", "ctx", TaskState::Working, None));
    stream(
        &mut app,
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t1".into(),
            context_id: "ctx".into(),
            artifact: Artifact {
                artifact_id: "code".into(),
                name: Some("code".into()),
                description: None,
                parts: vec![
                    Part::text("# Fibonacci\n\n```python\ndef fib(n):\n    return n\n```\n")
                        .with_media_type("text/markdown"),
                    Part::data(serde_json::json!({"tests": {"passed": 3, "failed": 0}})),
                    Part::text("``` not a fence here\n").with_media_type("text/plain"),
                ],
                metadata: None,
                extensions: None,
            },
            append: None,
            last_chunk: Some(true),
            metadata: None,
        }),
    );
    stream(&mut app, status("t1", "ctx", TaskState::Completed, None));
    let t = app.tab(id).unwrap();
    assert!(t.artifacts[0].rendered.is_some(), "laid out part by part");
    let drawn_at = |t: &crate::app::task::TaskTab, needle: &str| {
        let mut line = 0;
        for e in &t.transcript {
            for l in crate::app::search::entry_lines(t, e) {
                if l.contains(needle) {
                    return Some(line);
                }
                line += 1;
            }
            if let Entry::Artifact { index } = e {
                for l in t.artifacts[*index]
                    .rendered
                    .iter()
                    .flatten()
                    .flat_map(|b| b.lines.iter())
                {
                    let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                    if text.contains(needle) {
                        return Some(line);
                    }
                    line += 1;
                }
            }
        }
        None
    };
    let passed = drawn_at(t, "\"passed\"").expect("the JSON part is drawn");
    let header = drawn_at(t, "── part 2/3 · application/json").expect("part header drawn");
    assert_eq!(
        header + 3,
        passed,
        "the header, `{{`, `\"tests\": {{`, then the key"
    );

    search(&mut app, "passed");
    let t = app.tab(id).unwrap();
    let s = t.search.as_ref().unwrap();
    assert_eq!(s.matches.len(), 1);
    assert_eq!(s.matches[0].line, passed, "the match is on the line drawn");
    assert!(t.scroll.is_some_and(|top| top <= s.matches[0].line));

    search(&mut app, "part 2/3");
    let s = app.tab(id).unwrap().search.clone().unwrap();
    assert_eq!(
        s.matches.iter().map(|m| m.line).collect::<Vec<_>>(),
        [header]
    );
    key(&mut app, KeyCode::Esc);

    // Select the artifact, then copy it whole, then its code block (the plain part's ``` is no fence).
    while !matches!(
        app.tab(id)
            .and_then(|t| t.selected.and_then(|i| t.transcript.get(i))),
        Some(Entry::Artifact { .. })
    ) {
        key(&mut app, KeyCode::Char(','));
    }
    let fx = key(&mut app, KeyCode::Char('y'));
    let full = app.tab(id).unwrap().artifacts[0]
        .text
        .as_str()
        .unwrap()
        .to_string();
    assert!(full.contains("# Fibonacci") && full.contains("\"passed\": 3"));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, what }] if *text == full && what.contains("code")),
        "{fx:?}"
    );
    let fx = key(&mut app, KeyCode::Char('Y'));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, what }] if text == "def fib(n):\n    return n" && what.contains("1/1")),
        "{fx:?}"
    );
}

#[test]
fn y_after_a_search_copies_the_entry_the_match_is_in() {
    let (mut app, id) = tab_with("the artifact holds the thimble\nand more");
    // Newer entries come after the artifact: without the search, `y` would copy the newest of them.
    app.tab_mut(id).unwrap().note("a later console note", false);
    search(&mut app, "thimble");
    let t = app.tab(id).unwrap();
    let selected = t.selected.and_then(|i| t.transcript.get(i));
    assert!(
        matches!(selected, Some(crate::app::task::Entry::Artifact { .. })),
        "the match's entry is selected: {selected:?}"
    );
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, what }]
            if text.contains("holds the thimble") && what.contains("artifact")),
        "{fx:?}"
    );
}

#[test]
fn a_long_json_line_is_cut_into_viewer_lines_so_what_follows_stays_reachable() {
    let (mut app, id) = tab_with("x");
    let t = app.tab(id).unwrap();
    let at = t.artifacts[0].first_at.unwrap();
    let artifact = (0..t.transcript.len())
        .find(|&i| matches!(t.transcript[i], crate::app::task::Entry::Artifact { .. }))
        .unwrap();
    let t = app.tab_mut(id).unwrap();
    t.selected = Some(artifact);
    t.events.clear(); // as if it had been evicted
    key(&mut app, KeyCode::Char('J'));
    let long = format!("\"text\": \"{}é\"", "z".repeat(5000));
    update(
        &mut app,
        Msg::RawEventsLoaded {
            at,
            result: Ok(vec![long.clone()]),
        },
    );
    let lines = viewer_lines(&app);
    assert!(
        lines.iter().all(|l| l.len() <= 512),
        "no line over the viewer's width budget"
    );
    assert_eq!(lines.concat().matches('z').count(), 5000, "nothing lost");
    assert!(lines.concat().contains(&long));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("the task as the console holds it"))
    );
}

#[test]
fn the_tasks_json_shows_a_huge_artifact_cut_with_a_note_so_j_answers_at_once() {
    let (mut app, _) = tab_with(&"w".repeat(3_000_000));
    key(&mut app, KeyCode::Char('J'));
    let lines = viewer_lines(&app);
    let all = lines.concat();
    assert!(
        all.matches('w').count() < 20_000,
        "the 3 MB text is not copied whole"
    );
    assert!(all.contains("E exports it"), "what was left out is named");
    assert!(all.contains("MB"), "with its size");
}
