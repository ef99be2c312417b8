//! a2a-console: a terminal console and scriptable CLI for remote agents that speak the Agent2Agent protocol.
//! The binary (`main.rs`) is a thin shell; everything testable lives here.

pub mod cli;
pub mod config;
pub mod demo;
pub mod exit;
pub mod output;
pub mod remote;
pub mod stream_print;
pub mod trust;
