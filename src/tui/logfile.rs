//! The console's log file, capped in size: past the cap `console.log` becomes `console.log.1` (the older ones
//! move up one, the oldest is dropped), so a flood of log lines (a hostile push sender, a debug wire log) can
//! never fill the disk. Every file is 0600 in a 0700 directory: the log names agents, tasks and errors.
//!
//! Our own small writer rather than a crate: `tracing-appender` rotates by time only and cannot set a file
//! mode; `file-rotate` rotates by size but panics (`expect`) when it cannot create the log directory, even
//! from inside a write, and silently drops lines when the file cannot be opened.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Each file's cap.
pub const MAX_BYTES: u64 = 5 * 1024 * 1024;
/// Rotated files kept next to the current one (`console.log.1` … `console.log.3`): at most 20 MB in all.
pub const KEEP: usize = 3;

/// What ends a line cut short because it alone was over the cap.
const CUT: &[u8] = b" [cut: over the log's size cap]\n";

/// A `Write` that appends to `path` and rotates it when the next write would take it past `max_bytes`.
pub struct RotatingLog {
    path: PathBuf,
    file: Option<File>,
    size: u64,
    max_bytes: u64,
    keep: usize,
}

impl RotatingLog {
    /// Open (creating the directory 0700 and the file 0600) with the given cap and number of old files kept.
    pub fn open(path: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        if let Some(dir) = path.parent() {
            crate::files::create_private_dir(dir)?;
        }
        let file = crate::files::open_private_append(path)?;
        let size = file.metadata()?.len();
        Ok(Self {
            path: path.to_path_buf(),
            file: Some(file),
            size,
            // A cap below one short line would rotate on every write.
            max_bytes: max_bytes.max(CUT.len() as u64 * 2),
            keep,
        })
    }

    /// `console.log.N`.
    pub fn rotated(path: &Path, n: usize) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        // Oldest first, so each rename lands on a name already moved away (rename replaces the last one).
        for n in (1..self.keep).rev() {
            match fs::rename(
                Self::rotated(&self.path, n),
                Self::rotated(&self.path, n + 1),
            ) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        let moved = if self.keep == 0 {
            fs::remove_file(&self.path)
        } else {
            fs::rename(&self.path, Self::rotated(&self.path, 1))
        };
        match moved {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.file = Some(crate::files::open_private_append(&self.path)?);
        self.size = 0;
        Ok(())
    }

    fn file(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            // A failed rotation left no file open: try again now, so logging resumes once the cause is gone.
            let f = crate::files::open_private_append(&self.path)?;
            self.size = f.metadata()?.len();
            self.file = Some(f);
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the log file is not open"))
    }
}

impl Write for RotatingLog {
    /// `tracing`'s formatter hands over one whole event per call, so files are cut between lines.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let len = buf.len() as u64;
        if self.size > 0 && self.size + len > self.max_bytes {
            self.rotate()?;
        }
        let max = self.max_bytes;
        let file = self.file()?;
        if len > max {
            // One line over the whole cap would make a file over it: keep its start and say it was cut.
            let keep = (max as usize).saturating_sub(CUT.len());
            file.write_all(&buf[..keep])?;
            file.write_all(CUT)?;
            self.size += (keep + CUT.len()) as u64;
        } else {
            file.write_all(buf)?;
            self.size += len;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}
