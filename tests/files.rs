//! The files the console writes stay private and where the user put them: adding or removing an agent (`a`,
//! `d`) keeps the config's mode, owner and symlink; a config the console creates is 0600 in a 0700 directory;
//! the log is 0600 in a 0700 directory and rotates past its size cap.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use a2a_console::files::edit_text;

// The console's way of editing its config: the text edits of `config::edit` through `files::edit_text`.
fn add_agent(p: &Path, url: &str, name: Option<&str>) -> Result<(), String> {
    edit_text(p, true, |t, l| {
        a2a_console::config::edit::add_agent(t, l, url, name)
    })
    .map(|_| ())
}
fn remove_agent(p: &Path, url: &str) -> Result<bool, String> {
    edit_text(p, true, |t, l| {
        a2a_console::config::edit::remove_agent(t, l, url)
    })
}
use a2a_console::tui::logfile::RotatingLog;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn chmod(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

/// Names in `dir` other than `keep` (a temporary file left behind would show here).
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

const CONFIG: &str = "# mine\ntimeout_secs = 5\n\n[[agents]]\nurl = \"http://127.0.0.1:1\"\nheaders = { \"X-Tenant\" = \"blue\" }\n";

#[test]
fn a_0640_config_stays_0640_after_adding_and_after_removing_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("config.toml");
    std::fs::write(&p, CONFIG).unwrap();
    chmod(&p, 0o640);

    add_agent(&p, "http://127.0.0.1:2", None).unwrap();
    assert_eq!(mode(&p), 0o640, "after adding an agent");
    assert!(std::fs::read_to_string(&p).unwrap().contains("127.0.0.1:2"));

    assert!(remove_agent(&p, "http://127.0.0.1:1").unwrap());
    assert_eq!(mode(&p), 0o640, "after removing an agent");
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("# mine") && !text.contains("127.0.0.1:1\""),
        "{text}"
    );
    assert_eq!(others(dir.path(), &["config.toml"]), Vec::<String>::new());
}

#[test]
fn a_0600_config_stays_0600_and_is_never_world_readable() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("config.toml");
    std::fs::write(&p, CONFIG).unwrap();
    chmod(&p, 0o600);
    add_agent(&p, "http://127.0.0.1:2", None).unwrap();
    assert_eq!(mode(&p), 0o600);
}

#[test]
fn a_symlinked_config_stays_a_symlink_and_its_target_gets_the_change() {
    // The usual dotfiles layout: ~/.config/a2a-console/config.toml -> ../../dotfiles/a2a.toml (relative).
    let root = tempfile::tempdir().unwrap();
    let dotfiles = root.path().join("dotfiles");
    let conf = root.path().join("config/a2a-console");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(&conf).unwrap();
    let target = dotfiles.join("a2a.toml");
    std::fs::write(&target, CONFIG).unwrap();
    chmod(&target, 0o600);
    let link = conf.join("config.toml");
    std::os::unix::fs::symlink("../../dotfiles/a2a.toml", &link).unwrap();

    add_agent(&link, "http://127.0.0.1:2", None).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the config must still be a symlink"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../../dotfiles/a2a.toml")
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(
        text.contains("127.0.0.1:2") && text.contains("# mine"),
        "{text}"
    );
    assert_eq!(mode(&target), 0o600, "the target keeps its mode");

    assert!(remove_agent(&link, "http://127.0.0.1:1").unwrap());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        !std::fs::read_to_string(&target)
            .unwrap()
            .contains("127.0.0.1:1\"")
    );
    assert_eq!(others(&conf, &["config.toml"]), Vec::<String>::new());
    assert_eq!(others(&dotfiles, &["a2a.toml"]), Vec::<String>::new());
}

#[test]
fn a_config_the_console_creates_is_0600_in_a_0700_directory() {
    let root = tempfile::tempdir().unwrap();
    let p = root.path().join("config/a2a-console/config.toml");
    add_agent(&p, "http://127.0.0.1:3", None).unwrap();
    assert_eq!(mode(&p), 0o600);
    assert_eq!(mode(p.parent().unwrap()), 0o700);
    assert_eq!(mode(&root.path().join("config")), 0o700);
    let c = a2a_console::config::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(c.agents[0].url, "http://127.0.0.1:3");
}

#[test]
fn the_config_keeps_its_owner_and_group_where_the_system_allows_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("config.toml");
    std::fs::write(&p, CONFIG).unwrap();
    if std::fs::metadata(&p).unwrap().uid() != 0 {
        // Only root may give a file away, so only root can set this case up.
        eprintln!("skipped: needs root to give the config to another user");
        return;
    }
    std::os::unix::fs::chown(&p, Some(4242), Some(4343)).unwrap();
    add_agent(&p, "http://127.0.0.1:2", None).unwrap();
    let m = std::fs::metadata(&p).unwrap();
    assert_eq!((m.uid(), m.gid()), (4242, 4343));
}

#[test]
fn the_log_is_0600_in_a_0700_directory_and_rotates_past_its_cap() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("state/a2a-console/console.log");
    let mut log = RotatingLog::open(&path, 1000, 2).unwrap();
    use std::io::Write;
    for i in 0..100 {
        // 50 bytes a line, as one write each (as `tracing` hands over one event).
        log.write_all(format!("line {i:04} {}\n", "x".repeat(39)).as_bytes())
            .unwrap();
    }
    log.flush().unwrap();
    let r1 = RotatingLog::rotated(&path, 1);
    let r2 = RotatingLog::rotated(&path, 2);
    let r3 = RotatingLog::rotated(&path, 3);
    assert!(path.exists() && r1.exists() && r2.exists());
    assert!(!r3.exists(), "only two old files are kept");
    for p in [&path, &r1, &r2] {
        assert!(
            std::fs::metadata(p).unwrap().len() <= 1000,
            "{p:?} is over the cap"
        );
        assert_eq!(mode(p), 0o600, "{p:?}");
    }
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    // The newest lines are in console.log, the ones before in .1, then .2; files are cut between lines.
    let all: String = [&r2, &r1, &path]
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(all.ends_with(&format!("line 0099 {}\n", "x".repeat(39))));
    let numbers: Vec<u32> = all.lines().map(|l| l[5..9].parse().unwrap()).collect();
    assert!(
        numbers.windows(2).all(|w| w[1] == w[0] + 1),
        "in order, none lost within the kept files: {numbers:?}"
    );
    assert_eq!(numbers.len(), 60, "three files of 20 lines each");
}

#[test]
fn a_log_an_older_version_left_world_readable_is_made_private() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("console.log");
    std::fs::write(&path, "old line\n").unwrap();
    chmod(&path, 0o644);
    let mut log = RotatingLog::open(&path, 1_000_000, 3).unwrap();
    use std::io::Write;
    log.write_all(b"new line\n").unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "old line\nnew line\n"
    );
}

#[test]
fn one_line_over_the_whole_cap_is_cut_not_written_whole() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("console.log");
    let mut log = RotatingLog::open(&path, 1000, 1).unwrap();
    use std::io::Write;
    log.write_all(&vec![b'y'; 5000]).unwrap();
    log.write_all(b"after\n").unwrap();
    let r1 = RotatingLog::rotated(&path, 1);
    assert!(std::fs::metadata(&r1).unwrap().len() <= 1000);
    assert!(std::fs::read_to_string(&r1).unwrap().ends_with("cap]\n"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "after\n");
}
