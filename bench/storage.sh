#!/usr/bin/env bash
# Storage bench (issue "Engine v2, part 2"), one command, one run: the delegation cycle
# natively at 10k / 100k / 1M retained handoffs and through the npm package in Node at 10k /
# 100k; memory per retained handoff (native RSS, wasm linear memory in Node); opening a
# 100k-handoff workspace natively (replay vs snapshot), in Node (from its export) and in the
# console (first render in headless Chromium). Prints BENCH lines.
# Sizes: BATON_BENCH_SIZES (native, default 10000,100000,1000000), BATON_BENCH_NODE_SIZES
# (default 10000,100000), BATON_BENCH_CONSOLE (handoffs, default 100000; 0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_all
echo "== native (cargo bench -p baton-core --bench storage)"
cargo bench -q -p baton-core --bench storage
echo "== native, mimalloc (cargo bench -p baton-core --bench storage_mimalloc)"
BATON_BENCH_OPEN=0 cargo bench -q -p baton-core --bench storage_mimalloc | sed 's/^BENCH native_/BENCH mimalloc_native_/'
echo "== Node (the npm package, compact store)"
cargo build --quiet -p baton-wasm --target wasm32-unknown-unknown --release
wasm=target/wasm32-unknown-unknown/release/baton_wasm.wasm
wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node "$wasm"
[ -d bench/node_modules ] || (cd bench && npm ci --no-audit --no-fund --silent)
node --expose-gc bench/node-storage.mjs "${BATON_BENCH_NODE_SIZES:-10000,100000}"
n=${BATON_BENCH_CONSOLE:-100000}
if [ "$n" != 0 ]; then
  echo "== console (first render of a ${n}-handoff workspace, headless Chromium)"
  trunk build --release > /dev/null
  [ -d tests/e2e/node_modules ] || (cd tests/e2e && npm ci --no-audit --no-fund --silent)
  node bench/console-render.mjs dist "$n" 3
fi
