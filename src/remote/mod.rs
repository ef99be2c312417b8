//! Everything that talks to the network, and nothing that draws: card fetching and normalising, client
//! selection on the official SDK, the v0.3 compatibility transport, credentials, OAuth sign-in, error
//! classification, the audit redaction, and the local webhook receiver for push notifications.

pub mod agent;
pub mod audit;
pub mod auth;
pub mod card;
pub mod card_rules;
pub mod client;
pub mod compat_v03;
pub mod compat_v03_rest;
pub mod echoed;
pub mod error;
pub mod event_serde;
pub mod grpc_tls;
pub mod grpc_tls_watch;
pub mod guard;
pub mod loopback;
pub mod message;
pub mod normalize;
pub mod oauth;
pub mod oauth_code;
pub mod oidc;
pub mod origin;
pub mod push;
pub mod sign_in;
pub mod signature;
pub mod tls;
pub mod token_store;
pub mod tracker;
pub mod wire;
