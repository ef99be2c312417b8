//! What the gate remembers of each part it kept, to recognise the same part again: a fingerprint (a seeded
//! hash of everything the part carries, and its size). Comparing fingerprints instead of parts lets the gate
//! let go of a very large artifact's text once the view holds it in a spool file (`app::spool`): a repeat of
//! a chunk, or a snapshot carrying the whole artifact, is still recognised, and the text lives once, on disk.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::LazyLock;

use a2a::{Part, PartContent};

/// Text parts at least this large are let go of once the view has spooled the artifact (smaller ones cost
/// little and keep the raw JSON view exact).
pub const HOLLOW_AT: usize = 16 * 1024;

/// Seeded per process, so an agent cannot craft two different parts that the gate takes for one.
static SEED: LazyLock<foldhash::quality::RandomState> = LazyLock::new(Default::default);

/// A kept part as the gate remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Print {
    hash: u64,
    /// The part's size as counted towards the limit (`limit::part_bytes`).
    pub bytes: usize,
    /// Its text was let go of ([`hollow`]): the part in the log is an empty text of the same kind.
    pub hollow: bool,
}

impl Print {
    pub fn of(p: &Part) -> Print {
        let mut h = SEED.build_hasher();
        match &p.content {
            PartContent::Text(t) => (0u8, t.as_str()).hash(&mut h),
            PartContent::Raw(b) => (1u8, b.as_slice()).hash(&mut h),
            PartContent::Url(u) => (2u8, u.as_str()).hash(&mut h),
            PartContent::Data(v) => (3u8, v.to_string()).hash(&mut h),
        }
        p.media_type.hash(&mut h);
        p.filename.hash(&mut h);
        // Metadata is a map: its JSON is hashed with keys sorted, so two orders of one map are one part.
        if let Some(m) = &p.metadata {
            let mut keys: Vec<(&String, String)> =
                m.iter().map(|(k, v)| (k, v.to_string())).collect();
            keys.sort();
            keys.hash(&mut h);
        }
        Print {
            hash: h.finish(),
            bytes: crate::task::log::limit::part_bytes(p),
            hollow: false,
        }
    }

    /// Is `p` the part this print was taken of?
    pub fn matches(&self, other: &Print) -> bool {
        self.hash == other.hash && self.bytes == other.bytes
    }
}

/// Do `kept[at..]` begin with parts whose prints are `incoming`?
pub fn match_at(kept: &[Print], at: usize, incoming: &[Print]) -> bool {
    kept.get(at..at + incoming.len())
        .is_some_and(|k| k.iter().zip(incoming).all(|(a, b)| a.matches(b)))
}

/// Let go of the text of the large text parts in `parts` (from `from` on), keeping their prints: the view
/// holds the text (spooled). Returns how far it looked, for the next call.
pub fn hollow(parts: &mut [Part], prints: &mut [Print], from: usize) -> usize {
    for (p, print) in parts.iter_mut().zip(prints.iter_mut()).skip(from) {
        if let PartContent::Text(t) = &mut p.content
            && t.len() >= HOLLOW_AT
        {
            *t = String::new();
            print.hollow = true;
        }
    }
    parts.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hollowed_part_is_still_recognised() {
        let big = "z".repeat(HOLLOW_AT + 1);
        let mut parts = vec![Part::text(big.clone()), Part::text("small")];
        let mut prints: Vec<Print> = parts.iter().map(Print::of).collect();
        assert_eq!(hollow(&mut parts, &mut prints, 0), 2);
        assert!(matches!(&parts[0].content, PartContent::Text(t) if t.is_empty()));
        assert!(matches!(&parts[1].content, PartContent::Text(t) if t == "small"));
        assert!(prints[0].hollow && !prints[1].hollow);
        let again = [Print::of(&Part::text(big)), Print::of(&Part::text("small"))];
        assert!(match_at(&prints, 0, &again));
        assert!(!match_at(&prints, 1, &again));
        assert!(!match_at(&prints, 0, &[Print::of(&Part::text("other"))]));
    }
}
