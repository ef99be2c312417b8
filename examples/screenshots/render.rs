//! Buffer → SVG → PNG. The frame becomes SVG on a fixed monospace grid (background rectangles per run of equal
//! colour, one `<text>` per run of equal text style with an x for every character, so each glyph sits on its
//! cell whatever the font's advance), which resvg rasterises with DejaVu Sans Mono.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::Path;

use anyhow::{Context, Result};
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use resvg::{tiny_skia, usvg};
use skrifa::MetadataProvider;
use unicode_width::UnicodeWidthStr;

/// One cell in pixels. Integers, so background rectangles meet without anti-aliased seams.
const CELL_W: u32 = 10;
const CELL_H: u32 = 20;
/// DejaVu Sans Mono's advance is 1233/2048 em: this size makes a glyph exactly one cell wide.
const FONT_SIZE: f32 = CELL_W as f32 * 2048.0 / 1233.0;
/// Its ascender and descender (1901 and 483 of 2048), to centre the text in the cell.
const ASCENT: f32 = FONT_SIZE * 1901.0 / 2048.0;
const DESCENT: f32 = FONT_SIZE * 483.0 / 2048.0;
/// Synthetic italic: fonts-dejavu-core has no oblique Mono face (that is in fonts-dejavu-extra), so italics are
/// slanted here, and the picture does not depend on which of the two packages is installed.
const ITALIC_SKEW_DEG: f32 = -12.0;

/// A dark terminal's own colours, used where a cell says `Reset`.
const DEFAULT_FG: Rgb = Rgb(0xd0, 0xd0, 0xd0);
const DEFAULT_BG: Rgb = Rgb(0x1c, 0x1c, 0x1c);
/// How much of the foreground `DIM` keeps (the rest is background).
const DIM_KEEP: f32 = 0.6;

/// The fonts, from Debian's `fonts-dejavu-core` only: Mono (regular, bold) and Sans as fallback for the few
/// glyphs Mono lacks. Loaded by path, so no other installed font can change a pixel.
const FONT_DIR: &str = "/usr/share/fonts/truetype/dejavu";
const FONT_FILES: [&str; 4] = [
    "DejaVuSansMono.ttf",
    "DejaVuSansMono-Bold.ttf",
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
];

/// Names drawn for the control pictures U+2400..=U+2421 (the sanitiser shows ESC as ␛), which DejaVu lacks.
const CONTROL_NAMES: [&str; 34] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US", "SP", "DEL",
];

/// Fonts loaded into resvg's font database, and the characters they have.
pub struct Renderer {
    options: usvg::Options<'static>,
    covered: HashSet<u32>,
}

impl Renderer {
    pub fn new() -> Result<Renderer> {
        let mut options = usvg::Options {
            font_family: "DejaVu Sans Mono".into(),
            ..usvg::Options::default()
        };
        let mut covered = HashSet::new();
        for file in FONT_FILES {
            let path = Path::new(FONT_DIR).join(file);
            let data = std::fs::read(&path).with_context(|| {
                format!(
                    "cannot read the font {}: install Debian's fonts-dejavu-core (apt-get install fonts-dejavu-core)",
                    path.display()
                )
            })?;
            let font = skrifa::FontRef::new(&data)
                .map_err(|e| anyhow::anyhow!("{} is not a font: {e}", path.display()))?;
            covered.extend(font.charmap().mappings().map(|(c, _)| c));
            options.fontdb_mut().load_font_data(data);
        }
        Ok(Renderer { options, covered })
    }

    /// Rasterise and encode. The PNG is deterministic: the same pixels give the same bytes (tiny-skia writes
    /// no timestamp or other varying chunk).
    pub fn png(&self, svg: &str) -> Result<Vec<u8>> {
        let tree =
            usvg::Tree::from_str(svg, &self.options).context("the generated SVG does not parse")?;
        let size = tree.size().to_int_size();
        let mut pixmap =
            tiny_skia::Pixmap::new(size.width(), size.height()).context("empty picture")?;
        resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
        pixmap.encode_png().context("PNG encoding failed")
    }

    /// The frame as SVG, and what could not be drawn faithfully (characters no font has).
    pub fn svg(&self, frame: &Buffer) -> (String, Vec<String>) {
        let (cw, ch) = (CELL_W as f32, CELL_H as f32);
        let width = frame.area.width as u32 * CELL_W;
        let height = frame.area.height as u32 * CELL_H;
        let baseline = ((CELL_H as f32 - ASCENT - DESCENT) / 2.0 + ASCENT).round();
        let mut notes = Notes::default();
        let mut svg = String::with_capacity(256 * 1024);
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" xml:space="preserve" font-family="DejaVu Sans Mono" font-size="{FONT_SIZE:.3}" text-rendering="geometricPrecision">"#
        );
        let _ = write!(
            svg,
            r#"<rect width="{width}" height="{height}" fill="{}"/>"#,
            DEFAULT_BG.hex()
        );
        for y in 0..frame.area.height {
            let mut row = glyphs(frame, frame.area.top() + y);
            let top = y as f32 * ch;
            // Backgrounds.
            let mut i = 0;
            while i < row.len() {
                let bg = row[i].look.bg;
                let start = row[i].col;
                let mut end = start;
                while i < row.len() && row[i].look.bg == bg {
                    end = row[i].col + row[i].width;
                    i += 1;
                }
                if bg != DEFAULT_BG {
                    let _ = write!(
                        svg,
                        r#"<rect x="{}" y="{top}" width="{}" height="{ch}" fill="{}" shape-rendering="crispEdges"/>"#,
                        start as f32 * cw,
                        (end - start) as f32 * cw,
                        bg.hex()
                    );
                }
            }
            // Underlines and strike-throughs, over spaces too, as a terminal draws them.
            for g in &row {
                let lines = [
                    (g.look.underline, baseline + 2.0),
                    (g.look.strike, baseline - ASCENT * 0.3),
                ];
                for (on, at) in lines {
                    if on && !g.look.hidden {
                        let _ = write!(
                            svg,
                            r#"<rect x="{}" y="{}" width="{}" height="1" fill="{}" shape-rendering="crispEdges"/>"#,
                            g.col as f32 * cw,
                            top + at,
                            g.width as f32 * cw,
                            g.look.fg.hex()
                        );
                    }
                }
            }
            // Characters no loaded font has: control pictures are drawn as their small names, the console's file
            // emoji as a page outline (DejaVu has no emoji; a terminal would take it from an emoji font), combining
            // marks are left out (a box on top of the letter would say more about the fonts than about the
            // console), anything else stays (as the font's missing-glyph box) and is reported.
            for g in row.iter_mut() {
                let kept: String = g
                    .text
                    .chars()
                    .filter(|c| {
                        let code = *c as u32;
                        if self.covered.contains(&code) || c.is_whitespace() {
                            true
                        } else if (0x2400..=0x2421).contains(&code) {
                            control_picture(
                                &mut svg,
                                g,
                                top,
                                CONTROL_NAMES[(code - 0x2400) as usize],
                            );
                            false
                        } else if *c == '📄' {
                            page_icon(&mut svg, g, top);
                            false
                        } else if c.is_control() {
                            // Should never reach a cell; `escape` shows it as U+FFFD.
                            notes.missing.insert(*c);
                            true
                        } else if UnicodeWidthStr::width(c.to_string().as_str()) == 0 {
                            notes.marks += 1;
                            false
                        } else {
                            notes.missing.insert(*c);
                            true
                        }
                    })
                    .collect();
                g.text = kept;
            }
            // Text: runs of equal (fg, bold, italic); blanks neither start nor break a run.
            let key = |g: &Glyph| (g.look.fg, g.look.bold, g.look.italic && !is_box(&g.text));
            let mut run: Vec<&Glyph> = Vec::new();
            let drawn = row
                .iter()
                .filter(|g| !g.look.hidden && !g.text.trim().is_empty());
            for g in drawn {
                if run.first().is_some_and(|f| key(f) != key(g)) {
                    text_run(&mut svg, &run, top + baseline);
                    run.clear();
                }
                run.push(g);
            }
            text_run(&mut svg, &run, top + baseline);
        }
        svg.push_str("</svg>\n");
        (svg, notes.into_lines())
    }
}

#[derive(Default)]
struct Notes {
    marks: usize,
    missing: std::collections::BTreeSet<char>,
}

impl Notes {
    fn into_lines(self) -> Vec<String> {
        let mut out = Vec::new();
        if self.marks > 0 {
            out.push(format!(
                "{} combining mark(s) without a glyph in DejaVu left out",
                self.marks
            ));
        }
        if !self.missing.is_empty() {
            let list: Vec<String> = self
                .missing
                .iter()
                .map(|c| format!("U+{:04X}", *c as u32))
                .collect();
            out.push(format!("no glyph in DejaVu for {}", list.join(" ")));
        }
        out
    }
}

/// A control picture as its name in small letters stepping diagonally down the cell, the way fonts that have
/// these glyphs draw them.
fn control_picture(svg: &mut String, g: &Glyph, top: f32, name: &str) {
    let size = FONT_SIZE * 0.46;
    let letter_w = size * 0.602;
    let n = name.chars().count();
    let step_x = (g.width as f32 * CELL_W as f32 - letter_w) / (n.max(2) - 1) as f32;
    let step_y = (CELL_H as f32 - 2.0) / n as f32;
    for (i, c) in name.chars().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{:.2}" y="{:.2}" font-size="{size:.2}" fill="{}">{c}</text>"#,
            g.col as f32 * CELL_W as f32 + i as f32 * step_x,
            top + 1.0 + (i as f32 + 1.0) * step_y - 0.5,
            g.look.fg.hex()
        );
    }
}

/// 📄 as a page with a folded corner, in the cell's colour, centred in its two columns.
fn page_icon(svg: &mut String, g: &Glyph, top: f32) {
    let (w, h) = (CELL_W as f32 * 1.1, CELL_H as f32 * 0.7);
    let x = g.col as f32 * CELL_W as f32 + (g.width as f32 * CELL_W as f32 - w) / 2.0;
    let y = top + (CELL_H as f32 - h) / 2.0;
    let fold = w * 0.35;
    let _ = write!(
        svg,
        r#"<path d="M{x0:.2} {y0:.2} H{x1:.2} L{x2:.2} {y1:.2} V{y2:.2} H{x0:.2} Z M{x1:.2} {y0:.2} V{y1:.2} H{x2:.2}" fill="none" stroke="{}" stroke-width="1.2" stroke-linejoin="round"/>"#,
        g.look.fg.hex(),
        x0 = x,
        y0 = y,
        x1 = x + w - fold,
        x2 = x + w,
        y1 = y + fold,
        y2 = y + h,
    );
}

/// Equal bytes, or (across PNG encoder versions) equal pixels.
pub fn same_picture(a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return true;
    }
    match (
        tiny_skia::Pixmap::decode_png(a),
        tiny_skia::Pixmap::decode_png(b),
    ) {
        (Ok(a), Ok(b)) => {
            a.width() == b.width() && a.height() == b.height() && a.data() == b.data()
        }
        _ => false,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rgb(u8, u8, u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// `keep` of self, the rest of `other`.
    fn mix(self, other: Rgb, keep: f32) -> Rgb {
        let m = |a: u8, b: u8| (a as f32 * keep + b as f32 * (1.0 - keep)).round() as u8;
        Rgb(m(self.0, other.0), m(self.1, other.1), m(self.2, other.2))
    }
}

/// xterm's default palette.
fn indexed(i: u8) -> Rgb {
    const BASE: [Rgb; 16] = [
        Rgb(0x00, 0x00, 0x00),
        Rgb(0xcd, 0x00, 0x00),
        Rgb(0x00, 0xcd, 0x00),
        Rgb(0xcd, 0xcd, 0x00),
        Rgb(0x00, 0x00, 0xee),
        Rgb(0xcd, 0x00, 0xcd),
        Rgb(0x00, 0xcd, 0xcd),
        Rgb(0xe5, 0xe5, 0xe5),
        Rgb(0x7f, 0x7f, 0x7f),
        Rgb(0xff, 0x00, 0x00),
        Rgb(0x00, 0xff, 0x00),
        Rgb(0xff, 0xff, 0x00),
        Rgb(0x5c, 0x5c, 0xff),
        Rgb(0xff, 0x00, 0xff),
        Rgb(0x00, 0xff, 0xff),
        Rgb(0xff, 0xff, 0xff),
    ];
    match i {
        0..16 => BASE[i as usize],
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let n = i - 16;
            Rgb(level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            Rgb(v, v, v)
        }
    }
}

fn colour(c: Color, reset: Rgb) -> Rgb {
    match c {
        Color::Reset => reset,
        Color::Black => indexed(0),
        Color::Red => indexed(1),
        Color::Green => indexed(2),
        Color::Yellow => indexed(3),
        Color::Blue => indexed(4),
        Color::Magenta => indexed(5),
        Color::Cyan => indexed(6),
        Color::Gray => indexed(7),
        Color::DarkGray => indexed(8),
        Color::LightRed => indexed(9),
        Color::LightGreen => indexed(10),
        Color::LightYellow => indexed(11),
        Color::LightBlue => indexed(12),
        Color::LightMagenta => indexed(13),
        Color::LightCyan => indexed(14),
        Color::White => indexed(15),
        Color::Rgb(r, g, b) => Rgb(r, g, b),
        Color::Indexed(i) => indexed(i),
    }
}

/// How a cell looks once its colours are resolved and its modifiers applied.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: Rgb,
    bg: Rgb,
    bold: bool,
    italic: bool,
    underline: bool,
    strike: bool,
    hidden: bool,
}

fn look(cell: &Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (colour(cell.fg, DEFAULT_FG), colour(cell.bg, DEFAULT_BG));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if m.contains(Modifier::DIM) {
        fg = fg.mix(bg, DIM_KEEP);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        underline: m.contains(Modifier::UNDERLINED),
        strike: m.contains(Modifier::CROSSED_OUT),
        hidden: m.contains(Modifier::HIDDEN),
    }
}

/// One drawn cell: its column, its text, and how it looks.
struct Glyph {
    col: u16,
    text: String,
    width: u16,
    look: Look,
}

/// The cells of row `y` that are drawn: a wide character's continuation cell is left out.
fn glyphs(frame: &Buffer, y: u16) -> Vec<Glyph> {
    let area = frame.area;
    let mut out = Vec::new();
    let mut x = area.left();
    while x < area.right() {
        let Some(cell) = frame.cell((x, y)) else {
            break;
        };
        let width = (cell.symbol().width() as u16).max(1);
        out.push(Glyph {
            col: x - area.left(),
            text: cell.symbol().to_string(),
            width,
            look: look(cell),
        });
        x += width;
    }
    out
}

/// XML text: the five special characters escaped; characters XML 1.0 forbids (a control character should never
/// reach a cell, but a picture must not fail to parse if one did) become U+FFFD.
fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c.is_control() && c != '\t') || matches!(c, '\u{fffe}' | '\u{ffff}') => {
                out.push('\u{fffd}')
            }
            c => out.push(c),
        }
    }
}

/// Box-drawing and block characters stay upright in italic text, as terminals draw them.
fn is_box(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| ('\u{2500}'..='\u{259f}').contains(&c))
}

/// One `<text>` for a run of glyphs of one style, with an x for each character. A cluster (a letter with
/// combining marks) gets a `<text>` of its own, so the shaper places the marks on their letter.
fn text_run(svg: &mut String, run: &[&Glyph], baseline: f32) {
    let Some(first) = run.first() else {
        return;
    };
    let upright = is_box(&first.text);
    let mut xs = String::new();
    let mut text = String::new();
    for g in run {
        let x = g.col as f32 * CELL_W as f32;
        if g.text.chars().nth(1).is_some() {
            let mut cluster = String::new();
            escape(&g.text, &mut cluster);
            text_element(svg, &x.to_string(), &cluster, &g.look, baseline, upright);
            continue;
        }
        let _ = write!(xs, "{}{x}", if xs.is_empty() { "" } else { " " });
        escape(&g.text, &mut text);
    }
    if !text.is_empty() {
        text_element(svg, &xs, &text, &first.look, baseline, upright);
    }
}

fn text_element(svg: &mut String, xs: &str, text: &str, l: &Look, baseline: f32, upright: bool) {
    let weight = if l.bold { r#" font-weight="bold""# } else { "" };
    // Italic is a slant about the baseline (see ITALIC_SKEW_DEG), so the glyphs keep their cells.
    let (y, transform) = if l.italic && !upright {
        (
            0.0,
            format!(r#" transform="translate(0 {baseline}) skewX({ITALIC_SKEW_DEG})""#),
        )
    } else {
        (baseline, String::new())
    };
    let _ = write!(
        svg,
        r#"<text x="{xs}" y="{y}" fill="{}"{weight}{transform}>{text}</text>"#,
        l.fg.hex()
    );
}
