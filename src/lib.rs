//! a2a-console: a terminal console and scriptable CLI for remote agents that speak the Agent2Agent protocol.
//! The binary (`main.rs`) is a thin shell; everything testable lives here.
//!
//! The modules, roughly from the core outwards:
//!
//! - [`trust`]: what we believe about remote text: sanitising, provenance, the flags raised over it.
//! - [`files`]: private files and directories (0600 / 0700), and atomic replacement keeping a file's mode,
//!   owner and symlink: used by `config`, `store` and `tui`.
//! - [`config`]: the TOML config (discovery, validation, `Overrides`), editing it, themes and the keymap.
//! - [`remote`]: everything that talks to the network and nothing that draws: cards, clients, auth, OAuth,
//!   push, the task tracker, building outgoing messages, errors, the audit redaction.
//! - [`markup`]: markdown, the JSON view, code highlighting and their styles; used by `app` and `ui`.
//! - [`store`]: the SQLite store (tasks, events, drafts, cached cards, audit log) and task export.
//! - [`app`]: the console's state machine: `App`, `Msg`/`Effect`, `update`, tasks, the board, screen layout.
//!   No I/O, no terminal; imports nothing from `ui`, `tui` or `cli`.
//! - [`ui`]: pure render functions of `&App`, one file per screen.
//! - [`tui`]: the interactive program: terminal setup and restore, the runtime's event loop, persistence.
//! - [`cli`]: the scriptable commands: clap arguments, remote operations, stored history/export/audit,
//!   printing and exit codes.
//! - [`demo`]: the embedded demo agent, on the official A2A server SDK.
//! - `testing` (tests and the `testing` feature only): fixtures and the headless console harness.

pub mod app;
pub mod cli;
pub mod config;
pub mod demo;
pub mod files;
pub mod markup;
pub mod push;
pub mod remote;
pub mod store;
pub mod task;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod trust;
pub mod tui;
pub mod ui;
