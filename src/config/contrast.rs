//! WCAG 2.x contrast between two colours, with colours resolved through xterm's default palette.
//!
//! A theme names colours the terminal resolves (`"cyan"`, `"indexed:240"`), so a contrast can only be
//! computed against some palette; xterm's defaults are the ones most terminals start from. The theme tests use
//! this to hold every text role of the built-in themes to [`MIN_TEXT_CONTRAST`], and `markup::highlight` uses
//! [`lift`] so a borrowed syntect colour scheme reaches the same floor.

use ratatui::style::Color;

/// An sRGB colour, one byte per channel.
pub type Rgb = [u8; 3];

pub const BLACK: Rgb = [0, 0, 0];
pub const WHITE: Rgb = [255, 255, 255];

/// WCAG 2.x level AA for normal-size text (success criterion 1.4.3).
pub const MIN_TEXT_CONTRAST: f64 = 4.5;

/// xterm's 16 ANSI colours, in ratatui's order (`Black` = 0 … `White` = 15, where ratatui's `Gray` is
/// ANSI 7 and its `White` is ANSI 15, bright white).
const ANSI: [Rgb; 16] = [
    [0x00, 0x00, 0x00],
    [0xcd, 0x00, 0x00],
    [0x00, 0xcd, 0x00],
    [0xcd, 0xcd, 0x00],
    [0x00, 0x00, 0xee],
    [0xcd, 0x00, 0xcd],
    [0x00, 0xcd, 0xcd],
    [0xe5, 0xe5, 0xe5],
    [0x7f, 0x7f, 0x7f],
    [0xff, 0x00, 0x00],
    [0x00, 0xff, 0x00],
    [0xff, 0xff, 0x00],
    [0x5c, 0x5c, 0xff],
    [0xff, 0x00, 0xff],
    [0x00, 0xff, 0xff],
    [0xff, 0xff, 0xff],
];

/// The levels of xterm's 6×6×6 colour cube (indices 16–231).
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

/// xterm's default RGB for a colour; `None` for `Reset`, which is whatever the terminal's own foreground
/// or background is (the caller knows which, and what it assumes for it).
pub fn xterm_rgb(color: Color) -> Option<Rgb> {
    let ansi = |i: usize| ANSI.get(i).copied();
    match color {
        Color::Reset => None,
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => Some([r, g, b]),
        Color::Indexed(n) => Some(indexed_rgb(n)),
    }
}

/// xterm's default RGB for a 256-colour index.
pub fn indexed_rgb(n: u8) -> Rgb {
    match n {
        0..=15 => ANSI[usize::from(n)],
        16..=231 => {
            let i = usize::from(n - 16);
            [CUBE[i / 36], CUBE[(i / 6) % 6], CUBE[i % 6]]
        }
        232..=255 => {
            let v = 8 + 10 * (n - 232);
            [v, v, v]
        }
    }
}

/// WCAG relative luminance: 0 for black, 1 for white.
pub fn luminance(c: Rgb) -> f64 {
    let lin = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.04045 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
}

/// WCAG contrast ratio, from 1 (same luminance) to 21 (black on white); symmetric.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// `from` moved the fraction `t` (0..=1) of the way to `to`, channel by channel in sRGB, as a terminal
/// mixes a colour with the background.
pub fn blend(from: Rgb, to: Rgb, t: f64) -> Rgb {
    let t = t.clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    [
        mix(from[0], to[0]),
        mix(from[1], to[1]),
        mix(from[2], to[2]),
    ]
}

/// `fg`, or the least change of it toward black or white (whichever stands further from `bg`) that has at
/// least `min` contrast against `bg`. The hue stays as close as the floor allows.
pub fn lift(fg: Rgb, bg: Rgb, min: f64) -> Rgb {
    if contrast(fg, bg) >= min {
        return fg;
    }
    let target = if contrast(WHITE, bg) >= contrast(BLACK, bg) {
        WHITE
    } else {
        BLACK
    };
    // Contrast grows monotonically along the way to the target, so the first step that passes is the least.
    const STEPS: u32 = 64;
    for step in 1..=STEPS {
        let c = blend(fg, target, f64::from(step) / f64::from(STEPS));
        if contrast(c, bg) >= min {
            return c;
        }
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wcag_reference_values() {
        assert!((contrast(BLACK, WHITE) - 21.0).abs() < 1e-9);
        assert!((contrast(WHITE, WHITE) - 1.0).abs() < 1e-9);
        // WebAIM's checker: #777777 on white is 4.48:1, #767676 is 4.54:1.
        assert!((contrast([0x77; 3], WHITE) - 4.48).abs() < 0.01);
        assert!((contrast([0x76; 3], WHITE) - 4.54).abs() < 0.01);
        assert_eq!(
            contrast([0x12, 0x34, 0x56], WHITE),
            contrast(WHITE, [0x12, 0x34, 0x56])
        );
    }

    #[test]
    fn palette_follows_xterm() {
        assert_eq!(xterm_rgb(Color::Reset), None);
        assert_eq!(xterm_rgb(Color::Blue), Some([0, 0, 0xee]));
        assert_eq!(xterm_rgb(Color::Gray), Some([0xe5; 3]));
        assert_eq!(xterm_rgb(Color::White), Some([0xff; 3]));
        assert_eq!(xterm_rgb(Color::LightBlue), Some([0x5c, 0x5c, 0xff]));
        assert_eq!(xterm_rgb(Color::Indexed(12)), Some([0x5c, 0x5c, 0xff]));
        assert_eq!(indexed_rgb(16), BLACK);
        assert_eq!(indexed_rgb(231), WHITE);
        assert_eq!(indexed_rgb(110), [135, 175, 215]);
        assert_eq!(indexed_rgb(232), [8; 3]);
        assert_eq!(indexed_rgb(240), [88; 3]);
        assert_eq!(indexed_rgb(255), [238; 3]);
    }

    #[test]
    fn lift_reaches_the_floor_with_the_least_change() {
        // InspiredGitHub's comment grey on white: about 3:1, darkened just enough.
        let grey = [0x96, 0x98, 0x96];
        let lifted = lift(grey, WHITE, MIN_TEXT_CONTRAST);
        assert!(contrast(lifted, WHITE) >= MIN_TEXT_CONTRAST);
        assert!(contrast(lifted, WHITE) < 5.0, "{lifted:?} overshoots");
        // On black, the same grey is lightened; a colour that passes is left alone.
        assert!(contrast(lift([0x40; 3], BLACK, 4.5), BLACK) >= 4.5);
        assert_eq!(lift([0x65, 0x73, 0x7e], BLACK, 4.0), [0x65, 0x73, 0x7e]);
        assert_eq!(blend(BLACK, WHITE, 0.5), [128; 3]);
    }
}
