#!/usr/bin/env bash
# Every test: formatting, lints (the core's sans-IO bans), the native test suite (unit
# tests, conformance scenarios with reload checks, property tests), the core's unit tests on
# wasm32-unknown-unknown, every scenario through the npm package in Node (and its host driver),
# the packed package in a fresh Node project, the AI SDK and OpenAI Agents examples,
# IndexedDB persistence and the package in headless Chromium, and a
# TypeScript host checked by tsc, `baton serve` as a process on loopback (tests/server/; three
# nodes on a PostgreSQL the test starts), the A2A TCK (docs/CONFORMANCE.md), and
# the console's end-to-end tests in headless Chromium (which
# also refresh docs/screenshots/). Ends with one line: "tests: N passed, M failed".
#
# `scripts/test.sh --quick`: the fast tier for while you work — formatting, every lint and the
# native test suite (a few minutes warm). CI runs the whole command, never the quick tier.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
[ "${1:-}" = "--quick" ] && quick=true
source scripts/setup.sh
# CI builds a clean clone once: incremental-compilation caches are never read there and only
# take disk (783 MB for the native tests' build; a CI run once ran out of disk while linking).
[ "${CI:-}" != true ] || export CARGO_INCREMENTAL=0
$quick || ensure_all
# The repository's hooks (.githooks/: formatting before a commit), in a git checkout.
if git rev-parse --git-dir >/dev/null 2>&1; then
  git config core.hooksPath .githooks
fi

# Everything the run writes to a temporary directory (Chromium profiles, stores the tests
# open, the packed package's project) lives under one directory that goes when the run ends,
# however it ends: repeated runs on one machine must not fill its disk.
run_tmp=$(mktemp -d)
# A stage run side by side (the conformance run: its shell, the TCK, its server) ends with the
# run, however it ends.
conformance_pid=""
kill_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap '[ -z "$conformance_pid" ] || kill_tree "$conformance_pid"; rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"
log="$run_tmp/test.log"
fresh="$run_tmp/fresh"
mkdir "$fresh"
# A test file that leaves a handle open (a server's event stream, a timer) after a failure
# keeps node's runner waiting: each node test stage ends within 20 minutes or fails, so a hang
# is reported with its output instead of running into CI's limit. (Not --test-force-exit: on
# Node 20 it ends a run before every test in it has run, so tests go missing silently.)
node_test() {
  timeout 1200 node --test "$@"
}
# Each stage's wall time, listed before the closing line (where a run's minutes go).
stage_times=()
stage_name=""
stage_start=$SECONDS
stage() {
  [ -n "$stage_name" ] && stage_times+=("$(printf '%5d s  %s' $((SECONDS - stage_start)) "$stage_name")")
  stage_name="$1"
  stage_start=$SECONDS
  [ -z "$1" ] || echo "== $1"
}
wasm_test() {
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner WASM_BINDGEN_TEST_TIMEOUT=120 cargo test "$@"
}

stage "cargo fmt --check"
cargo fmt --all -- --check

stage "clippy (core: no clock, no filesystem, no env)"
cargo clippy --quiet -p baton-core --lib -- -D warnings
cargo clippy --quiet -p baton-core --no-default-features --lib -- -D warnings
cargo clippy --quiet --workspace --exclude baton-web --all-targets -- -D warnings
cargo clippy --quiet -p baton-core -p baton-wasm --target wasm32-unknown-unknown --lib --tests -- -D warnings
cargo clippy --quiet -p baton-core --target wasm32-unknown-unknown --bench forms -- -D warnings
cargo clippy --quiet -p baton-web --target wasm32-unknown-unknown -- -D warnings

stage "demo scenario runs"
cargo run --quiet -p baton -- run demo/mission.jsonl > /dev/null

stage "native tests"
cargo test --workspace --exclude baton-web 2>&1 | tee -a "$log"
# The core as the console builds it: no schemas, no YAML (each its own feature).
cargo test -p baton-core --no-default-features --lib 2>&1 | tee -a "$log"

if $quick; then
  awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) } }
       END { printf "tests (quick tier): %d passed, %d failed\n", p, f; exit (p == 0 || f > 0) }' "$log"
  exit
fi

stage "baton serve on loopback: JSON-RPC contract, keys, event and effect resume, MCP (official client), restart, concurrent clients, kill -9 under load;"
echo "   three nodes on a PostgreSQL the tests start (initdb in a temporary directory): forwarding, resume on another node, kill -9 failover, fencing;"
echo "   A2A 1.0 driven by the official JS (@a2a-js/sdk) and Python (a2a-sdk) clients"
cargo build --quiet -p baton
[ -d tests/server/node_modules ] || (cd tests/server && npm ci --no-audit --no-fund --silent)
node_test tests/server/ 2>&1 | tee -a "$log"

stage "conformance: the official A2A TCK (a2aproject/a2a-tck, from ../shared/a2a-tck or A2A_TCK_DIR) against baton serve"
echo "   on every binding the card offers (JSON-RPC, HTTP+JSON, gRPC), and the MCP conformance suite on both revisions;"
echo "   writes docs/CONFORMANCE.md;"
echo "   fails on a failing test or scenario with no reason written"
echo "   (it mostly waits on the server, so it runs side by side with the stages after it, up to the peer benchmark,"
echo "   and its output comes there; docs/PERFORMANCE.md, issue 26 item 6)"
ensure_a2a_tck
ensure_mcp_conformance
conformance_out="$run_tmp/conformance.out"
(
  start=$SECONDS
  if bash tests/conformance/run.sh > "$conformance_out" 2>&1; then rc=0; else rc=$?; fi
  echo "$((SECONDS - start)) $rc" > "$conformance_out.done"
) &
conformance_pid=$!

stage "the Python package (python/): pip install into a fresh virtual environment, then pytest against baton serve"
echo "   (client, followers across a restart, the host driver, a host killed with kill -9, the OpenAI Agents SDK example"
echo "   on scripted models, LangGraph graphs on scripted chat models) and mypy --strict over the package and the example"
py="$run_tmp/py"
python3 -m venv "$py" 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$py"; }
PIP_CONSTRAINT="$PWD/python/constraints.txt" "$py/bin/pip" install --quiet --disable-pip-version-check "./python[langgraph]" pytest mypy
(cd python && BATON_BIN="$PWD/../target/debug/baton" "$py/bin/python" -m pytest -q -p no:cacheprovider tests) 2>&1 | tee -a "$log"
"$py/bin/mypy" --strict --cache-dir "$run_tmp/mypy" python/src/baton examples/openai-agents-py/delegation.py examples/openai-agents-py/scripted-model.py

stage "the baton serve benchmark, short (1 s rows, the debug build): it must run end to end; its figures are not checked here"
BATON_BENCH_SECONDS=1 BATON_BENCH_STALL_HANDOFFS=300 BATON_BENCH_PROFILE=dev bash bench/serve.sh | grep '^BENCH'

stage "the peer benchmark, short (Baton vs Restate, DBOS and LangGraph; the debug build): every side runs end to end and syncs every cycle; figures not checked here"
BATON_BENCH_PROFILE=dev bash bench/peers.sh 0.5 1 50 | grep '^BENCH'

stage "conformance (started above): its output, once it has ended"
wait "$conformance_pid" || true
conformance_pid=""
cat "$conformance_out"
read -r conformance_secs conformance_rc < "$conformance_out.done" || { conformance_secs=0; conformance_rc=1; }
stage_times+=("$(printf '%5d s  %s' "$conformance_secs" "  the conformance run itself, side by side with the stages since it started")")
[ "$conformance_rc" = 0 ] || { echo "conformance failed (exit status $conformance_rc)"; exit 1; }

stage "the schemas under an independent validator (ajv): the documents' examples, every accepted call, every documented limit"
[ -d tests/schemas/node_modules ] || (cd tests/schemas && npm ci --no-audit --no-fund --silent)
node_test tests/schemas/ 2>&1 | tee -a "$log"

stage "the core's unit tests on wasm32-unknown-unknown (in Node)"
wasm_test -p baton-core --target wasm32-unknown-unknown --lib 2>&1 | tee -a "$log"

stage "the npm package (pkg/): wasm build for Node and browsers, every scenario through it in Node"
cargo build --quiet -p baton-wasm --target wasm32-unknown-unknown --release
wasm=target/wasm32-unknown-unknown/release/baton_wasm.wasm
wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node "$wasm"
wasm-bindgen --target web --out-dir pkg/web "$wasm"
node_test tests/node/ 2>&1 | tee -a "$log"

stage "the packed package installs into a fresh Node project and its README example runs"
npm pack ./pkg --pack-destination "$fresh" --silent > /dev/null
(cd "$fresh" && npm init -y > /dev/null && npm install --no-audit --no-fund --silent ./baton-engine-*.tgz)
node tests/node/readme-example.mjs "$fresh"

stage "the framework adapters: examples/ai-sdk and examples/openai-agents-js on scripted models, through the host driver"
echo "   (pkg/host.js), embedded and against a baton serve the tests start"
# npm ci every run: it copies pkg/ (install-links), which the steps above just rebuilt.
(cd examples/ai-sdk && npm ci --no-audit --no-fund --silent)
(cd examples/openai-agents-js && npm ci --no-audit --no-fund --silent)
node_test tests/adapters/ 2>&1 | tee -a "$log"

stage "IndexedDB persistence in headless Chromium (wasm-bindgen-test)"
wasm_test -p baton-wasm --target wasm32-unknown-unknown --test indexeddb 2>&1 | tee -a "$log"

stage "the package in a browser page (headless Chromium via ChromeDriver): example + IndexedDB reopen"
python3 tests/browser/run.py

stage "a TypeScript host type-checks against pkg/'s types (tsc --noEmit); the adapters' types against the"
echo "   frameworks' own, as installed in the examples above"
[ -d tests/ts/node_modules ] || (cd tests/ts && npm ci --no-audit --no-fund --silent)
(cd tests/ts && ./node_modules/.bin/tsc -p . && ./node_modules/.bin/tsc -p tsconfig.adapters.json)

stage "the console (web/): Trunk release build, its size budget (scripts/console-size.sh), end-to-end in headless Chromium (playwright-core), screenshots;"
echo "   attached live to a baton serve started by the test (target/debug/baton), and to the workspaces the"
echo "   adapters' examples ran their delegation in"
trunk build --release
scripts/console-size.sh dist
[ -d tests/e2e/node_modules ] || (cd tests/e2e && npm ci --no-audit --no-fund --silent)
node_test --test-concurrency=1 tests/e2e/ 2>&1 | tee -a "$log"

stage "the console's pictures at 10k handoffs in headless Chromium: first picture, frame work while panning (figures not checked here)"
node bench/console-frames.mjs dist 10000 60

stage ""
echo "== time per stage"
printf '%s\n' "${stage_times[@]}"
printf '%5d s  %s\n' "$SECONDS" "in all, setup included"

# One closing line over every runner: cargo's blocks ("test result: ok. N passed; M failed"),
# Node's ("# pass N" / "# fail N", ℹ-prefixed in its spec reporter) and
# pytest's ("N failed, M passed in 1.2s"; errors count as failures) too.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) } }
     !/^test result:/ && /^[0-9]+ (passed|failed|error)/ && / in [0-9.]+s/ { for (i = 2; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^(failed|errors?),?$/) f += $(i-1) } }
     /^(ℹ |# )pass [0-9]+$/ { p += $NF } /^(ℹ |# )fail [0-9]+$/ { f += $NF }
     END { printf "tests: %d passed, %d failed\n", p, f; exit (p == 0 || f > 0) }' "$log"
