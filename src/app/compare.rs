//! Two tasks side by side (`=` on the board, with two tasks marked): each tab read as the suite module's
//! [`Observed`] (its states in order, when its first event and its end came after the user's first message,
//! the agent's messages, its artifacts and their flags), a summary column for each, and the lines of what
//! changed, from the same comparison `a2a-console compare` prints. Everything here was sanitised when the tab
//! received it, and is again as the page is built.

use chrono::{DateTime, Local};

use crate::app::ids::TabId;
use crate::app::state::App;
use crate::app::task::{Entry, TaskTab};
use crate::suite::compare::{self, Line};
use crate::suite::observe::{Observed, artifacts_of};
use crate::task::phase::state_name;
use crate::trust::sanitize::sanitize_line;

/// What the compare page shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComparePage {
    pub title: String,
    pub left: Vec<String>,
    pub right: Vec<String>,
    pub lines: Vec<Line>,
}

/// A tab's task as observed.
pub fn observed(tab: &TaskTab) -> Observed {
    let mut seen = Observed {
        task_id: tab.log.task_id.clone(),
        context_id: tab.log.context_id.clone(),
        ..Observed::default()
    };
    let mut start: Option<DateTime<Local>> = None;
    let mut last: Option<DateTime<Local>> = None;
    let ms = |from: Option<DateTime<Local>>, to: DateTime<Local>| {
        from.map_or(0, |s| {
            u64::try_from((to - s).num_milliseconds()).unwrap_or(0)
        })
    };
    // The task the tab shows now: a tab that ran several keeps the earlier ones above it.
    for e in tab.current_task_entries() {
        match e {
            Entry::User { at, .. } => {
                start.get_or_insert(*at);
            }
            Entry::State { state, at } => {
                let name = state_name(state).to_string();
                if seen.states.last() != Some(&name) {
                    seen.states.push(name);
                }
                seen.events += 1;
                if seen.first_event_ms.is_none() {
                    seen.first_event_ms = Some(ms(start, *at));
                }
                last = Some(*at);
            }
            Entry::Remote { text, at, .. } => {
                seen.events += 1;
                if seen.first_event_ms.is_none() {
                    seen.first_event_ms = Some(ms(start, *at));
                }
                last = Some(*at);
                for f in &text.findings.flags {
                    let line = format!("{} (message)", f.kind.label());
                    if !seen.flags.contains(&line) {
                        seen.flags.push(line);
                    }
                }
                if seen.messages.last().map(String::as_str) != Some(text.as_str()) {
                    seen.messages.push(text.as_str().to_string());
                }
            }
            Entry::Console { .. } | Entry::Artifact { .. } => {}
        }
    }
    seen.total_ms = last.map_or(0, |l| ms(start, l));
    seen.final_state = tab
        .log
        .phase()
        .map(|_| state_name(&tab.log.state).to_string());
    seen.artifacts = artifacts_of(&tab.log, &mut seen.flags);
    seen
}

fn label(tab: &TaskTab) -> String {
    format!(
        "task {} of {}",
        tab.log
            .task_id
            .as_deref()
            .map_or("(none yet)".to_string(), |id| {
                crate::task::short_id::tail(id, 8)
            }),
        tab.agent_name
    )
}

/// One column: the task, its states, its timings, its artifacts, its flags.
fn summary(tab: &TaskTab, o: &Observed) -> Vec<String> {
    let mut out = vec![
        label(tab),
        format!("states: {}", o.states_line()),
        o.timing_line(),
        format!("artifacts: {}", o.artifacts.len()),
    ];
    for a in &o.artifacts {
        out.push(format!("  {}", a.summary()));
    }
    out.push(if o.flags.is_empty() {
        "flags: none".to_string()
    } else {
        format!("flags: {}", o.flags.join(", "))
    });
    out
}

/// Every line one line with no control in it, whatever the tab held (it was sanitised as it arrived; the
/// page is the last step before the screen).
fn clean(lines: Vec<String>) -> Vec<String> {
    lines.iter().map(|l| sanitize_line(l).0).collect()
}

/// The page comparing tab `a` (before) with tab `b` (after); `None` when either is gone.
pub fn page(app: &App, a: TabId, b: TabId) -> Option<ComparePage> {
    let (ta, tb) = (app.tab(a)?, app.tab(b)?);
    let (oa, ob) = (observed(ta), observed(tb));
    let c = compare::tasks(&label(ta), &oa, &label(tb), &ob);
    Some(ComparePage {
        title: format!(
            "compare: {} ⇄ {} · {}",
            label(ta),
            label(tb),
            if c.changed == 0 {
                "nothing changed"
            } else {
                "changes below"
            }
        ),
        left: clean(summary(ta, &oa)),
        right: clean(summary(tb, &ob)),
        // The heading repeats the title.
        lines: c
            .lines
            .into_iter()
            .skip(1)
            .map(|mut l| {
                l.text = sanitize_line(&l.text).0;
                l
            })
            .collect(),
    })
}
