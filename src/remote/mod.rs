//! Everything that talks to the network as a client, and nothing that draws or stores. One folder per job:
//!
//! - [`card`]: fetching agent cards, reading any shape seen in the wild into the v1.0 card, the rules of that
//!   reading, and security schemes.
//! - [`wire`]: our HTTP transports (SSE, JSON-RPC and REST envelopes) for v1.0 and the two v0.3 bindings.
//! - [`connect`]: from a card and the user's preferences to a working SDK client: the interface chosen, TLS
//!   (also for gRPC), the deadline guard, the echoed-secret redaction.
//! - [`auth`]: credentials and where they may go, OAuth (device, client credentials, code + PKCE), OIDC, the
//!   loopback redirect, signing in and the token store.
//! - [`signature`]: signed-card verification (JWS / JCS, keys, pinning).
//! - [`http`]: the reqwest helpers the folders above share (error reasons, size-limited reads, client
//!   builders), kept here so that none of them imports another for them.
//! - [`error`]: what went wrong, classified the way a user and the CLI's exit code need it.

pub mod auth;
pub mod card;
pub mod connect;
pub mod error;
pub mod http;
pub mod signature;
pub mod wire;
