//! a2a-console: a terminal console and scriptable CLI for remote agents that speak the Agent2Agent protocol.
//! The binary (`main.rs`) is a thin shell; everything testable lives here.

pub mod app;
pub mod cli;
pub mod config;
pub mod demo;
pub mod markup;
pub mod remote;
pub mod store;
pub mod trust;
pub mod tui;
pub mod ui;
