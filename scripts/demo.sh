#!/usr/bin/env bash
# Baton's main job (until the console lands): play a demo mission through the engine and
# print what happens, step by step.
set -euo pipefail
cd "$(dirname "$0")/.."
BATON_NEED_WASM=0 source scripts/setup.sh
cargo build --quiet --release -p baton
./target/release/baton run demo/mission.jsonl --pretty
