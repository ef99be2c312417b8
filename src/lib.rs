//! a2a-console: a terminal console and scriptable CLI for remote agents that speak the Agent2Agent protocol.
//! The binary (`main.rs`) is a thin shell; everything testable lives here.
//!
//! The modules, from the leaves outwards (ARCHITECTURE.md has the picture and the import rules, which
//! `tests/layers.rs` checks):
//!
//! - [`config`], [`trust`], [`files`]: the leaves, importing nothing of the project. The TOML config as plain
//!   data (with bindings, protocol choices and auth checks), themes and the keymap; what we believe about
//!   remote text (sanitising, provenance, flags, the one redactor); private files and atomic replacement.
//! - [`task`]: the A2A task model the console, the CLI and the store share: the gate every event passes, where
//!   a task stands, outgoing messages, the (de)serialisation of task events.
//! - [`markup`]: markdown, the JSON view, code highlighting and their styles; used by `app` and `ui`.
//! - [`remote`]: the network as a client, and nothing that draws or stores: `card/`, `wire/`, `connect/`,
//!   `auth/`, `signature/`.
//! - [`check`]: judging a live agent against the spec (read-only probes, findings with evidence, the report).
//! - [`suite`]: regression suites: cases in TOML run against live agents, judged, reported (JSON, JUnit) and
//!   compared run against run or task against task.
//! - [`push`]: the local webhook receiver for push notifications (a server, not a client call).
//! - [`store`]: the SQLite store (tabs, events, drafts, cached cards, audit log) and task export.
//! - [`app`]: the console's state machine: `App`, `Msg`/`Effect`, `update`, a tab's model, the board, layout.
//!   No I/O, no terminal; imports nothing from `ui`, `tui`, `cli` or `demo`.
//! - [`ui`]: pure render functions of `&App`, one file per screen and per overlay.
//! - [`tui`]: the interactive program: terminal setup and restore, the runtime's event loop, effects,
//!   persistence.
//! - [`cli`]: the scriptable commands; imports nothing from `app` or `tui`.
//! - [`demo`]: the embedded demo agent, on the official A2A server SDK, reached through the runtime.
//! - `testing` (tests and the `testing` feature only): fixtures and the headless console harness.

pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod demo;
pub mod files;
pub mod markup;
pub mod push;
pub mod remote;
pub mod store;
pub mod suite;
pub mod task;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod trust;
pub mod tui;
pub mod ui;
