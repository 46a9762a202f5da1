#!/usr/bin/env bash
# Console bench: the release build's wasm size (raw and gzip -9), and the time to first render
# of a 10k-handoff workspace in headless Chromium (median of 5 fresh page loads).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_all
trunk build --release > /dev/null
wasm=$(ls dist/*_bg.wasm)
echo "BENCH console_wasm raw_bytes=$(wc -c < "$wasm") gzip9_bytes=$(gzip -9 -c "$wasm" | wc -c) js_gzip9_bytes=$(gzip -9 -c dist/*.js | wc -c)"
[ -d tests/e2e/node_modules ] || (cd tests/e2e && npm ci --no-audit --no-fund --silent)
node bench/console-render.mjs dist "${BATON_BENCH_HANDOFFS:-10000}" "${BATON_BENCH_RUNS:-5}"
