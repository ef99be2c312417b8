//! The compose box and the one-line prompts as a shell user types in them (issue [10] items 7 and 16): readline's
//! keys edit, undo moves off Ctrl-U, closing a tab or quitting never loses a draft, Up recalls what any tab
//! sent, an address without a scheme gets one, and attachments are listed and can be dropped.

use crossterm::event::{KeyCode, KeyModifiers};

use super::update;
use crate::app::msg::{Effect, Msg};
use crate::app::state::{App, Focus, Overlay, PromptKind, View};
use crate::store::Store;
use crate::store::record::Record;
use crate::testing::app;
use crate::testing::keys::{ctrl, key, press};

fn alt(app: &mut App, code: KeyCode) -> Vec<Effect> {
    press(app, code, KeyModifiers::ALT)
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The active tab's compose box.
fn draft(app: &App) -> String {
    app.active_tab()
        .map(|t| t.compose.lines().join("\n"))
        .unwrap_or_default()
}

/// The open prompt's text.
fn prompt(app: &App) -> String {
    match &app.overlay {
        Some(Overlay::Prompt { input, .. }) => input.lines().join(""),
        _ => panic!("no prompt open"),
    }
}

fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

fn quits(fx: &[Effect]) -> bool {
    fx.iter().any(|e| matches!(e, Effect::Quit))
}

fn records(fx: Vec<Effect>) -> Vec<Record> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Record(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// A new tab with `text` typed into its box (focus still in the box).
fn typing(text: &str) -> App {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.focus, Focus::Compose);
    typed(&mut app, text);
    app
}

#[test]
fn ctrl_w_in_the_compose_box_deletes_a_word_and_the_tab_stays() {
    let mut app = typing("hello big world");
    let fx = ctrl(&mut app, 'w');
    assert_eq!(app.tabs.len(), 1, "the tab is still open: {fx:?}");
    assert_eq!(draft(&app), "hello big ");
    assert_eq!(app.focus, Focus::Compose);
    alt(&mut app, KeyCode::Backspace);
    assert_eq!(draft(&app), "hello ", "Alt-Backspace deletes a word too");
}

#[test]
fn readline_keys_edit_the_compose_box() {
    let mut app = typing("hello world");
    // Ctrl-U kills to the start of the line; Ctrl-Y yanks it back.
    ctrl(&mut app, 'u');
    assert_eq!(draft(&app), "", "Ctrl-U is kill-line, not undo");
    ctrl(&mut app, 'y');
    assert_eq!(draft(&app), "hello world");
    // Ctrl-A / Ctrl-E: start and end; Ctrl-D deletes under the cursor, Ctrl-H before it.
    ctrl(&mut app, 'a');
    ctrl(&mut app, 'd');
    assert_eq!(draft(&app), "ello world");
    ctrl(&mut app, 'e');
    ctrl(&mut app, 'h');
    assert_eq!(draft(&app), "ello worl");
    // Alt-B back a word, Ctrl-K kills to the end.
    alt(&mut app, KeyCode::Char('b'));
    ctrl(&mut app, 'k');
    assert_eq!(draft(&app), "ello ");
    // Ctrl-B / Ctrl-F a character; typing lands there.
    ctrl(&mut app, 'b');
    ctrl(&mut app, 'b');
    ctrl(&mut app, 'f');
    typed(&mut app, "X");
    assert_eq!(draft(&app), "elloX ");
    // Alt-F forward a word, from the start.
    ctrl(&mut app, 'a');
    alt(&mut app, KeyCode::Char('f'));
    typed(&mut app, "!");
    assert!(draft(&app).starts_with("elloX!"), "{:?}", draft(&app));
}

#[test]
fn undo_is_on_ctrl_z_and_ctrl_underscore() {
    let mut app = typing("keep this");
    ctrl(&mut app, 'w');
    assert_eq!(draft(&app), "keep ");
    ctrl(&mut app, 'z');
    assert_eq!(draft(&app), "keep this", "Ctrl-Z undoes");
    ctrl(&mut app, 'w');
    // Ctrl-_ reaches a program as 0x1F, which crossterm reports as Ctrl-7.
    ctrl(&mut app, '7');
    assert_eq!(draft(&app), "keep this", "Ctrl-_ undoes");
}

#[test]
fn readline_keys_edit_a_one_line_prompt() {
    let mut app = app();
    key(&mut app, KeyCode::Char('a'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::AddAgent,
            ..
        })
    ));
    typed(&mut app, "http://wrong host");
    ctrl(&mut app, 'w');
    assert_eq!(prompt(&app), "http://wrong ");
    assert_eq!(app.tabs.len(), 0);
    ctrl(&mut app, 'u');
    assert_eq!(prompt(&app), "", "Ctrl-U kills the line");
    ctrl(&mut app, 'y');
    assert_eq!(prompt(&app), "http://wrong ");
    ctrl(&mut app, 'a');
    ctrl(&mut app, 'k');
    assert_eq!(prompt(&app), "");
}

#[test]
fn ctrl_c_with_a_draft_asks_for_a_second_press_and_keeps_the_draft() {
    let mut app = typing("half a thought");
    let fx = ctrl(&mut app, 'c');
    assert!(!app.quit && !quits(&fx), "one Ctrl-C does not quit: {fx:?}");
    assert_eq!(draft(&app), "half a thought", "the draft is untouched");
    let said = status(&app);
    assert!(
        said.contains("draft") && said.contains("Ctrl-C again"),
        "{said}"
    );
    // Any other key in between starts over.
    key(&mut app, KeyCode::Left);
    assert!(!quits(&ctrl(&mut app, 'c')));
    // Two in a row quit.
    assert!(quits(&ctrl(&mut app, 'c')));
    assert!(app.quit);
}

#[test]
fn quitting_without_a_draft_is_one_key_as_before() {
    let mut app = app();
    assert!(quits(&key(&mut app, KeyCode::Char('q'))));
    let mut app = app_with_empty_tab();
    assert!(quits(&ctrl(&mut app, 'c')));
}

fn app_with_empty_tab() -> App {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    app
}

#[test]
fn a_draft_in_another_tab_holds_q_and_a_modal_s_ctrl_c_back_too() {
    let mut app = typing("unsent");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    assert!(!quits(&key(&mut app, KeyCode::Char('q'))), "q with a draft");
    assert!(status(&app).contains("q"), "{}", status(&app));
    assert!(quits(&key(&mut app, KeyCode::Char('q'))));

    let mut app = typing("unsent");
    ctrl(&mut app, 'p');
    assert!(matches!(app.overlay, Some(Overlay::Palette { .. })));
    assert!(!quits(&ctrl(&mut app, 'c')), "Ctrl-C in the palette");
    assert!(quits(&ctrl(&mut app, 'c')));
}

/// A tab that sent "asked" (so it is in the store), with `text` left in its box, on screen with command keys live.
fn stored_tab_with_draft(text: &str) -> (App, Store) {
    let store = Store::open_in_memory().unwrap();
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.tab_mut(id).unwrap().record_user("asked", vec![], "m1");
    app.tab_mut(id).unwrap().compose.insert_str(text);
    store
        .write_batch(
            &app.take_records(),
            &mut crate::store::WriterCache::default(),
        )
        .unwrap();
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    (app, store)
}

/// Ctrl-T as the runtime answers it: the store's closed tabs go back to `update`.
fn reopen(app: &mut App, store: &Store) {
    let fx = ctrl(app, 't');
    assert!(
        fx.iter().any(|e| matches!(e, Effect::LoadClosedTabs)),
        "{fx:?}"
    );
    let closed = store.closed_tabs(50).map_err(|e| e.to_string());
    update(app, Msg::ClosedTabs(closed));
}

#[test]
fn closing_a_tab_keeps_its_draft_and_ctrl_t_brings_it_back() {
    let (mut app, store) = stored_tab_with_draft("not sent yet");
    let fx = ctrl(&mut app, 'w');
    assert!(app.tabs.is_empty(), "Ctrl-W from the transcript closes");
    store
        .write_batch(&records(fx), &mut crate::store::WriterCache::default())
        .unwrap();
    reopen(&mut app, &store);
    assert_eq!(app.tabs.len(), 1);
    assert_eq!(draft(&app), "not sent yet", "the draft came back");
}

#[test]
fn a_closed_tab_s_draft_comes_back_in_a_later_run() {
    let (mut app, store) = stored_tab_with_draft("for tomorrow");
    let fx = ctrl(&mut app, 'w');
    store
        .write_batch(&records(fx), &mut crate::store::WriterCache::default())
        .unwrap();
    // A new console, same store.
    let mut later = crate::testing::app();
    reopen(&mut later, &store);
    assert_eq!(draft(&later), "for tomorrow");
}

#[test]
fn a_new_tab_closed_with_a_draft_can_be_reopened() {
    let store = Store::open_in_memory().unwrap();
    let mut app = typing("first words");
    key(&mut app, KeyCode::Esc);
    let fx = ctrl(&mut app, 'w');
    assert!(app.tabs.is_empty());
    store
        .write_batch(&records(fx), &mut crate::store::WriterCache::default())
        .unwrap();
    reopen(&mut app, &store);
    assert_eq!(draft(&app), "first words");
}

#[test]
fn without_a_store_ctrl_t_still_gives_the_draft_back() {
    let mut app = typing("no store here");
    key(&mut app, KeyCode::Esc);
    ctrl(&mut app, 'w');
    ctrl(&mut app, 't');
    update(
        &mut app,
        Msg::ClosedTabs(Err(
            "no local store: closed tabs are kept only with one".into()
        )),
    );
    assert_eq!(draft(&app), "no store here");
    assert!(status(&app).contains("draft"), "{}", status(&app));
}

#[test]
fn help_lists_the_compose_and_prompt_editing_keys() {
    let app = app();
    let page = crate::app::help::page(&app, 150);
    let text: Vec<String> = page.lines.iter().map(|l| format!("{l:?}")).collect();
    let text = text.join("\n");
    for needle in [
        "Text editing",
        "delete_word_back",
        "kill_to_start",
        "kill_to_end",
        "yank",
        "undo",
        "Ctrl-Z",
        "drop_attachment",
    ] {
        assert!(text.contains(needle), "help lacks {needle:?}");
    }
}

// ---- item 16 ----

fn add_agent(app: &mut App, typed_url: &str) -> Vec<Effect> {
    key(app, KeyCode::Esc);
    key(app, KeyCode::Char('a'));
    typed(app, typed_url);
    key(app, KeyCode::Enter)
}

fn added_url(fx: &[Effect]) -> Option<String> {
    fx.iter().find_map(|e| match e {
        Effect::LoadAgent { target, .. } => Some(target.url.clone()),
        _ => None,
    })
}

#[test]
fn an_address_without_a_scheme_gets_http_on_loopback_and_https_elsewhere() {
    for (typed_url, want, says) in [
        ("127.0.0.1:41243", "http://127.0.0.1:41243", "http://"),
        ("localhost:8080/a2a", "http://localhost:8080/a2a", "http://"),
        ("[::1]:9000", "http://[::1]:9000", "http://"),
        ("127.8.9.10:1", "http://127.8.9.10:1", "http://"),
        ("agent.example.com", "https://agent.example.com", "https://"),
        ("10.0.0.5:8443", "https://10.0.0.5:8443", "https://"),
    ] {
        let mut app = app();
        let fx = add_agent(&mut app, typed_url);
        assert_eq!(added_url(&fx).as_deref(), Some(want), "{typed_url}: {fx:?}");
        let said = status(&app);
        assert!(
            said.contains("no scheme") && said.contains(says),
            "{typed_url}: {said}"
        );
        // The config is written once the short-name prompt that follows is answered (Enter: no name).
        let fx = key(&mut app, KeyCode::Enter);
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::AddAgentToConfig { url, .. } if url == want)),
            "{typed_url}: the config gets the full address: {fx:?}"
        );
    }
    // A scheme given is kept, and not commented on; another scheme is still refused.
    let mut given = app();
    let fx = add_agent(&mut given, "http://agent.example.com");
    assert_eq!(added_url(&fx).as_deref(), Some("http://agent.example.com"));
    assert!(!status(&given).contains("no scheme"));
    let mut other = app();
    assert_eq!(added_url(&add_agent(&mut other, "ftp://x.example")), None);
    assert!(status(&other).contains("not an http(s) URL"));
}

fn send_from_new_tab(app: &mut App, text: &str) {
    key(app, KeyCode::Esc);
    key(app, KeyCode::Char('n'));
    typed(app, text);
    let fx = key(app, KeyCode::Enter);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Send { .. })),
        "{fx:?}"
    );
}

#[test]
fn up_recalls_messages_sent_from_any_tab_most_recent_first() {
    let mut app = app();
    send_from_new_tab(&mut app, "first, from tab 1");
    send_from_new_tab(&mut app, "second, from tab 2");
    // A third tab has sent nothing itself.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Up);
    assert_eq!(draft(&app), "second, from tab 2");
    key(&mut app, KeyCode::Up);
    assert_eq!(draft(&app), "first, from tab 1");
    key(&mut app, KeyCode::Down);
    assert_eq!(draft(&app), "second, from tab 2");
    key(&mut app, KeyCode::Down);
    assert_eq!(draft(&app), "", "past the newest: an empty box again");
}

/// Attach `path` through Ctrl-O and its prompt.
fn attach(app: &mut App, path: &str) {
    ctrl(app, 'o');
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::AttachFile,
            ..
        })
    ));
    typed(app, path);
    key(app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Compose);
}

/// The compose box's lower edge, where the attached files are listed.
fn attachments_line(app: &App) -> String {
    let screen = crate::testing::render_text(app);
    screen
        .lines()
        .find(|l| l.contains('📎'))
        .unwrap_or_else(|| panic!("no attachments line:\n{screen}"))
        .to_string()
}

#[test]
fn attachments_are_listed_by_name_and_one_can_be_dropped() {
    let mut app = typing("see attached");
    attach(&mut app, "/tmp/report-q3.pdf");
    attach(&mut app, "/tmp/notes.txt");
    let line = attachments_line(&app);
    assert!(
        line.contains("report-q3.pdf") && line.contains("notes.txt"),
        "each file by name: {line:?}"
    );
    assert!(line.contains("Alt-X"), "the key that drops one: {line:?}");
    assert!(
        !crate::testing::render_text(&app).contains("file(s)"),
        "no bare count"
    );
    // Alt-X drops the last one.
    alt(&mut app, KeyCode::Char('x'));
    let line = attachments_line(&app);
    assert!(line.contains("report-q3.pdf"), "{line:?}");
    assert!(!line.contains("notes.txt"), "{line:?}");
    assert!(status(&app).contains("notes.txt"), "{}", status(&app));
    assert_eq!(draft(&app), "see attached", "the text is untouched");
    let fx = key(&mut app, KeyCode::Enter);
    let files = fx.iter().find_map(|e| match e {
        Effect::Send { message, .. } => Some(message.files.clone()),
        _ => None,
    });
    assert_eq!(
        files,
        Some(vec![std::path::PathBuf::from("/tmp/report-q3.pdf")])
    );
}

/// The open tabs a new console would restore from `store`, with their drafts.
fn stored_drafts(store: &Store) -> Vec<Option<String>> {
    store
        .open_tabs()
        .unwrap()
        .into_iter()
        .map(|t| t.draft)
        .collect()
}

fn write(store: &Store, records: &[Record]) {
    store
        .write_batch(records, &mut crate::store::WriterCache::default())
        .unwrap();
}

/// A console killed without warning (kill -9, a crash) keeps what was typed up to a second before: the first
/// key schedules a save, the save writes the new tab's row and its draft, and a save with nothing changed
/// writes nothing.
#[test]
fn a_draft_is_in_the_store_a_second_after_the_first_key() {
    let before = std::time::Instant::now();
    let mut app = typing("half a");
    let due = app.drafts.save_due.expect("a save is scheduled");
    assert!(
        due > before && due <= std::time::Instant::now() + crate::app::draft::SAVE_AFTER,
        "due {:?} after the first key",
        due - before
    );
    typed(&mut app, " thought");
    assert_eq!(
        app.drafts.save_due,
        Some(due),
        "more keys do not push the save back"
    );
    let store = Store::open_in_memory().unwrap();
    let fx = update(&mut app, Msg::DraftsDue);
    write(&store, &records(fx));
    assert_eq!(stored_drafts(&store), vec![Some("half a thought".into())]);
    assert_eq!(app.drafts.save_due, None);
    let again = update(&mut app, Msg::DraftsDue);
    assert!(
        records(again).is_empty(),
        "nothing changed, nothing written"
    );
    // Closing the tab now records it closed (it has a row): the next start does not bring it back.
    key(&mut app, KeyCode::Esc);
    let fx = ctrl(&mut app, 'w');
    write(&store, &records(fx));
    assert!(stored_drafts(&store).is_empty());
}

/// Sending empties the box: the saved draft goes from the store with the same key, so a crash right after a
/// send does not offer the sent text again.
#[test]
fn a_sent_draft_leaves_the_store_with_the_key_that_sends_it() {
    let mut app = typing("ask once");
    let store = Store::open_in_memory().unwrap();
    let fx = update(&mut app, Msg::DraftsDue);
    write(&store, &records(fx));
    assert_eq!(stored_drafts(&store), vec![Some("ask once".into())]);
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Send { .. })),
        "{fx:?}"
    );
    let mut written = records(fx);
    written.extend(app.take_records());
    write(&store, &written);
    assert_eq!(stored_drafts(&store), vec![None]);
}

/// Blanks in a tab that has sent nothing are nothing to keep: no row, no draft.
#[test]
fn blanks_in_a_new_tab_are_not_saved() {
    let mut app = typing("   ");
    let fx = update(&mut app, Msg::DraftsDue);
    assert!(records(fx).is_empty());
    assert!(!app.active_tab().unwrap().stored);
}
