#!/usr/bin/env bash
# Regenerates the README screenshots in this folder from real console frames (examples/screenshots/): each scene
# drives the console headlessly against the embedded demo agent, then buffer → SVG → PNG with resvg and DejaVu Sans
# Mono (Debian: fonts-dejavu-core). The output is deterministic, so unchanged scenes leave their PNG untouched.
#
#   screenshots/generate.sh                  # regenerate every scene
#   screenshots/generate.sh hostile skills   # only these scenes (--help lists them)
#   screenshots/generate.sh --check          # change nothing; exit 1 listing the PNGs that are stale or missing
#   screenshots/generate.sh --svg /tmp/shots # also write each scene's SVG and masked screen text there
set -euo pipefail
cd "$(dirname "$0")/.."
# The demo agent signs its card with a fresh key per process unless told where its key is: a fixed throwaway key
# (committed, used for nothing else) keeps the kid and thumbprint on the card page, and so the PNG, the same.
export A2A_CONSOLE_DEMO_KEY="$PWD/examples/screenshots/demo-card-key.p8"
exec cargo run --quiet --example screenshots -- "$@"
