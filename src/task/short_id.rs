//! The tail of a task id that tells it apart: a UUIDv7 (what the SDKs mint) starts with its timestamp, so the
//! short form is its random end. The console lengthens it among its open tabs (`app::short_id`); the CLI
//! matches a short id typed by the user against stored tasks with the same rule.

/// The last `n` meaningful characters of an id: hex digits of a UUID (its dashes dropped), or the id itself
/// when it is short already.
pub fn tail(id: &str, n: usize) -> String {
    if id.chars().count() <= n.max(12) && !is_uuid(id) {
        return id.to_string();
    }
    let chars: Vec<char> = if is_uuid(id) {
        id.chars().filter(|c| *c != '-').collect()
    } else {
        id.chars().collect()
    };
    let from = chars.len().saturating_sub(n);
    chars.get(from..).unwrap_or_default().iter().collect()
}

fn is_uuid(id: &str) -> bool {
    id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}
