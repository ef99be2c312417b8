//! Saving artifacts from the console (`S`), headless against the embedded demo agent on 127.0.0.1: the
//! `files` scenario sends a source file and a PNG in one artifact and a `.bashrc` in another. The picker
//! reaches every part, the dialog shows the absolute path and flags the dotfile, an existing file (or a
//! symlink) is never written over or followed without a second, explicit `y`.
#![cfg(unix)] // symlinks and file modes
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::KeyCode;

const WAIT: Duration = Duration::from_secs(45);

struct Console {
    h: Headless,
    dir: tempfile::TempDir,
}

impl Console {
    /// A console on the demo agent whose saves go to a fresh directory, with the `files` task completed.
    async fn with_files(url: &str) -> Console {
        let dir = tempfile::tempdir().unwrap();
        let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
        app.size = (120, 40);
        app.save_dir = Some(dir.path().to_path_buf());
        let mut t = AgentTarget::from_url(url, Duration::from_secs(20));
        t.label = "demo".into();
        app.add_agent(t, AgentOrigin::Config);
        let (rt, rx) = Runtime::new(None, "dark").unwrap();
        let mut c = Console {
            h: Headless::start(app, rt, rx),
            dir,
        };
        c.wait("card 0.1.0").await;
        c.key(KeyCode::Char('n'));
        c.wait("Message → demo").await;
        c.h.type_text("files");
        c.key(KeyCode::Enter);
        c.wait("✓ completed").await;
        c.wait(".bashrc").await;
        // Leave the compose box: S is a key of the transcript.
        c.key(KeyCode::Esc);
        c
    }

    fn key(&self, code: KeyCode) {
        self.h.key(code);
    }

    async fn wait(&mut self, needle: &str) -> String {
        self.h
            .wait(needle, WAIT)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    async fn quit(self) {
        let done = self.h.finish(Duration::from_secs(10)).await.unwrap();
        done.result.unwrap();
    }
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_picker_reaches_a_second_file_part_and_saves_its_exact_bytes() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::with_files(&demo.base_url()).await;
    c.key(KeyCode::Char('S'));
    let screen = c.wait("Save · 3 parts").await;
    for needle in ["fib.rs", "plot.png", ".bashrc", "artifact 1", "artifact 2"] {
        assert!(
            screen.contains(needle),
            "{needle:?} not in the picker:\n{screen}"
        );
    }
    // The PNG is the second part of the first artifact: next to the source file, not the newest part.
    c.key(KeyCode::Down);
    c.key(KeyCode::Enter);
    let shown = format!("saves to {}", c.path("plot.png").display());
    c.wait(&shown).await;
    c.key(KeyCode::Enter);
    c.wait("saved 70 bytes").await;
    let bytes = std::fs::read(c.path("plot.png")).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.ends_with(b"IEND\xaeB`\x82"));
    assert_eq!(
        mode(&c.path("plot.png")),
        0o600,
        "private, never executable"
    );
    assert_eq!(std::fs::read_dir(c.dir.path()).unwrap().count(), 1);
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dotfile_is_flagged_and_an_existing_one_is_replaced_only_after_y() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::with_files(&demo.base_url()).await;
    std::fs::write(c.path(".bashrc"), b"# mine\n").unwrap();
    c.key(KeyCode::Char('S'));
    c.wait("Save · 3 parts").await;
    c.key(KeyCode::Char('}'));
    c.key(KeyCode::Enter);
    let screen = c
        .wait(&format!("saves to {}", c.path(".bashrc").display()))
        .await;
    assert!(
        screen.contains("⚠ dotfile"),
        "the dotfile is flagged:\n{screen}"
    );
    c.key(KeyCode::Enter);
    let screen = c.wait("Replace an existing file?").await;
    assert!(screen.contains("a file of 7 bytes"), "{screen}");
    // Enter is not a yes: back to the name, and the file is untouched.
    c.key(KeyCode::Enter);
    c.wait("not replaced").await;
    assert_eq!(std::fs::read(c.path(".bashrc")).unwrap(), b"# mine\n");
    // Esc at the second question keeps the file too.
    c.key(KeyCode::Enter);
    c.wait("Replace an existing file?").await;
    c.key(KeyCode::Esc);
    c.wait("left as it is").await;
    assert_eq!(std::fs::read(c.path(".bashrc")).unwrap(), b"# mine\n");
    // Only y replaces it.
    c.key(KeyCode::Char('S'));
    c.wait("Save · 3 parts").await;
    c.key(KeyCode::Char('}'));
    c.key(KeyCode::Enter);
    c.wait("⚠ dotfile").await;
    c.key(KeyCode::Enter);
    c.wait("Replace an existing file?").await;
    c.key(KeyCode::Char('y'));
    c.wait("saved 25 bytes").await;
    assert_eq!(
        std::fs::read(c.path(".bashrc")).unwrap(),
        b"alias sudo='echo caught'\n"
    );
    assert_eq!(mode(&c.path(".bashrc")), 0o600);
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_at_the_target_is_not_followed() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::with_files(&demo.base_url()).await;
    let victim = c.path("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    std::os::unix::fs::symlink(&victim, c.path("fib.rs")).unwrap();
    c.key(KeyCode::Char('S'));
    c.wait("Save · 3 parts").await;
    c.key(KeyCode::Enter);
    c.wait(&format!("saves to {}", c.path("fib.rs").display()))
        .await;
    c.key(KeyCode::Enter);
    let screen = c.wait("Replace an existing file?").await;
    assert!(screen.contains("symbolic link"), "{screen}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    c.key(KeyCode::Char('y'));
    c.wait("saved").await;
    // The link was replaced by a file of its own; what it pointed to is untouched.
    let meta = std::fs::symlink_metadata(c.path("fib.rs")).unwrap();
    assert!(meta.file_type().is_file());
    assert!(
        std::fs::read_to_string(c.path("fib.rs"))
            .unwrap()
            .contains("fn fib")
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    c.quit().await;
    demo.shutdown().await;
}
