//! Makes a frame reproducible: what differs between runs (task and context ids, the demo agent's ports, clock
//! times) is overwritten in the buffer with fixed text of the same width, keeping every cell's style.

use a2a_console::app::state::App;
use ratatui::buffer::{Buffer, Cell};

/// Placeholders; each is cut to the width of what it replaces.
const FIXED_TIME: &str = "10:24:13";
const FIXED_PORT: &str = "41241";
const FIXED_OTHER_PORT: &str = "41242";

/// Overwrite ids, the demo agent's port and clock times with fixed text of the same width.
pub fn mask(frame: &mut Buffer, app: &App, port: u16) {
    let mut ids: Vec<String> = Vec::new();
    for t in &app.tabs {
        for id in [&t.log.task_id, &t.log.context_id].into_iter().flatten() {
            if id.len() >= 8 && id.is_ascii() && !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
    let port = port.to_string();
    let area = frame.area;
    for y in area.top()..area.bottom() {
        // One char per column; anything but a single ASCII character cannot be part of what is masked.
        let row: Vec<char> = (area.left()..area.right())
            .map(|x| {
                let s = frame.cell((x, y)).map_or(" ", Cell::symbol);
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) if c.is_ascii() => c,
                    _ => '\0',
                }
            })
            .collect();
        let mut out = row.clone();
        for (k, id) in ids.iter().enumerate() {
            let id: Vec<char> = id.chars().collect();
            let fake = fake_id(&id, k);
            let mut i = 0;
            while i + 8 <= row.len() {
                if row[i..i + 8] == id[..8] {
                    // Ids are cut at a panel's edge or shortened to 8 characters: mask the part that is shown.
                    let n = (8..=id.len())
                        .take_while(|&n| i + n <= row.len() && row[i..i + n] == id[..n])
                        .last()
                        .unwrap_or(8);
                    out[i..i + n].copy_from_slice(&fake[..n]);
                    i += n;
                } else {
                    i += 1;
                }
            }
        }
        // Any other uuid (message ids, ids of earlier tasks).
        let mut i = 0;
        while i + 36 <= row.len() {
            if is_uuid(&row[i..i + 36]) {
                let fake = fake_id(&row[i..i + 36], 99);
                out[i..i + 36].copy_from_slice(&fake);
                i += 36;
            } else {
                i += 1;
            }
        }
        // Ports on 127.0.0.1: the demo agent's HTTP port (perhaps cut at a panel's edge), and any other port of
        // four digits or more (its gRPC port: both are ephemeral). Short ones are content, like the hostile
        // scenario's `127.0.0.1:9`.
        let host: Vec<char> = "127.0.0.1:".chars().collect();
        for i in 0..row.len().saturating_sub(host.len()) {
            if row[i..].starts_with(&host) {
                let at = i + host.len();
                let digits: String = row[at..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let fixed = if !digits.is_empty() && port.starts_with(&digits) {
                    FIXED_PORT
                } else if digits.len() >= 4 {
                    FIXED_OTHER_PORT
                } else {
                    continue;
                };
                for (j, c) in fixed.chars().cycle().take(digits.len()).enumerate() {
                    out[at + j] = c;
                }
            }
        }
        // Ages on the board ("3s", "12s", "1m"): a space, one to three digits, a unit, a space.
        for i in 1..row.len().saturating_sub(2) {
            if row[i - 1] != ' ' || !row[i].is_ascii_digit() {
                continue;
            }
            let n = row[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let unit = row.get(i + n).copied();
            let after = row.get(i + n + 1).copied();
            if n <= 3 && matches!(unit, Some('s' | 'm' | 'h')) && after == Some(' ') {
                for j in 0..n {
                    out[i + j] = if j + 1 == n { '1' } else { ' ' };
                }
            }
        }
        // HH:MM:SS
        for i in 0..row.len().saturating_sub(7) {
            let w = &row[i..i + 8];
            let digits = [0, 1, 3, 4, 6, 7].iter().all(|&j| w[j].is_ascii_digit());
            let bounded = (i == 0 || !row[i - 1].is_ascii_digit())
                && row.get(i + 8).is_none_or(|c| !c.is_ascii_digit());
            if digits && w[2] == ':' && w[5] == ':' && bounded {
                for (j, c) in FIXED_TIME.chars().enumerate() {
                    out[i + j] = c;
                }
            }
        }
        for (x, (old, new)) in row.iter().zip(&out).enumerate() {
            if old != new
                && let Some(cell) = frame.cell_mut((area.left() + x as u16, y))
            {
                cell.set_char(*new);
            }
        }
    }
}

fn is_uuid(s: &[char]) -> bool {
    s.len() == 36
        && s.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A stand-in with the same shape as `id` (hex digits replaced, separators kept). The first eight hex digits are
/// the same for every id: the demo's ids are UUIDv7, whose first eight digits are the clock, so a task and its
/// context usually share them (and the console shows only those eight for a context), but not always; a common
/// stand-in keeps the picture the same either way. The rest differs for each `k`.
fn fake_id(id: &[char], k: usize) -> Vec<char> {
    const HEX: &[u8] = b"0123456789abcdef";
    const PREFIX: &[u8] = b"0197a3c2";
    let mut state = 0x9e37_79b9_u32.wrapping_mul(k as u32 + 1);
    let mut n = 0;
    id.iter()
        .map(|c| {
            if !c.is_ascii_hexdigit() {
                return *c;
            }
            n += 1;
            if n <= PREFIX.len() {
                return PREFIX[n - 1] as char;
            }
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            HEX[(state >> 28) as usize] as char
        })
        .collect()
}
