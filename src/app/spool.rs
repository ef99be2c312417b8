//! An artifact's text as the transcript shows it (sanitised), held in memory while it is small and in a spool
//! file once it is large. A 100 MiB artifact kept as a `String` cost its size again in the view on top of the
//! gate's copy; spooled, the console holds a sparse line index (an entry every 64 lines or 64 KiB) and reads
//! only the window on screen, a search's pass, or a save's copy from the file.
//!
//! The file is the console's own: created 0600 in its data directory (`spool/`) and unlinked at once
//! (`tempfile::tempfile_in`), so it is gone when the view is dropped or the process dies, and nobody else can
//! open it by name. It is append-only: a range read once reads the same bytes for as long as the view lives,
//! which is what lets `S` capture "what the dialog showed" as a range rather than a copy.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Text beyond this many bytes goes to a spool file (above the largest artifact the console lays out as
/// markdown, so a laid-out artifact is always in memory).
pub const SPOOL_AT: usize = 4 * 1024 * 1024;
/// A line-index entry at least every this many lines …
const INDEX_LINES: usize = 64;
/// … or this many bytes, so finding a line never reads far past a long one.
const INDEX_BYTES: u64 = 64 * 1024;
/// A line read from the spool for drawing is cut after this many bytes (the screen shows a window of it).
pub const MAX_LINE_READ: usize = 256 * 1024;
/// How much of the file a pass (search, flags, save) reads at a time.
pub const PASS_BYTES: usize = 1024 * 1024;
/// How much drawing reads at a time: a screenful of ordinary lines is a few KiB, and a frame must stay cheap.
const DRAW_BYTES: usize = 64 * 1024;

/// Where spool files are made: the console's data directory (`spool/`), else the system's temp directory.
static SPOOL_DIR: OnceLock<PathBuf> = OnceLock::new();

fn dir() -> PathBuf {
    SPOOL_DIR
        .get_or_init(|| {
            directories::ProjectDirs::from("", "", "a2a-console")
                .map(|d| d.data_local_dir().join("spool"))
                .unwrap_or_else(std::env::temp_dir)
        })
        .clone()
}

/// An open spool file, shared with a save that is writing a range of it out.
#[derive(Clone, Debug)]
pub struct SpoolFile(Arc<Mutex<File>>);

impl SpoolFile {
    fn create() -> std::io::Result<Self> {
        let dir = dir();
        crate::files::create_private_dir(&dir)?;
        Ok(Self(Arc::new(Mutex::new(tempfile::tempfile_in(&dir)?))))
    }

    fn lock(&self) -> std::io::Result<std::sync::MutexGuard<'_, File>> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("the spool file's lock is poisoned"))
    }

    fn append(&self, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = self.lock()?;
        f.seek(SeekFrom::Start(at))?;
        f.write_all(bytes)
    }

    /// Up to `max` bytes from `at` (fewer at the end of the file).
    pub fn read(&self, at: u64, max: usize) -> std::io::Result<Vec<u8>> {
        let mut f = self.lock()?;
        f.seek(SeekFrom::Start(at))?;
        let mut buf = Vec::with_capacity(max.min(PASS_BYTES));
        Read::by_ref(&mut *f)
            .take(max as u64)
            .read_to_end(&mut buf)?;
        Ok(buf)
    }

    /// Copy `range` to `out` a pass at a time (a save: never the whole range in memory).
    pub fn copy_to(&self, range: Range<u64>, out: &mut impl Write) -> std::io::Result<u64> {
        let mut at = range.start;
        while at < range.end {
            let want = ((range.end - at) as usize).min(PASS_BYTES);
            let buf = self.read(at, want)?;
            if buf.is_empty() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the spool file is shorter than the text it holds",
                ));
            }
            out.write_all(&buf)?;
            at += buf.len() as u64;
        }
        Ok(at - range.start)
    }
}

#[derive(Debug)]
struct Spool {
    file: SpoolFile,
    /// `(line, byte offset)` of some line starts, in order; the first is `(0, 0)`.
    index: Vec<(usize, u64)>,
}

/// The sanitised text of an artifact, grown chunk by chunk.
#[derive(Debug, Default)]
pub struct ArtifactText {
    mem: String,
    spool: Option<Spool>,
    len: usize,
    newlines: usize,
    last: Option<u8>,
    /// Why the text could not be spooled (it is then kept in memory, as before spooling existed).
    pub spool_error: Option<String>,
}

impl ArtifactText {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn ends_with_newline(&self) -> bool {
        self.last == Some(b'\n')
    }

    /// Line breaks in the text.
    pub fn newlines(&self) -> usize {
        self.newlines
    }

    /// Lines as `str::lines` counts them.
    pub fn line_count(&self) -> usize {
        self.newlines + usize::from(self.len > 0 && !self.ends_with_newline())
    }

    /// Is the text in a spool file (and not in memory)?
    pub fn is_spooled(&self) -> bool {
        self.spool.is_some()
    }

    /// The whole text when it is in memory.
    pub fn as_str(&self) -> Option<&str> {
        self.spool.is_none().then_some(self.mem.as_str())
    }

    pub fn push_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.spool.is_none()
            && self.spool_error.is_none()
            && self.len.saturating_add(s.len()) > SPOOL_AT
        {
            self.start_spool();
        }
        let at = self.len as u64;
        let newlines_before = self.newlines;
        match &mut self.spool {
            Some(spool) => match spool.file.append(at, s.as_bytes()) {
                Ok(()) => index_lines(&mut spool.index, s.as_bytes(), at, newlines_before),
                Err(e) => {
                    // Nothing is lost: what the file holds comes back into memory, and the rest stays there.
                    self.spool_error = Some(format!("cannot write the spool file: {e}"));
                    self.unspool();
                    self.mem.push_str(s);
                }
            },
            None => self.mem.push_str(s),
        }
        self.len += s.len();
        self.newlines += memchr::memchr_iter(b'\n', s.as_bytes()).count();
        self.last = s.as_bytes().last().copied();
    }

    /// Spool now, whatever the size (the fuzzer and tests reach the file with small texts).
    #[cfg(any(test, feature = "testing"))]
    pub fn spool_now(&mut self) {
        if self.spool.is_none() {
            self.start_spool();
        }
    }

    fn start_spool(&mut self) {
        let file = match SpoolFile::create() {
            Ok(f) => f,
            Err(e) => {
                self.spool_error = Some(format!(
                    "cannot make a spool file in {}: {e}",
                    dir().display()
                ));
                return;
            }
        };
        if let Err(e) = file.append(0, self.mem.as_bytes()) {
            self.spool_error = Some(format!("cannot write the spool file: {e}"));
            return;
        }
        let mut index = vec![(0, 0)];
        index_lines(&mut index, self.mem.as_bytes(), 0, 0);
        self.mem = String::new();
        self.spool = Some(Spool { file, index });
    }

    /// Bring a spool that failed back into memory (best effort: what cannot be read is lost from the view, and
    /// said so in `spool_error`).
    fn unspool(&mut self) {
        if let Some(spool) = self.spool.take() {
            match spool.file.read(0, self.len) {
                Ok(bytes) => self.mem = String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    self.spool_error = Some(format!("cannot read the spool file back: {e}"));
                }
            }
        }
    }

    /// The text in `range`: borrowed when in memory, read from the spool (whole: callers bound it) otherwise.
    pub fn get(&self, range: Range<usize>) -> Option<Cow<'_, str>> {
        match &self.spool {
            None => self.mem.get(range).map(Cow::Borrowed),
            Some(s) => {
                if range.end > self.len || range.start > range.end {
                    return None;
                }
                let bytes = s.file.read(range.start as u64, range.len()).ok()?;
                String::from_utf8(bytes).ok().map(Cow::Owned)
            }
        }
    }

    /// `range` of the text for a save, without copying it: the spool file and the range, or the bytes.
    pub fn slice(&self, range: Range<usize>) -> Option<TextSlice> {
        if range.end > self.len || range.start > range.end {
            return None;
        }
        Some(match &self.spool {
            None => TextSlice::Memory(Arc::from(self.mem.get(range)?.as_bytes())),
            Some(s) => TextSlice::Spool {
                file: s.file.clone(),
                range: range.start as u64..range.end as u64,
            },
        })
    }

    /// Up to `n` lines from line `first` on (each cut at [`MAX_LINE_READ`] bytes), for drawing.
    pub fn lines_from(&self, first: usize, n: usize) -> Vec<Cow<'_, str>> {
        let Some(s) = &self.spool else {
            return self
                .mem
                .lines()
                .skip(first)
                .take(n)
                .map(Cow::Borrowed)
                .collect();
        };
        if n == 0 || first >= self.line_count() {
            return Vec::new();
        }
        let k = s.index.partition_point(|(line, _)| *line <= first);
        let (mut line, mut at) = s.index.get(k.saturating_sub(1)).copied().unwrap_or((0, 0));
        let mut out = Vec::new();
        let mut current: Vec<u8> = Vec::new();
        let end = self.len as u64;
        while at < end && out.len() < n {
            let Ok(buf) = s.file.read(at, DRAW_BYTES.min((end - at) as usize)) else {
                break;
            };
            if buf.is_empty() {
                break;
            }
            let mut rest = buf.as_slice();
            while !rest.is_empty() && out.len() < n {
                let (piece, ended) = match memchr::memchr(b'\n', rest) {
                    Some(i) => (rest.get(..i).unwrap_or_default(), true),
                    None => (rest, false),
                };
                if line >= first && current.len() < MAX_LINE_READ {
                    let room = MAX_LINE_READ - current.len();
                    current.extend_from_slice(piece.get(..room.min(piece.len())).unwrap_or(piece));
                }
                rest = rest
                    .get(piece.len() + usize::from(ended)..)
                    .unwrap_or_default();
                if ended {
                    if line >= first {
                        // As `str::lines`: a CR before the LF is part of the line ending.
                        if current.last() == Some(&b'\r') {
                            current.pop();
                        }
                        out.push(Cow::Owned(lossy(std::mem::take(&mut current))));
                    }
                    line += 1;
                }
            }
            at += buf.len() as u64;
        }
        if out.len() < n && line >= first && at >= end && !self.ends_with_newline() {
            // The last line, without a newline after it.
            out.push(Cow::Owned(lossy(current)));
        }
        out
    }

    /// The last `n` lines (or as many as end in the last [`PASS_BYTES`]: a longer line fills the screen
    /// anyway), in order; the first may be the end of a longer line.
    pub fn last_lines(&self, n: usize) -> Vec<Cow<'_, str>> {
        let Some(s) = &self.spool else {
            let mut v: Vec<Cow<'_, str>> =
                self.mem.lines().rev().take(n).map(Cow::Borrowed).collect();
            v.reverse();
            return v;
        };
        // From the last 64 KiB, growing (up to a pass) only while that holds fewer than `n` whole lines.
        let mut want = DRAW_BYTES;
        loop {
            let from = self.len.saturating_sub(want);
            let Ok(buf) = s.file.read(from as u64, self.len - from) else {
                return Vec::new();
            };
            let whole = buf.iter().filter(|b| **b == b'\n').count();
            if whole > n || from == 0 || want >= PASS_BYTES {
                let text = lossy(buf);
                let mut v: Vec<Cow<'_, str>> = text
                    .lines()
                    .rev()
                    .take(n)
                    .map(|l| Cow::Owned(l.to_string()))
                    .collect();
                v.reverse();
                return v;
            }
            want *= 4;
        }
    }

    /// The text a pass at a time, each piece ending at a line break where there is one (a paragraph break if
    /// one is near the end), with the number of lines before it: for a search or a flags scan that must not
    /// hold the whole text. `f` returns false to stop.
    pub fn for_each_piece(&self, mut f: impl FnMut(usize, &str) -> bool) {
        let Some(s) = &self.spool else {
            f(0, &self.mem);
            return;
        };
        let (mut at, mut line) = (0usize, 0usize);
        while at < self.len {
            let want = PASS_BYTES.min(self.len - at);
            let Ok(mut buf) = s.file.read(at as u64, want) else {
                return;
            };
            if buf.is_empty() {
                return;
            }
            if at + buf.len() < self.len {
                buf.truncate(piece_end(&buf));
            }
            let taken = buf.len().max(1);
            let piece = lossy(buf);
            if !f(line, &piece) {
                return;
            }
            line += memchr::memchr_iter(b'\n', piece.as_bytes()).count();
            at += taken;
        }
    }
}

/// Where a pass should end: after the last paragraph break in its last 64 KiB, else after its last line
/// break, else before a character the cut would split.
pub fn piece_end(buf: &[u8]) -> usize {
    let tail_from = buf.len().saturating_sub(64 * 1024);
    let tail = buf.get(tail_from..).unwrap_or_default();
    if let Some(i) = memchr::memmem::rfind(tail, b"\n\n") {
        return tail_from + i + 2;
    }
    if let Some(i) = memchr::memrchr(b'\n', buf) {
        return i + 1;
    }
    match std::str::from_utf8(buf) {
        Err(e) if e.error_len().is_none() && e.valid_up_to() > 0 => e.valid_up_to(),
        _ => buf.len(),
    }
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Add index entries for the line starts in `bytes` (which begins at byte `at`, on line `line`).
fn index_lines(index: &mut Vec<(usize, u64)>, bytes: &[u8], at: u64, mut line: usize) {
    for i in memchr::memchr_iter(b'\n', bytes) {
        line += 1;
        let start = at + i as u64 + 1;
        let (l, o) = index.last().copied().unwrap_or((0, 0));
        if line - l >= INDEX_LINES || start - o >= INDEX_BYTES {
            index.push((line, start));
        }
    }
}

/// A range of an artifact's text captured for a save: the bytes, or where they are in its spool file.
#[derive(Clone, Debug)]
pub enum TextSlice {
    Memory(Arc<[u8]>),
    Spool { file: SpoolFile, range: Range<u64> },
}

impl TextSlice {
    pub fn len(&self) -> usize {
        match self {
            TextSlice::Memory(b) => b.len(),
            TextSlice::Spool { range, .. } => (range.end - range.start) as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All of it (tests, and small captures).
    pub fn to_vec(&self) -> Vec<u8> {
        self.head(self.len())
    }

    /// Its first `n` bytes (fewer when shorter; none when the spool cannot be read).
    pub fn head(&self, n: usize) -> Vec<u8> {
        match self {
            TextSlice::Memory(b) => b.get(..n.min(b.len())).unwrap_or_default().to_vec(),
            TextSlice::Spool { file, range } => file
                .read(range.start, n.min(self.len()))
                .unwrap_or_default(),
        }
    }

    /// Write it all to `out`.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        match self {
            TextSlice::Memory(b) => out.write_all(b),
            TextSlice::Spool { file, range } => file.copy_to(range.clone(), out).map(|_| ()),
        }
    }
}

impl From<Arc<[u8]>> for TextSlice {
    fn from(b: Arc<[u8]>) -> Self {
        TextSlice::Memory(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spooled(text: &str) -> ArtifactText {
        let mut t = ArtifactText::default();
        t.push_str(text);
        t.start_spool();
        assert!(t.is_spooled(), "{:?}", t.spool_error);
        t
    }

    #[test]
    fn a_large_text_leaves_memory_and_reads_back_line_by_line() {
        let line = "x".repeat(99) + "\n";
        let mut t = ArtifactText::default();
        let mut whole = String::new();
        while t.len() <= SPOOL_AT {
            t.push_str(&line.repeat(1000));
            whole.push_str(&line.repeat(1000));
        }
        t.push_str("tail without newline");
        whole.push_str("tail without newline");
        assert!(t.is_spooled());
        assert!(t.as_str().is_none());
        assert_eq!(t.len(), whole.len());
        assert_eq!(t.line_count(), whole.lines().count());
        for first in [0, 1, 63, 64, 65, 12_345, t.line_count() - 2] {
            let want: Vec<&str> = whole.lines().skip(first).take(5).collect();
            let got: Vec<String> = t
                .lines_from(first, 5)
                .into_iter()
                .map(|c| c.into_owned())
                .collect();
            assert_eq!(got, want, "from line {first}");
        }
        let last: Vec<String> = t
            .last_lines(3)
            .into_iter()
            .map(|c| c.into_owned())
            .collect();
        let want: Vec<&str> = whole
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert_eq!(last, want);
        assert_eq!(t.get(5..20).as_deref(), whole.get(5..20));
    }

    #[test]
    fn passes_cover_the_text_once_with_their_line_numbers() {
        let mut text = String::new();
        for i in 0..200_000 {
            text.push_str(&format!("line {i}\n"));
            if i % 1000 == 0 {
                text.push('\n');
            }
        }
        let t = spooled(&text);
        let mut joined = String::new();
        let mut lines_seen = 0;
        t.for_each_piece(|line, piece| {
            assert_eq!(line, lines_seen);
            lines_seen += piece.matches('\n').count();
            joined.push_str(piece);
            true
        });
        assert_eq!(joined, text);
    }

    #[test]
    fn a_saved_slice_is_the_text_as_it_was() {
        let t = spooled("héllo\nworld\n");
        let slice = t.slice(0..6).unwrap();
        let mut out = Vec::new();
        slice.write_to(&mut out).unwrap();
        assert_eq!(out, "héllo".as_bytes());
    }

    #[test]
    fn one_huge_line_is_read_cut() {
        let t = spooled(&"y".repeat(3 * MAX_LINE_READ));
        let l = t.lines_from(0, 2);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].len(), MAX_LINE_READ);
        assert!(!t.last_lines(1).is_empty());
    }
}
