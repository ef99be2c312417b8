//! Regression suites: cases written in TOML ([`file`]), expanded by their rows ([`expand`]), run against
//! live agents over any binding and protocol version the console speaks ([`run`], [`runner`]), judged on what
//! was seen ([`observe`], [`expect`]), reported as JSON and JUnit ([`report`]), compared run against run or
//! task against task ([`compare`]), and written from a conversation the user had ([`record`]).
//!
//! Like `check`, this is a client's work: it imports the protocol and task layers, never the console's state
//! or the store (the CLI and the console keep the runs).

pub mod compare;
pub mod expand;
pub mod expect;
pub mod file;
pub mod observe;
pub mod record;
pub mod report;
pub mod run;
pub mod runner;
