//! Writing an artifact's part to the file the user chose, on a blocking thread, reported back as
//! `Msg::SaveDone`.
//!
//! - A new file is created with `create_new` (`O_CREAT | O_EXCL`), which fails on anything already at the
//!   path — a file, a directory, or a symlink, dangling or not — so nothing is overwritten and no link is ever
//!   followed. The result says what is there, and the app asks the user again.
//! - Replacing (only after that second confirmation) writes a new file next to the target, the same way, and
//!   renames it over the target: a symlink at the target is replaced by the file, its own target untouched.
//! - Mode 0600 for every saved file: the bytes come from a remote agent and may be anything, so they stay
//!   private to the user and are never executable; making one readable by others, or runnable, is the user's
//!   decision (`chmod`), not the agent's. (0644 for "inert" types would rest on the agent's own media type.)

use std::fs::OpenOptions;
use std::path::Path;

use crate::app::msg::SaveResult;

/// Write `bytes` to `path` as a new file; with `replace`, over whatever is there (except a directory).
pub fn write(path: &Path, bytes: &[u8], replace: bool) -> SaveResult {
    write_slice(
        path,
        &crate::app::spool::TextSlice::Memory(std::sync::Arc::from(bytes)),
        replace,
    )
}

/// [`write`] for what the save dialog captured: bytes, or a range of a spool file copied a pass at a time.
pub fn write_slice(path: &Path, bytes: &crate::app::spool::TextSlice, replace: bool) -> SaveResult {
    if !replace {
        return match create_new(path, bytes) {
            Ok(()) => SaveResult::Saved(bytes.len()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                SaveResult::Exists(what_is_at(path))
            }
            Err(e) => SaveResult::Failed(e.to_string()),
        };
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return SaveResult::Failed("it is a directory".into());
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return SaveResult::Failed("not a file path".into());
    };
    let temp = dir.join(format!(
        ".{}.{}.a2a-console-part",
        name.to_string_lossy(),
        uuid::Uuid::new_v4().simple()
    ));
    let r = create_new(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    match r {
        Ok(()) => SaveResult::Saved(bytes.len()),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            SaveResult::Failed(e.to_string())
        }
    }
}

fn create_new(path: &Path, bytes: &crate::app::spool::TextSlice) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    bytes.write_to(&mut file)?;
    file.sync_all()
}

/// What is at `path`, in words, without following a link.
fn what_is_at(path: &Path) -> String {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let to = std::fs::read_link(path)
                .map(|t| {
                    format!(
                        " to {}",
                        crate::trust::sanitize::sanitize_line(&t.to_string_lossy()).0
                    )
                })
                .unwrap_or_default();
            format!("a symbolic link{to}; it would be replaced, never followed")
        }
        Ok(m) if m.is_dir() => "a directory".into(),
        Ok(m) => format!("a file of {} bytes", m.len()),
        Err(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_is_private_and_an_existing_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("report.csv");
        assert_eq!(write(&p, b"a,b\n", false), SaveResult::Saved(4));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        let again = write(&p, b"other", false);
        assert!(
            matches!(&again, SaveResult::Exists(w) if w.contains("file of 4")),
            "{again:?}"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"a,b\n");
        assert_eq!(write(&p, b"other", true), SaveResult::Saved(5));
        assert_eq!(std::fs::read(&p).unwrap(), b"other");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_at_the_target_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join(".bashrc");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let r = write(&link, b"rm -rf ~", false);
        assert!(
            matches!(&r, SaveResult::Exists(w) if w.contains("symbolic link")),
            "{r:?}"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // Confirmed: the link itself is replaced by a file; what it pointed to is untouched.
        assert_eq!(write(&link, b"new", true), SaveResult::Saved(3));
        assert!(
            !std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // A dangling link is not followed either.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(matches!(
            write(&dangling, b"x", false),
            SaveResult::Exists(_)
        ));
        assert!(!dir.path().join("nowhere").exists());
    }

    #[test]
    fn a_directory_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            matches!(write(dir.path(), b"x", false), SaveResult::Exists(w) if w.contains("directory"))
        );
        assert!(matches!(
            write(dir.path(), b"x", true),
            SaveResult::Failed(_)
        ));
    }
}
