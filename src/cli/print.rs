//! Every byte the CLI writes to stdout goes through [`write`], so a reader that goes away early
//! (`a2a-console export ID | head -1`) ends the program quietly instead of panicking in `print!`.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an `EPIPE` error, which `print!` turns into the
//! panic "failed printing to stdout: Broken pipe" (exit 101). C tools die of SIGPIPE instead, which the shell
//! reports as 141; we exit with that same code ([`Exit::OutputClosed`]): nothing is printed, and a script using
//! `set -o pipefail` still learns that the output was cut short, as it would with `cat`. Restoring the
//! default signal action would need `unsafe` and libc, which this crate forbids.

use std::io::{ErrorKind, Write};

use super::exit::Exit;

/// Writes `s` to stdout and flushes it (streams and tables are read as they come). If stdout is gone, exits.
pub fn write(s: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(s.as_bytes()).and_then(|()| stdout.flush()) {
        output_failed(&e)
    }
}

/// Ends the program because stdout cannot be written: silently when the reader closed the pipe, with one
/// line on stderr for anything else (a full disk behind a redirect). `process::exit` rather than unwinding
/// back to `main`: nobody can read what else the command would print, the CLI holds no terminal state to
/// restore, and the store's SQLite transactions survive an exit as they survive a kill.
fn output_failed(e: &std::io::Error) -> ! {
    if e.kind() != ErrorKind::BrokenPipe {
        super::report::failure(
            super::report::Kind::Output,
            &format!("cannot write the output: {e}"),
            Exit::OutputClosed,
        );
    }
    std::process::exit(i32::from(Exit::OutputClosed.code()))
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::print::write(&format!($($arg)*))
    };
}

/// `println!` through [`write`].
macro_rules! outln {
    () => {
        $crate::cli::print::write("\n")
    };
    ($($arg:tt)*) => {
        $crate::cli::print::write(&format!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
