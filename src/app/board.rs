//! The board: every task across every agent in one list, the ones that need a human first (auth-required,
//! input-required), then running, then finished; filtered by agent, state or text.

use super::ids::TabId;
use super::state::App;
use super::task::TaskTab;
use super::task::badge::Badge;

/// Sort rank: what needs the user comes first.
fn rank(b: Badge) -> u8 {
    match b {
        Badge::AuthRequired => 0,
        Badge::InputRequired => 1,
        Badge::Disconnected | Badge::Lost => 2,
        Badge::Working | Badge::Submitted | Badge::Connecting => 3,
        Badge::Idle => 4,
        Badge::Completed | Badge::Failed | Badge::Canceled | Badge::Rejected => 5,
    }
}

fn matches_query(t: &TaskTab, q: &str) -> bool {
    if q.is_empty() {
        return true;
    }
    let q = q.to_lowercase();
    let hay = [
        t.agent_name.as_str(),
        t.log.task_id.as_deref().unwrap_or(""),
        t.log.context_id.as_deref().unwrap_or(""),
        t.last_remote_text().unwrap_or(""),
    ];
    hay.iter().any(|h| h.to_lowercase().contains(&q))
}

/// The board's rows (tab ids) in display order.
pub fn rows(app: &App) -> Vec<TabId> {
    let mut tabs: Vec<&TaskTab> = app
        .tabs
        .iter()
        .filter(|t| app.board.agent_filter.is_none_or(|a| t.agent == a))
        .filter(|t| app.board.state_filter.is_none_or(|s| t.badge() == s))
        .filter(|t| matches_query(t, &app.board.query))
        .collect();
    // Stable: within a rank, the most recently updated first.
    tabs.sort_by(|a, b| {
        rank(a.badge())
            .cmp(&rank(b.badge()))
            .then(b.last_update.cmp(&a.last_update))
    });
    tabs.into_iter().map(|t| t.id).collect()
}

/// How many tasks the split view shows at most.
pub const SPLIT_MAX: usize = 4;

/// Which tasks the split view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// The tasks marked on the board (the first [`SPLIT_MAX`] of them, in the order they were marked).
    Marked,
    /// None is marked: those that need the user or are live, most recent first.
    Newest,
}

/// The rule the split view follows now: the marked tasks if any is still open.
pub fn split_rule(app: &App) -> SplitRule {
    if app.board.marked.iter().any(|m| app.tab(*m).is_some()) {
        SplitRule::Marked
    } else {
        SplitRule::Newest
    }
}

/// The tabs the split view shows: the marked ones, else those that need the user or are live, most recent
/// first; at most [`SPLIT_MAX`].
pub fn split_tabs(app: &App) -> Vec<TabId> {
    if split_rule(app) == SplitRule::Marked {
        return app
            .board
            .marked
            .iter()
            .copied()
            .filter(|m| app.tab(*m).is_some())
            .take(SPLIT_MAX)
            .collect();
    }
    let mut tabs: Vec<&TaskTab> = app.tabs.iter().collect();
    tabs.sort_by(|a, b| {
        rank(a.badge())
            .cmp(&rank(b.badge()))
            .then(b.last_update.cmp(&a.last_update))
    });
    tabs.into_iter().take(SPLIT_MAX).map(|t| t.id).collect()
}

/// The next value when cycling a filter: each option in turn, then "all" again.
pub fn cycle<T: Copy + PartialEq>(current: Option<T>, options: &[T]) -> Option<T> {
    match current {
        None => options.first().copied(),
        Some(c) => {
            let i = options.iter().position(|o| *o == c);
            i.and_then(|i| options.get(i + 1).copied())
        }
    }
}
