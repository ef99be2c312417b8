//! a2a-console: a terminal console and scriptable CLI for remote agents that speak the Agent2Agent protocol.
//! The binary (`main.rs`) is a thin shell; everything testable lives here.

pub mod app;
pub mod cli;
pub mod config;
pub mod config_edit;
pub mod console;
pub mod demo;
pub mod exit;
pub mod highlight;
pub mod keymap;
pub mod layout;
pub mod output;
pub mod persist;
pub mod remote;
pub mod runtime;
pub mod store;
pub mod stream_print;
pub mod theme;
pub mod trust;
pub mod ui;
