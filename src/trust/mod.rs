//! TEMP stub
pub mod sanitize;
