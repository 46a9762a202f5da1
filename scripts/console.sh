#!/usr/bin/env bash
# Baton's main job: build the console (web/, Leptos + Trunk, release) and serve it on
# localhost. Open the printed address; with no workspace yet it offers the demo mission.
# BATON_PORT picks the port (default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_node
ensure_binaryen
# The console's own compile needs neither tool: on a fresh machine it runs beside their
# installs (the same cargo command Trunk runs below, which then finds it done).
cargo build --quiet --target=wasm32-unknown-unknown --manifest-path web/Cargo.toml --profile console --bin baton-web &
console_build=$!
ensure_wasm_bindgen
ensure_trunk
wait "$console_build"
port="${BATON_PORT:-8080}"
echo "Baton console: building, then serving at http://127.0.0.1:$port/"
exec trunk serve --release --no-autoreload --port "$port"
