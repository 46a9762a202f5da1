#!/usr/bin/env bash
# The delegation cycle's latency at a fixed offered rate (issue 26 item 1: p99 at 200 cycles/s),
# measured with a native client (server/examples/open_loop.rs) so that no collector of the
# client's own is in the tail. Each build given is started with `--sync full` on a fresh SQLite
# file, loopback only, its snapshots at the default interval; rounds alternate the builds.
# Prints the client's BENCH lines, labelled.
#   Usage: bench/open-loop.sh RATE SECONDS ROUNDS LABEL=BIN [LABEL=BIN ...]
#   e.g.:  bench/open-loop.sh 200 15 3 head=target/release/baton
set -euo pipefail
rate=$1 secs=$2 rounds=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
# BATON_BENCH_PROFILE=dev (the test command's short run) builds the client without
# optimisations, as bench/serve.sh does the server; figures come from the default, release.
if [ "${BATON_BENCH_PROFILE:-release}" = dev ]; then
  cargo build -q -p baton --example open_loop --manifest-path "$root/Cargo.toml"
  client=${CARGO_TARGET_DIR:-$root/target}/debug/examples/open_loop
else
  cargo build --release -q -p baton --example open_loop --manifest-path "$root/Cargo.toml"
  client=${CARGO_TARGET_DIR:-$root/target}/release/examples/open_loop
fi
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
builds=("$@")
for round in $(seq "$rounds"); do
  order=("${builds[@]}")
  if [ $((round % 2)) = 0 ]; then
    order=()
    for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[$i]}"); done
  fi
  for b in "${order[@]}"; do
    label=${b%%=*} bin=${b#*=}
    out=$dir/$label-$round.out
    BATON_ADMIN_KEY=bench RUST_LOG=warn "$bin" serve --db "$dir/$label-$round.db" --addr 127.0.0.1:0 \
      --sync full --rate-limit 100000000 > "$out" 2> "$dir/$label-$round.err" &
    pid=$!
    for _ in $(seq 100); do grep -q listening "$out" 2>/dev/null && break; sleep 0.1; done
    url=$(grep -o 'http://[^ ]*' "$out")/w/bench/rpc
    BATON_ADMIN_KEY=bench "$client" "$url" "$rate" "$secs" --slow | sed "s/^BENCH \([a-z_]*\)/BENCH \1 build=$label round=$round/"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
done
