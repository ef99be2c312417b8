//! The help screen's page, laid out from the keymap at the terminal's width: a heading per context, the keys
//! in a column as wide as the widest key string, the action's name (what `[keys]` in the config remaps) and
//! its description wrapped in its own column. Shared by the renderer and by `update`, which clamps the help's
//! scroll to its last page.

use ratatui::layout::Rect;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::app::scroll::{Extent, viewer_area};
use crate::app::state::App;
use crate::config::keymap::actions::{Action, Context};

/// The narrowest the description column gets before the action's name moves into it.
const MIN_DESCRIPTION: usize = 30;

/// How a note at the end of the page is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    Plain,
    Remote,
    Flag,
}

/// One row of the help page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpLine {
    /// A context's title and (the first row of) where it applies, starting with ` — `.
    Heading {
        title: &'static str,
        scope: String,
    },
    /// A binding's row, or (with `keys` and `name` blank) the next row of a wrapped description. `keys` and
    /// `name` come padded to their group's columns; `name` is empty when the page is too narrow for a name
    /// column (the name then ends the description).
    Row {
        keys: String,
        name: String,
        text: String,
    },
    Blank,
    Note(String, Note),
}

/// The page at one width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelpPage {
    pub lines: Vec<HelpLine>,
}

/// The help page for a box `width` columns wide inside its border.
pub fn page(app: &App, width: usize) -> HelpPage {
    let rows = app.keymap.help_rows();
    let keys_of = |keys: &[String]| {
        if keys.is_empty() {
            "(unbound)".to_string()
        } else {
            keys.join(", ")
        }
    };
    let name_max = rows.iter().map(|r| r.name.width()).max().unwrap_or(0);
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.width())));
    let mut lines: Vec<HelpLine> = wrap_words(
        "Every key below can be remapped under [keys] in the config file by its action name \
         (e.g. quit = [\"ctrl-q\"]); Ctrl-P runs any action by name.",
        width.max(12),
    )
    .into_iter()
    .map(|l| HelpLine::Note(l, Note::Plain))
    .collect();
    for ctx in Context::ALL {
        let group: Vec<_> = rows.iter().filter(|r| r.context == ctx).collect();
        if group.is_empty() {
            continue;
        }
        lines.push(HelpLine::Blank);
        // The scope wraps under its heading on a narrow screen.
        let heading = format!("{} — {}", ctx.title(), ctx.scope());
        for (i, piece) in wrap_words(&heading, width.max(12)).into_iter().enumerate() {
            lines.push(match piece.strip_prefix(ctx.title()) {
                Some(scope) if i == 0 => HelpLine::Heading {
                    title: ctx.title(),
                    scope: scope.to_string(),
                },
                _ => HelpLine::Note(piece, Note::Plain),
            });
        }
        // Each group's keys column is as wide as its widest keys, so one long chord elsewhere does not push
        // every description away. Two spaces before each column.
        let widest = group
            .iter()
            .map(|r| keys_of(&r.keys).width())
            .max()
            .unwrap_or(0);
        let three_columns = width >= 2 + widest + 2 + name_max + 2 + MIN_DESCRIPTION;
        // On a narrow screen the keys column gives way: keys wider than it get a row of their own.
        let key_width = if three_columns || width >= 2 + widest + 2 + MIN_DESCRIPTION {
            widest
        } else {
            widest.min(width / 3)
        };
        let name_width = if three_columns { name_max } else { 0 };
        let lead = 2 + key_width + 2 + if three_columns { name_width + 2 } else { 0 };
        let text_width = width.saturating_sub(lead).max(12);
        for r in group {
            let text = if three_columns {
                r.description.to_string()
            } else {
                // A no-break space keeps the name on the row of the dot before it.
                format!("{} ·\u{a0}{}", r.description, r.name)
            };
            let keys = keys_of(&r.keys);
            let own_row = keys.width() > key_width;
            if own_row {
                lines.push(HelpLine::Row {
                    keys: keys.clone(),
                    name: String::new(),
                    text: String::new(),
                });
            }
            for (i, piece) in wrap_words(&text, text_width).into_iter().enumerate() {
                let first = i == 0;
                lines.push(HelpLine::Row {
                    keys: pad(if first && !own_row { &keys } else { "" }, key_width),
                    name: if three_columns {
                        pad(if first { r.name } else { "" }, name_width)
                    } else {
                        String::new()
                    },
                    text: piece,
                });
            }
        }
    }
    lines.push(HelpLine::Blank);
    let mut notes = vec![
        (
            "Mouse: click an agent or a tab, click into the compose box to write, scroll any pane with the wheel."
                .to_string(),
            Note::Plain,
        ),
        (
            format!(
                "Agent names: {} renames the selected agent (saved in the config file); a name too long for \
                 its place is cut in the middle, keeping the words that tell it from the others.",
                app.keymap.key_or_name(Action::RenameAgent)
            ),
            Note::Plain,
        ),
        (
            "Remote text is shown after ▍ in its own style, labelled with agent, task and field.".into(),
            Note::Remote,
        ),
        (
            "⚠ marks text that looks like prompt injection, spoofing or hidden characters.".into(),
            Note::Flag,
        ),
    ];
    if let Some(p) = &app.log_path {
        notes.push((format!("Log file: {p}"), Note::Plain));
    }
    if let Some(p) = &app.config_path {
        notes.push((format!("Config file: {}", p.display()), Note::Plain));
    }
    for (text, kind) in notes {
        for piece in wrap_words(&text, width.max(12)) {
            lines.push(HelpLine::Note(piece, kind));
        }
    }
    HelpPage { lines }
}

/// Rows the help page takes and rows its box shows, at the terminal's size.
pub fn extent(app: &App) -> Extent {
    let area = viewer_area(Rect::new(0, 0, app.size.0, app.size.1));
    let inner_w = area.width.saturating_sub(2) as usize;
    Extent {
        content: page(app, inner_w).lines.len(),
        height: area.height.saturating_sub(2).max(1) as usize,
    }
}

/// Greedy word wrap by display width; a word longer than the width is broken.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let need = if line.is_empty() { 0 } else { 1 } + word.width();
        if line.width() + need > width && !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        if word.width() > width {
            for c in word.chars() {
                if line.width() + c.width().unwrap_or(0) > width {
                    out.push(std::mem::take(&mut line));
                }
                line.push(c);
            }
            continue;
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_at_spaces_and_long_words_break() {
        assert_eq!(wrap_words("one two three", 7), vec!["one two", "three"]);
        assert_eq!(wrap_words("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 4), vec![""]);
    }

    #[test]
    fn every_action_is_on_the_page_at_any_width() {
        let app = crate::testing::app();
        for width in [54, 76, 156] {
            let p = page(&app, width);
            for a in crate::config::keymap::Keymap::all_actions() {
                let found = p.lines.iter().any(|l| match l {
                    HelpLine::Row { name, text, .. } => {
                        name.trim_end() == a.name()
                            || text.ends_with(&format!("·\u{a0}{}", a.name()))
                    }
                    _ => false,
                });
                assert!(found, "{} missing at width {width}", a.name());
            }
            for ctx in Context::ALL {
                assert!(
                    p.lines.iter().any(
                        |l| matches!(l, HelpLine::Heading { title, .. } if *title == ctx.title())
                    ),
                    "{ctx} heading"
                );
            }
        }
    }
}
