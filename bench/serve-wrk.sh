#!/usr/bin/env bash
# Server capacity with a native load generator (wrk, from Debian), loopback, bounded in time:
# one read request and one write request per server, at 1 and 16 connections, for Baton
# (`baton serve --sync full`) and the A2A JS SDK's server. Run by bench/serve.sh.
#   read:  Baton `call handoff_status` (no record written) | A2A `GetTask`
#   write: Baton `host register_agent` (a new agent each time, durable before the answer)
#          | A2A `SendMessage` (a task completed at once, kept in memory)
# Prints BENCH lines. Usage: bench/serve-wrk.sh path/to/baton [seconds, default 4]
set -euo pipefail
bin=$1
secs=${2:-4}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
BATON_ADMIN_KEY=bench RUST_LOG=warn "$bin" serve --db "$dir/b.db" --addr 127.0.0.1:0 --sync full --rate-limit 100000000 > "$dir/baton.out" &
node "$(dirname "$0")/a2a-server.mjs" > "$dir/a2a.out" &
for _ in $(seq 100); do
  grep -q listening "$dir/baton.out" 2>/dev/null && grep -q listening "$dir/a2a.out" 2>/dev/null && break
  sleep 0.1
done
baton=$(grep -o 'http://[^ ]*' "$dir/baton.out")/w/bench/rpc
a2a=$(grep -o 'http://[^ ]*' "$dir/a2a.out")
rpc() { curl -sf -H 'Authorization: Bearer bench' -H 'Content-Type: application/json' -d "$1" "$baton"; }
rpc '{"jsonrpc":"2.0","id":1,"method":"create_workspace"}' > /dev/null
rpc '[{"jsonrpc":"2.0","id":1,"method":"host","params":{"input":"register_agent","args":{"bot_id":"lead"}}},{"jsonrpc":"2.0","id":2,"method":"host","params":{"input":"register_agent","args":{"bot_id":"adam","tools":["project_manager_tools"]}}},{"jsonrpc":"2.0","id":3,"method":"host","params":{"input":"open_thread","args":{"thread_id":"chat_main","bot_id":"lead"}}}]' > /dev/null
hid=$(rpc '{"jsonrpc":"2.0","id":1,"method":"call","params":{"tool":"handoff","args":{"task":"Review","target_bot":"adam"},"as":{"thread":"chat_main","bot":"lead"}}}' | sed 's/.*"handoff_id":"\([^"]*\)".*/\1/')
tid=$(curl -sf -H 'A2A-Version: 1.0' -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"u0","role":"ROLE_USER","parts":[{"text":"Review"}]}}}' "$a2a" | sed 's/.*"task":{"id":"\([^"]*\)".*/\1/')
cat > "$dir/baton-read.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer bench"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"call","params":{"tool":"handoff_status","args":{"handoff_id":"$hid"},"as":{"thread":"chat_main","bot":"lead"}}}'
LUA
cat > "$dir/baton-write.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer bench"
wrk.headers["Content-Type"] = "application/json"
n = 0
request = function()
  n = n + 1
  local id = tostring(math.random(1, 1e12)) .. "_" .. n
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":1,"method":"host","params":{"input":"register_agent","args":{"bot_id":"b_' .. id .. '"}}}')
end
LUA
cat > "$dir/a2a-read.lua" <<LUA
wrk.method = "POST"
wrk.headers["A2A-Version"] = "1.0"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"$tid"}}'
LUA
cat > "$dir/a2a-write.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["A2A-Version"] = "1.0"
wrk.headers["Content-Type"] = "application/json"
n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"u' .. n .. '_' .. math.random(1, 1e12) .. '","role":"ROLE_USER","parts":[{"text":"Review"}]}}}')
end
LUA
rate() { # script url connections -> requests/s (and refuses non-2xx answers)
  local out
  out=$(wrk -t1 -c"$3" -d"${secs}s" -s "$1" "$2")
  if grep -q "Non-2xx" <<< "$out"; then echo "non-2xx answers from $2" >&2; exit 1; fi
  awk '/Requests\/sec/ { print $2 }' <<< "$out"
}
for kind in read write; do
  for c in 1 16; do
    b=$(rate "$dir/baton-$kind.lua" "$baton" "$c")
    a=$(rate "$dir/a2a-$kind.lua" "$a2a" "$c")
    echo "BENCH serve_wrk kind=$kind connections=$c baton_requests_per_s=${b%.*} a2a_js_server_requests_per_s=${a%.*} ratio=$(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.2f", b / a }')x"
  done
done
