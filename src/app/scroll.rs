//! One way to scroll every pane: the shared scroll actions (line, half page, page, top, end) move an offset or
//! a cursor, clamped so nothing scrolls past its last page into empty rows.

use ratatui::layout::Rect;

use crate::config::keymap::actions::Action;

/// How many rows a pane holds and how many of them are visible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    pub content: usize,
    pub height: usize,
}

impl Extent {
    /// The offset that shows the last page: scrolling stops there.
    pub fn last_page(self) -> usize {
        self.content.saturating_sub(self.height)
    }

    /// Rows a page key moves.
    pub fn page(self) -> usize {
        self.height.max(1)
    }
}

/// What the last frame measured of the panes whose length only the renderer knows, because it comes from
/// wrapping remote text at the pane's width (the card page, the approval dialog's message). The runtime
/// stores it after each frame (`ui::measure`); `update` clamps with it, and the renderer clamps again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    pub card: Option<Extent>,
    pub approval: Option<Extent>,
}

/// An offset moved by a scroll action, within `0..=max` (an offset already past `max` is clamped first, so
/// the first key after a shrink moves from what is on screen).
pub fn offset(v: usize, a: Action, page: usize, max: usize) -> usize {
    let page = page.max(1);
    let half = (page / 2).max(1);
    let v = v.min(max);
    match a {
        Action::ScrollUp | Action::Up => v.saturating_sub(1),
        Action::ScrollDown | Action::Down => v.saturating_add(1).min(max),
        Action::HalfPageUp => v.saturating_sub(half),
        Action::HalfPageDown => v.saturating_add(half).min(max),
        Action::PageUp => v.saturating_sub(page),
        Action::PageDown => v.saturating_add(page).min(max),
        Action::ScrollTop => 0,
        Action::ScrollBottom => max,
        _ => v,
    }
}

/// A cursor over `n` rows (agents, skill examples, board rows, picker rows) moved by a scroll action.
pub fn cursor(v: usize, a: Action, page: usize, n: usize) -> usize {
    offset(v, a, page, n.saturating_sub(1))
}

/// The box of the help screen and the audit log: the whole terminal but a margin, so nothing is cut off.
pub fn viewer_area(size: Rect) -> Rect {
    let w = size.width.saturating_sub(4).max(1);
    let h = size.height.saturating_sub(2).max(3);
    Rect::new(
        size.x + (size.width.saturating_sub(w)) / 2,
        size.y + (size.height.saturating_sub(h)) / 2,
        w.min(size.width),
        h.min(size.height),
    )
}

/// Rows of text inside [`viewer_area`] (its border takes two).
pub fn viewer_rows(size: (u16, u16)) -> usize {
    viewer_area(Rect::new(0, 0, size.0, size.1))
        .height
        .saturating_sub(2)
        .max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scroll_action_stays_within_the_last_page() {
        let max = 30;
        assert_eq!(offset(0, Action::ScrollDown, 10, max), 1);
        assert_eq!(offset(0, Action::HalfPageDown, 10, max), 5);
        assert_eq!(offset(0, Action::PageDown, 10, max), 10);
        assert_eq!(offset(28, Action::PageDown, 10, max), 30);
        assert_eq!(offset(0, Action::ScrollBottom, 10, max), 30);
        assert_eq!(offset(30, Action::HalfPageUp, 10, max), 25);
        assert_eq!(offset(30, Action::PageUp, 10, max), 20);
        assert_eq!(offset(3, Action::PageUp, 10, max), 0);
        assert_eq!(offset(12, Action::ScrollTop, 10, max), 0);
        // Beyond the end (the pane shrank): the first key moves from the last page, not from nowhere.
        assert_eq!(offset(500, Action::ScrollUp, 10, max), 29);
        assert_eq!(
            cursor(0, Action::ScrollBottom, 10, 0),
            0,
            "an empty list stays at 0"
        );
        assert_eq!(cursor(2, Action::PageDown, 10, 4), 3);
    }
}
