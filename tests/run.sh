#!/usr/bin/env bash
# The test command: install the official SDK peers (idempotent, into target/peers), then lint and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/peers/install.sh
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked
