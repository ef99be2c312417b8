//! a2a-console library.
