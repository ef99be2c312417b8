//! What we believe about remote text: every string from a remote agent enters the app through
//! [`Untrusted`], which sanitises it once ([`sanitize`]) and carries its provenance and the
//! [`flags`] raised over it.
//!
//! Pure functions over strings: no I/O, no terminal, no ratatui, so the UI, the CLI and the audit
//! log all see the same sanitised text and the same findings.

pub mod filename;
pub mod flags;
mod imitation;
pub mod redact;
pub mod sanitize;

pub use flags::{Flag, FlagKind, scan};
pub use sanitize::{Findings, Provenance, Untrusted, sanitize_bytes, sanitize_line, sanitize_text};
