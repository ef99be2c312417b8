//! Everything that talks to the network, and nothing that draws: card fetching and normalising, client
//! selection on the official SDK, the v0.3 compatibility transport, credentials, redaction for the audit log, and error
//! classification.

pub mod agent;
pub mod audit;
pub mod auth;
pub mod card;
pub mod client;
pub mod compat_v03;
pub mod error;
pub mod guard;
pub mod normalize;
pub mod tracker;
