#!/usr/bin/env bash
# Bench for `baton serve` (issue "baton serve"), one command, one run, loopback only: a durable
# command against a bare SQLite insert of the same bytes (cargo bench -p baton --bench durable),
# then Baton's delegation cycle over HTTP against the A2A JS SDK's server at 1 and 16 clients,
# and event-stream fan-out to 100 subscribers (bench/serve.mjs); the pause a snapshot of a large
# workspace puts into an open loop (bench/snapshot-stall.mjs, which also takes two builds to
# compare), and the cycle's latency at a fixed rate with a native client (bench/open-loop.sh);
# then each server's capacity for one read and one write request with a native load generator
# (wrk, bench/serve-wrk.sh); and on Postgres, 1 vs 3 nodes and the failover time
# (bench/cluster.mjs).
# Prints BENCH lines.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
ensure_all
# BATON_BENCH_PROFILE=dev (the test command's short run, which only checks that every part
# runs end to end) uses the debug build the tests already made instead of compiling the server
# again with fat LTO; its figures mean nothing. Figures come from the default, release.
if [ "${BATON_BENCH_PROFILE:-release}" = dev ]; then
  durable=(--profile dev)
  cargo build --quiet -p baton
  baton=target/debug/baton
else
  durable=()
  cargo build --quiet --release -p baton
  baton=target/release/baton
fi
echo "== a durable command vs a bare SQLite insert (cargo bench -p baton --bench durable)"
cargo bench -q -p baton --bench durable "${durable[@]}"
echo "== over HTTP: Baton vs the A2A JS SDK server; SSE fan-out"
[ -d bench/node_modules ] || (cd bench && npm ci --no-audit --no-fund --silent)
node bench/serve.mjs "$baton" "${BATON_BENCH_SECONDS:-4}"
echo "== the pause a snapshot puts into the answers (an open loop as a snapshot of N handoffs comes due)"
node bench/snapshot-stall.mjs "${BATON_BENCH_STALL_HANDOFFS:-20000}" "$((${BATON_BENCH_SECONDS:-4} * 5))" 200 1 "this=$baton"
echo "== the cycle's latency at 200 cycles/s offered, with a native client (bench/open-loop.sh)"
bash bench/open-loop.sh 200 "$((${BATON_BENCH_SECONDS:-4} * 5))" 1 "this=$baton"
echo "== Postgres: a workspace's throughput on 1 and 3 nodes, 3 workspaces on 1 and 3 nodes, failover time"
node bench/cluster.mjs "$baton" "${BATON_BENCH_SECONDS:-4}"
echo "== server capacity with a native load generator (wrk): Baton vs the A2A JS SDK server"
command -v wrk > /dev/null || { apt-get install -y -qq wrk > /dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk > /dev/null); }
bash bench/serve-wrk.sh "$baton" "${BATON_BENCH_SECONDS:-4}"
