//! The signals that end the console — SIGINT, SIGTERM, SIGHUP, SIGQUIT — handled so the terminal is always given
//! back: without a handler the kernel ends the process on the spot, leaving the terminal in the alternate
//! screen with mouse capture on. (In raw mode Ctrl-C is a key, not SIGINT, so these come from outside: `kill`,
//! a closed terminal window, a supervisor.)
//!
//! The first signal asks the event loop to quit (`Msg::Stop`), so the terminal guard restores the terminal and
//! the store writer commits what it holds, as for `q`. If the loop has not ended within [`GRACE`], or a second
//! signal comes, the terminal is restored here and the process exits at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::app::msg::Msg;

/// How long a clean quit may take after a signal before the process exits anyway.
pub const GRACE: Duration = Duration::from_secs(5);

/// Which signal ended the console, if one did.
#[derive(Clone, Default)]
pub struct Received(Arc<AtomicI32>);

impl Received {
    /// The signal's number (0: none).
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }
}

/// Listen for the four signals; each sends `Msg::Stop` on `tx`. `mouse` says what to turn off when the
/// terminal has to be restored from here.
#[cfg(unix)]
pub fn install(tx: UnboundedSender<Msg>, mouse: bool) -> Received {
    use tokio::signal::unix::{SignalKind, signal};
    let received = Received::default();
    for kind in [
        SignalKind::interrupt(),
        SignalKind::terminate(),
        SignalKind::hangup(),
        SignalKind::quit(),
    ] {
        let Ok(mut stream) = signal(kind) else {
            tracing::warn!("cannot listen for signal {}", kind.as_raw_value());
            continue;
        };
        let tx = tx.clone();
        let received = received.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                let signo = kind.as_raw_value();
                let first = received
                    .0
                    .compare_exchange(0, signo, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok();
                if !first {
                    // Asked twice: the user does not want to wait for the clean quit.
                    exit_now(mouse, signo);
                }
                tracing::info!("signal {signo}: quitting");
                let _ = tx.send(Msg::Stop);
                // A plain thread, not a task: it must fire even if the async runtime is what is stuck.
                let _ = std::thread::Builder::new()
                    .name("signal-grace".into())
                    .spawn(move || {
                        std::thread::sleep(GRACE);
                        exit_now(mouse, signo);
                    });
            }
        });
    }
    received
}

#[cfg(not(unix))]
pub fn install(_tx: UnboundedSender<Msg>, _mouse: bool) -> Received {
    Received::default()
}

/// Restore the terminal and exit with the shell's code for "ended by signal N".
fn exit_now(mouse: bool, signo: i32) -> ! {
    super::restore_terminal(mouse);
    std::process::exit(128 + signo);
}
