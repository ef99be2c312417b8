//! Files the console writes that hold secrets or conversations (the config, the store, the log): private
//! directories and files (0700 / 0600), and replacing a file atomically while keeping what the user chose for
//! it — its mode, its owner and, when it is a symlink, the link itself.
//!
//! Shared by `config/` (rewriting the config), `store/` (the database) and `tui/` (the log).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Symlinks followed before giving up, as the kernel does (`ELOOP` past 40).
const MAX_LINKS: usize = 40;

/// Create `dir` (and its missing parents) readable by the user alone. An existing directory is left as it is:
/// it may be the user's own (`A2A_CONSOLE_DB=/tmp/x/console.db`), and its mode is theirs to choose.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Take group and other permissions off a directory that belongs to the console alone (its log directory,
/// which older versions created 0755). Never used on a directory the user named.
pub fn tighten_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Create an empty file readable by the user alone, unless it exists.
pub fn create_private_file(path: &Path) -> io::Result<()> {
    match private_options().write(true).create_new(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Open `path` for appending, creating it 0600; an existing file that others can read (left by an older
/// version) is made private first.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let file = private_options().create(true).append(true).open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata()?.permissions().mode();
        if mode & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    Ok(file)
}

fn private_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

/// The file a path finally names: symlinks followed one by one (a relative link is relative to the directory
/// holding it), even when the last one points at nothing yet — so the file is created where the link says.
pub fn follow_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Edit a text file in place: `change` gets its text (empty when `missing_ok` and the file does not exist) and a
/// label naming it (its path) for messages, and returns the new text, or `None` to leave the file untouched.
/// The new text is written with [`replace`] (atomic; mode, owner and symlink kept). Says whether it wrote.
pub fn edit_text(
    path: &Path,
    missing_ok: bool,
    change: impl FnOnce(&str, &str) -> Result<Option<String>, String>,
) -> Result<bool, String> {
    let label = path.display().to_string();
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if missing_ok && e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {label}: {e}")),
    };
    let Some(new) = change(&text, &label)? else {
        return Ok(false);
    };
    replace(path, new.as_bytes()).map_err(|e| format!("cannot write {label}: {e}"))?;
    Ok(true)
}

/// Replace the file at `path` with `contents`, atomically: a crash leaves the old file or the new one, never
/// half of either. A symlink stays a symlink (its target is replaced); the target keeps its mode and, where the
/// system allows it, its owner and group. A file that did not exist is created 0600, in directories created
/// 0700. Returns the path actually written (the symlink's target).
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<PathBuf> {
    let target = follow_symlinks(path)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if existing.is_none() {
        create_private_dir(&dir)?;
    }
    // The temporary file lives next to the target, so the rename stays on one filesystem (and is atomic).
    let (tmp, mut file) = create_temp(&dir, &target)?;
    let written = (|| {
        #[cfg(unix)]
        if let Some(m) = &existing {
            use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
            // The owner first (changing it may clear set-id bits, which the mode below puts back). Only root
            // may give a file away; anyone may keep their own group, so try that alone when both fail.
            if fchown(&file, Some(m.uid()), Some(m.gid())).is_err() {
                let _ = fchown(&file, None, Some(m.gid()));
            }
            file.set_permissions(fs::Permissions::from_mode(m.permissions().mode() & 0o7777))?;
        }
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable only once the directory is: best effort, as not every filesystem allows it.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(target)
}

/// A new, private file next to `target`, named after it (`.config.toml.<pid>.<n>.tmp`).
fn create_temp(dir: &Path, target: &Path) -> io::Result<(PathBuf, File)> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let mut last = None;
    for n in 0..100u32 {
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match private_options().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            // Left by a crashed run with our pid, or another thread: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary file name")))
}
