//! Makes a frame reproducible: what differs between runs (task and context ids and their short tails, the demo
//! agent's ports, clock times, elapsed times, the spinner's frame) is overwritten in the buffer with fixed text
//! of the same width, keeping every cell's style.

use a2a_console::app::state::App;
use ratatui::buffer::{Buffer, Cell};

/// Placeholders; each is cut to the width of what it replaces.
const FIXED_TIME: &str = "10:24:13";
const FIXED_PORT: &str = "41241";
const FIXED_OTHER_PORT: &str = "41242";

/// Overwrite ids, the demo agent's port, clock and elapsed times and the spinner with fixed text of the same width.
pub fn mask(frame: &mut Buffer, app: &App, port: u16) {
    let mut ids: Vec<String> = Vec::new();
    for t in &app.tabs {
        for id in [&t.log.task_id, &t.log.context_id].into_iter().flatten() {
            if id.len() >= 8 && id.is_ascii() && !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
    // Each known id's stand-in, and both without their dashes (the console shows the tail of that, see
    // `app/short_id.rs`, lengthened on a collision and perhaps cut at a panel's edge).
    let fakes: Vec<(Vec<char>, Vec<char>, Vec<char>)> = ids
        .iter()
        .enumerate()
        .map(|(k, id)| {
            let id: Vec<char> = id.chars().collect();
            let fake = fake_id(&id, k);
            let bare =
                |v: &[char]| -> Vec<char> { v.iter().copied().filter(|c| *c != '-').collect() };
            (id.clone(), bare(&id), bare(&fake))
        })
        .collect();
    let port = port.to_string();
    let area = frame.area;
    for y in area.top()..area.bottom() {
        // One char per column; a cell of more than one character (a grapheme cluster) cannot be part of what is
        // masked.
        let row: Vec<char> = (area.left()..area.right())
            .map(|x| {
                let s = frame.cell((x, y)).map_or(" ", Cell::symbol);
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => c,
                    _ => '\0',
                }
            })
            .collect();
        let mut out = row.clone();
        // Whole uuids: a known id's own stand-in, any other (message ids, ids of earlier tasks) a common one.
        let mut i = 0;
        while i + 36 <= row.len() {
            if is_uuid(&row[i..i + 36]) {
                let k = fakes.iter().position(|(id, _, _)| id[..] == row[i..i + 36]);
                let fake = fake_id(&row[i..i + 36], k.unwrap_or(99));
                out[i..i + 36].copy_from_slice(&fake);
                i += 36;
            } else {
                i += 1;
            }
        }
        // Short ids: a run of six or more hex digits (between characters that are not) that is part of a known
        // id gets the same part of its stand-in.
        let mut i = 0;
        while i < row.len() {
            let n = row[i..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            if n == 0 {
                i += 1;
                continue;
            }
            let run = &row[i..i + n];
            // Shorter: a short id cut at a panel's edge ("context 33fd┐"), known by its label or the edge.
            let labelled = ["task ", "context "].iter().any(|l| {
                let l: Vec<char> = l.chars().collect();
                i >= l.len() && row[i - l.len()..i] == l[..]
            });
            let at_edge = n >= 4 && row.get(i + n).is_some_and(|c| "┐│┘".contains(*c));
            let found = fakes.iter().find_map(|(_, bare, fake)| {
                if n >= 6
                    && let Some(at) = bare.windows(n).position(|w| w == run)
                {
                    return Some(&fake[at..at + n]);
                }
                // A whole token only: "fa" of "task failed" is no id.
                let token = row.get(i + n).is_none_or(|c| !c.is_alphanumeric());
                if !(token && (labelled || at_edge)) {
                    return None;
                }
                // The start of a tail of 8, 12, … characters.
                (8..=bare.len()).step_by(4).find_map(|len| {
                    let at = bare.len() - len;
                    bare[at..].starts_with(run).then(|| &fake[at..at + n])
                })
            });
            if let Some(fake) = found {
                out[i..i + n].copy_from_slice(fake);
            }
            i += n;
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
        // Elapsed time of a running task (" · 0:42", " · 1:02:03"): the same width, always 42 s.
        for i in 0..row.len().saturating_sub(2) {
            if row[i] != '·' || row[i + 1] != ' ' {
                continue;
            }
            let at = i + 2;
            let n = row[at..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || **c == ':')
                .count();
            let text: String = row[at..at + n].iter().collect();
            let parts: Vec<&str> = text.split(':').collect();
            // Hours are not padded ("1:02:03"), which tells an elapsed time from a clock time ("· 10:24:13").
            let clock = (2..=3).contains(&parts.len())
                && parts.iter().all(|p| !p.is_empty())
                && parts[1..].iter().all(|p| p.len() == 2)
                && (parts.len() == 2 || parts[0].len() == 1);
            if clock {
                let digits = (at..at + n).filter(|&j| row[j] != ':').collect::<Vec<_>>();
                for (k, &j) in digits.iter().enumerate() {
                    out[j] = match digits.len() - k {
                        2 => '4',
                        1 => '2',
                        _ => '0',
                    };
                }
            }
        }
        // The running-task spinner turns with the clock: always its first frame.
        for c in out.iter_mut() {
            if matches!(*c, '◓' | '◑' | '◒') {
                *c = '◐';
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
/// context usually share them, but not always; a common stand-in keeps the picture the same either way. The rest
/// (and so the random tail the console shows as the short id) differs for each `k`.
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
