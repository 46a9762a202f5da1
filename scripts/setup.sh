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
