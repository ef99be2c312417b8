//! Logging of what the push receiver refuses, summed up: anyone who can reach the port can send refusable
//! requests as fast as the machine allows (20 000 in a second is easy), so a line per refusal would let them
//! fill the disk through our log. The first refusal of a quiet period is logged at once, with its detail,
//! so a misconfigured agent is easy to diagnose; the ones after it only count, and one WARN line per interval
//! gives the counts by reason. The timer that writes that line exists only while there is something to
//! write, so an idle console still sleeps.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

pub(super) struct Refusals {
    interval: Duration,
    window: Mutex<Window>,
}

#[derive(Default)]
struct Window {
    /// A summary is due: the first refusal was logged and the timer runs.
    open: bool,
    /// Refusals since the first, by kind (fixed names, never sender text).
    counts: BTreeMap<&'static str, u64>,
}

impl Refusals {
    pub(super) fn new(interval: Duration) -> Refusals {
        Refusals {
            interval,
            window: Mutex::new(Window::default()),
        }
    }

    /// Count one refusal of `kind`; `detail` (already escaped by the caller) is built only when it is logged.
    pub(super) fn note(self: &Arc<Self>, kind: &'static str, detail: impl FnOnce() -> String) {
        let mut w = lock(&self.window);
        if w.open {
            *w.counts.entry(kind).or_default() += 1;
            return;
        }
        w.open = true;
        drop(w);
        tracing::warn!(
            "push receiver refused a request ({kind}): {}; more refusals are summed up every {} s",
            detail(),
            self.interval.as_secs_f32()
        );
        // Outside a runtime (cannot happen in the server) the counts are still written by `flush`.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let me = Arc::clone(self);
            rt.spawn(async move {
                tokio::time::sleep(me.interval).await;
                me.flush();
            });
        }
    }

    /// Write the counts gathered since the first refusal (if any) and start a new quiet period.
    pub(super) fn flush(&self) {
        let counts = {
            let mut w = lock(&self.window);
            w.open = false;
            std::mem::take(&mut w.counts)
        };
        if counts.is_empty() {
            return;
        }
        let total: u64 = counts.values().sum();
        let by_kind: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        tracing::warn!(
            "push receiver refused {total} more requests in the last {} s: {}",
            self.interval.as_secs_f32(),
            by_kind.join(", ")
        );
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
