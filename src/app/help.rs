//! The help screen's page, laid out from the keymap at the terminal's width: a heading per context, the keys
//! in a column as wide as the widest key string, the action's name (what `[keys]` in the config remaps) and
//! its description wrapped in its own column. Shared by the renderer and by `update`, which clamps the help's
//! scroll to its last page.

use ratatui::layout::Rect;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::app::scroll::{Extent, viewer_area};
use crate::app::state::App;

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
    Heading {
        title: &'static str,
        scope: &'static str,
    },
    /// A binding's row, or (with `keys` and `name` empty) the next row of a wrapped description.
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
    pub key_width: usize,
    /// 0 when the page is too narrow for a name column: the name then ends the description.
    pub name_width: usize,
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
    let key_width = rows
        .iter()
        .map(|r| keys_of(&r.keys).width())
        .max()
        .unwrap_or(0);
    let name_max = rows.iter().map(|r| r.name.width()).max().unwrap_or(0);
    // Two spaces before each column.
    let three_columns = width >= 2 + key_width + 2 + name_max + 2 + MIN_DESCRIPTION;
    let name_width = if three_columns { name_max } else { 0 };
    // On a narrow screen the keys column gives way: a row whose keys are wider gets them on a row of their own.
    let key_width = if three_columns || width >= 2 + key_width + 2 + MIN_DESCRIPTION {
        key_width
    } else {
        key_width.min(width / 3)
    };
    let lead = 2 + key_width + 2 + if three_columns { name_width + 2 } else { 0 };
    let text_width = width.saturating_sub(lead).max(12);
    let mut lines = vec![
        HelpLine::Note(
            "Every key below can be remapped under [keys] in the config file by its action name \
             (e.g. quit = [\"ctrl-q\"]); Ctrl-P runs any action by name."
                .into(),
            Note::Plain,
        ),
        HelpLine::Blank,
    ];
    let mut last = None;
    for r in &rows {
        if last != Some(r.context) {
            if last.is_some() {
                lines.push(HelpLine::Blank);
            }
            lines.push(HelpLine::Heading {
                title: r.context.title(),
                scope: r.context.scope(),
            });
            last = Some(r.context);
        }
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
            lines.push(HelpLine::Row {
                keys: if i == 0 && !own_row {
                    keys.clone()
                } else {
                    String::new()
                },
                name: if i == 0 && three_columns {
                    r.name.to_string()
                } else {
                    String::new()
                },
                text: piece,
            });
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
    HelpPage {
        key_width,
        name_width,
        lines,
    }
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
    use crate::config::keymap::Context;

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
                        name == a.name() || text.ends_with(&format!("·\u{a0}{}", a.name()))
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
