#!/usr/bin/env bash
# The engine alone on the command line: play a demo mission through it and
# print what happens, step by step.
set -euo pipefail
cd "$(dirname "$0")/.."
BATON_NEED_WASM=0 source scripts/setup.sh
cargo build --quiet --release -p baton
./target/release/baton run demo/mission.jsonl --pretty
