#!/usr/bin/env bash
# Baton's durable delegation cycle against Restate, DBOS and LangGraph in one run (issue 26
# item 2; bench/peers/run.mjs says what each side does). Installs the peers first (npm: Restate's
# server and SDK, with the Node 22 the SDK needs; PyPI: DBOS and LangGraph into a virtual
# environment of their own, pinned by bench/peers/requirements.txt), then runs everything in a
# network namespace with only loopback up: restate-server looks for its latest release on
# GitHub at every start, and nothing of the bench leaves the machine. Prints BENCH lines.
#   bench/peers.sh [seconds per row, default 4] [rounds, 3] [offered cycles/s, 200]
# BATON_BENCH_PROFILE=dev (the test command's short run: it checks that every side runs end to
# end and syncs every cycle; its figures mean nothing) uses the debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
if [ "${BATON_BENCH_PROFILE:-release}" = dev ]; then
  cargo build --quiet -p baton --bin baton
  baton=target/debug/baton
else
  cargo build --quiet --release -p baton --bin baton
  baton=target/release/baton
fi
[ -x bench/peers/node_modules/.bin/restate-server ] || (cd bench/peers && npm ci --no-audit --no-fund --silent)
py="$HOME/.cache/baton-tools/peers-py"
if ! cmp -s bench/peers/requirements.txt "$py/requirements.txt" 2>/dev/null; then
  echo "setup: installing DBOS and LangGraph (bench/peers/requirements.txt) from PyPI into $py"
  rm -rf "$py"
  python3 -m venv "$py" 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$py"; }
  "$py/bin/pip" install --quiet --disable-pip-version-check -r bench/peers/requirements.txt
  cp bench/peers/requirements.txt "$py/requirements.txt"
fi
command -v strace > /dev/null || { apt-get install -y -qq strace > /dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq strace > /dev/null); }
command -v ip > /dev/null || apt-get install -y -qq iproute2 > /dev/null
unshare -n bash -c 'ip link set lo up && exec node bench/peers/run.mjs "$@"' peers "$baton" "$py/bin/python" "${1:-4}" "${2:-3}" "${3:-200}"
