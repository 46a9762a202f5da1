#!/usr/bin/env bash
# Bench script: a command persisted to IndexedDB through the engine vs a bare IndexedDB
# transaction writing the same bytes, in headless Chromium. Prints one BENCH line.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_wasm_bindgen
ensure_chromium
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner WASM_BINDGEN_TEST_TIMEOUT=300 \
  cargo test --release -p baton-wasm --target wasm32-unknown-unknown --test idb_bench -- --nocapture 2>&1 | grep -E "BENCH|test result"
