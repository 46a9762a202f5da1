#!/usr/bin/env bash
# Bench script: the forms bench (`core/benches/forms.rs`) on wasm32, in Node, where the console
# reads its records: its rows for 100,000 handoffs' records, but for the two binary forms, whose
# crates are native dev-dependencies. PROFILE is the cargo profile it is built with: `console`
# (the default) is the console's own (opt-level "z"; Trunk's wasm-opt pass is not applied
# here), `bench` the native bench's.
#
#   bash bench/forms-wasm.sh [PROFILE]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_node
ensure_wasm_bindgen
profile="${1:-console}"
wasm=$(cargo build -q -p baton-core --bench forms --profile "$profile" --target wasm32-unknown-unknown \
  --message-format=json | node -e '
    const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map(JSON.parse);
    const a = lines.find((m) => m.reason === "compiler-artifact" && m.target.name === "forms");
    process.stdout.write(a.filenames.find((f) => f.endsWith(".wasm")));')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wasm-bindgen --target nodejs --out-dir "$out" --out-name forms "$wasm"
node "$out/forms.js"
