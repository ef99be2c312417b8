//! Editing text where it is typed — the compose box, the one-line prompts, the save dialog's name — with
//! readline's keys: the keymap's text-editing actions, then plain typing. Only keys the help screen lists edit:
//! the text area's own shortcuts are not used, since several disagree with a shell's (Ctrl-U undoes there,
//! Ctrl-J deletes to the line's start, Ctrl-V pages).

use crossterm::event::KeyEvent;
use ratatui_textarea::{CursorMove, TextArea};

use crate::config::keymap::actions::Action;

/// Apply `k` (read by the keymap as `action`) to `input`; true when the text changed.
pub(super) fn edit(input: &mut TextArea<'static>, action: Option<Action>, k: KeyEvent) -> bool {
    match action {
        Some(a) if a.is_edit() => apply(input, a),
        _ => input.input_without_shortcuts(k),
    }
}

fn apply(input: &mut TextArea<'static>, a: Action) -> bool {
    let moved = |input: &mut TextArea<'static>, m: CursorMove| {
        input.move_cursor(m);
        false
    };
    match a {
        Action::CursorLeft => moved(input, CursorMove::Back),
        Action::CursorRight => moved(input, CursorMove::Forward),
        Action::WordLeft => {
            word(input, false);
            false
        }
        Action::WordRight => {
            word(input, true);
            false
        }
        Action::LineStart => moved(input, CursorMove::Head),
        Action::LineEnd => moved(input, CursorMove::End),
        Action::DeleteBack => input.delete_char(),
        Action::DeleteChar => input.delete_next_char(),
        // The text area keeps what these delete for `yank`, as readline's kill ring does for its last kill.
        Action::DeleteWordBack => input.delete_word(),
        Action::DeleteWordForward => input.delete_next_word(),
        Action::KillToStart => input.delete_line_by_head(),
        Action::KillToEnd => input.delete_line_by_end(),
        Action::Yank => input.paste(),
        Action::Undo => input.undo(),
        Action::Redo => input.redo(),
        _ => false,
    }
}

/// readline's forward-word and backward-word: past the blanks and punctuation, then past the letters and digits,
/// so Alt-F lands after a word and Alt-B on its first letter. At either end of a line the text area's own move
/// goes on to the next (or previous) line.
fn word(input: &mut TextArea<'static>, forward: bool) {
    let ratatui_textarea::DataCursor(row, col) = input.cursor();
    let line: Vec<char> = input
        .lines()
        .get(row)
        .map(|l| l.chars().collect())
        .unwrap_or_default();
    let word_char = |i: usize| line.get(i).is_some_and(|c| c.is_alphanumeric());
    let mut at = col.min(line.len());
    if forward {
        while at < line.len() && !word_char(at) {
            at += 1;
        }
        while at < line.len() && word_char(at) {
            at += 1;
        }
    } else {
        while at > 0 && !word_char(at - 1) {
            at -= 1;
        }
        while at > 0 && word_char(at - 1) {
            at -= 1;
        }
    }
    match (u16::try_from(row), u16::try_from(at)) {
        (Ok(r), Ok(c)) if at != col => input.move_cursor(CursorMove::Jump(r, c)),
        // Nothing to pass on this line (or a line too long to address): the text area's word move.
        _ => input.move_cursor(if forward {
            CursorMove::WordForward
        } else {
            CursorMove::WordBack
        }),
    }
}

/// The palette's query has no cursor (it is typed at its end): the deleting keys that make sense there.
/// Returns false for every other action.
pub(super) fn edit_query(query: &mut String, a: Action) -> bool {
    match a {
        Action::DeleteBack => {
            query.pop();
        }
        // readline's unix-word-rubout: blanks before the cursor, then the word up to the previous blank.
        Action::DeleteWordBack => {
            // By characters, not bytes: the blank may be a no-break or ideographic space.
            let word = query.trim_end();
            let start = word.trim_end_matches(|c: char| !c.is_whitespace()).len();
            query.truncate(start);
        }
        Action::KillToStart => query.clear(),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_query_loses_a_char_a_word_or_everything() {
        let mut q = String::from("close  tab ");
        assert!(edit_query(&mut q, Action::DeleteWordBack));
        assert_eq!(q, "close  ");
        assert!(edit_query(&mut q, Action::DeleteWordBack));
        assert_eq!(q, "");
        let mut q = String::from("quit");
        assert!(edit_query(&mut q, Action::DeleteBack));
        assert_eq!(q, "qui");
        assert!(edit_query(&mut q, Action::KillToStart));
        assert_eq!(q, "");
        assert!(!edit_query(&mut q, Action::LineStart));
        // A blank of several bytes (ideographic, no-break) is kept whole, never cut in half.
        let mut q = String::from("close\u{3000}tab\u{a0}");
        assert!(edit_query(&mut q, Action::DeleteWordBack));
        assert_eq!(q, "close\u{3000}");
    }
}
