#!/usr/bin/env bash
# Server capacity with a native load generator (wrk, from Debian), loopback, bounded in time:
# one read request and one write request per server, at 1 and 16 connections, for Baton
# (`baton serve --sync full`) and the A2A JS SDK's server. Run by bench/serve.sh.
#   read:  Baton `call handoff_status` (no record written) | A2A `GetTask`
#   write: Baton `host register_agent` (a new agent each time, durable before the answer)
#          | A2A `SendMessage` (a task completed at once, kept in memory)
# The cycle rows also give the Baton server's CPU time per cycle (every thread, user and
# system, from /proc). Prints BENCH lines. Usage: bench/serve-wrk.sh path/to/baton [seconds, default 4]
set -euo pipefail
bin=$1
secs=${2:-4}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
BATON_ADMIN_KEY=bench RUST_LOG=warn "$bin" serve --db "$dir/b.db" --addr 127.0.0.1:0 --sync full --rate-limit 100000000 > "$dir/baton.out" &
full_pid=$!
BATON_ADMIN_KEY=bench RUST_LOG=warn "$bin" serve --db "$dir/n.db" --addr 127.0.0.1:0 --sync normal --rate-limit 100000000 > "$dir/normal.out" &
normal_pid=$!
node "$(dirname "$0")/a2a-server.mjs" > "$dir/a2a.out" &
for _ in $(seq 100); do
  grep -q listening "$dir/baton.out" 2>/dev/null && grep -q listening "$dir/a2a.out" 2>/dev/null \
    && grep -q listening "$dir/normal.out" 2>/dev/null && break
  sleep 0.1
done
baton=$(grep -o 'http://[^ ]*' "$dir/baton.out")/w/bench/rpc
normal=$(grep -o 'http://[^ ]*' "$dir/normal.out")/w/bench/rpc
a2a=$(grep -o 'http://[^ ]*' "$dir/a2a.out")
rpc() { curl -sf -H 'Authorization: Bearer bench' -H 'Content-Type: application/json' -d "$1" "${2:-$baton}"; }
rpc '{"jsonrpc":"2.0","id":1,"method":"create_workspace"}' > /dev/null
rpc '{"jsonrpc":"2.0","id":1,"method":"create_workspace"}' "$normal" > /dev/null
rpc '[{"jsonrpc":"2.0","id":1,"method":"host","params":{"input":"register_agent","args":{"bot_id":"lead"}}},{"jsonrpc":"2.0","id":2,"method":"host","params":{"input":"register_agent","args":{"bot_id":"adam","tools":["project_manager_tools","web_search"]}}}]' "$normal" > /dev/null
rpc '[{"jsonrpc":"2.0","id":1,"method":"host","params":{"input":"register_agent","args":{"bot_id":"lead"}}},{"jsonrpc":"2.0","id":2,"method":"host","params":{"input":"register_agent","args":{"bot_id":"adam","tools":["project_manager_tools","web_search"]}}},{"jsonrpc":"2.0","id":3,"method":"host","params":{"input":"open_thread","args":{"thread_id":"chat_main","bot_id":"lead"}}}]' > /dev/null
hid=$(rpc '{"jsonrpc":"2.0","id":1,"method":"call","params":{"tool":"handoff","args":{"task":"Review","target_bot":"adam"},"as":{"thread":"chat_main","bot":"lead"}}}' | sed 's/.*"handoff_id":"\([^"]*\)".*/\1/')
# The cycle rows run on a workspace of their own: the write rows above leave tens of thousands
# of agents in `bench` (and its snapshots grow with them), which the `--sync normal` server's
# cycles never see.
cycle_full=${baton%/w/bench/rpc}/w/cycle/rpc
rpc '{"jsonrpc":"2.0","id":1,"method":"create_workspace"}' "$cycle_full" > /dev/null
rpc '[{"jsonrpc":"2.0","id":1,"method":"host","params":{"input":"register_agent","args":{"bot_id":"lead"}}},{"jsonrpc":"2.0","id":2,"method":"host","params":{"input":"register_agent","args":{"bot_id":"adam","tools":["project_manager_tools","web_search"]}}}]' "$cycle_full" > /dev/null
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

# The delegation cycle with wrk: one connection per wrk thread, each thread's Lua state walking
# its own cycle step by step (a step's request is built from the answer before it), so the
# load generator is native and not the bottleneck. Baton's cycle is the one bench/serve.mjs
# runs — a new parent thread, the handoff, the child's tool call and response, its mailbox
# report, the parent's turn end — sent as six requests ("steps") or as the two round trips a
# host can batch ("batched": [open_thread, handoff], then the child's three steps and the turn
# end; the second needs the child's thread from the first). The A2A cycle is SendMessage (the
# executor completes the task at once) then GetTask. Every answer is checked; an error fails
# the bench.
cat > "$dir/cycle.lua" <<'LUA'
local mode = os.getenv("CYCLE_MODE")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if mode == "a2a" then wrk.headers["A2A-Version"] = "1.0" else wrk.headers["Authorization"] = "Bearer bench" end
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tag", os.getenv("CYCLE_RUN") .. "_" .. #threads) -- thread ids unique across runs
end
step, n, parent, child, task, cycles, errors = 1, 0, nil, nil, nil, 0, 0
local function rpc(id, method, params) return '{"jsonrpc":"2.0","id":' .. id .. ',"method":"' .. method .. '","params":' .. params .. '}' end
local function host(id, input, args) return rpc(id, "host", '{"input":"' .. input .. '","args":' .. args .. '}') end
local function call(id, tool, args, thread, bot) return rpc(id, "call", '{"tool":"' .. tool .. '","args":' .. args .. ',"as":{"thread":"' .. thread .. '","bot":"' .. bot .. '"}}') end
local function open() return host(1, "open_thread", '{"thread_id":"' .. parent .. '","bot_id":"lead"}') end
local function handoff() return call(2, "handoff", '{"task":"Review the model","target_bot":"adam"}', parent, "lead") end
local function tool() return host(3, "tool_call", '{"thread_id":"' .. child .. '","tool":"web_search"}') end
local function resp() return host(4, "response", '{"thread_id":"' .. child .. '","text":"Two risks remain."}') end
local function report() return call(5, "mailbox_action", '{"action":"SEND_MESSAGE","to_thread_id":"' .. parent .. '","to_bot_id":"lead","body":"Done: two risks remain."}', child, "adam") end
local function ended() return host(6, "turn_ended", '{"thread_id":"' .. parent .. '"}') end
local steps = {
  baton_steps = { open, handoff, tool, resp, report, ended },
  baton_batched = {
    function() return "[" .. open() .. "," .. handoff() .. "]" end,
    function() return "[" .. tool() .. "," .. resp() .. "," .. report() .. "," .. ended() .. "]" end,
  },
  a2a = {
    function() return rpc(n, "SendMessage", '{"message":{"messageId":"u' .. tag .. '_' .. n .. '","role":"ROLE_USER","parts":[{"text":"Review the model"}]}}') end,
    function() return rpc(n, "GetTask", '{"id":"' .. task .. '"}') end,
  },
}
local cycle = steps[mode]
function request()
  if step == 1 then
    n = n + 1
    parent = "p_" .. tag .. "_" .. n
  end
  return wrk.format(nil, nil, nil, cycle[step]())
end
function response(status, headers, body)
  local ok = status == 200 and not body:find('"error"', 1, true)
  if ok and mode == "a2a" and step == 1 then task = body:match('"task":{"id":"([^"]+)"'); ok = task ~= nil end
  if ok and mode == "a2a" and step == 2 then ok = body:find("TASK_STATE_COMPLETED", 1, true) ~= nil end
  if ok and mode ~= "a2a" and ((mode == "baton_steps" and step == 2) or (mode == "baton_batched" and step == 1)) then
    child = body:match('"thread_id":"(chat_%w+)"'); ok = child ~= nil
  end
  if not ok then
    errors = errors + 1
    if errors < 3 then io.stderr:write(mode .. " step " .. step .. ": " .. body:sub(1, 300) .. "\n") end
    step = 1
    return
  end
  if step == #cycle then step = 1; cycles = cycles + 1 else step = step + 1 end
end
function done(summary, latency, requests)
  local c, e = 0, 0
  for _, t in ipairs(threads) do c = c + t:get("cycles"); e = e + t:get("errors") end
  io.write(string.format("CYCLES %d ERRORS %d SECONDS %.3f\n", c, e, summary.duration / 1e6))
end
LUA
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # user + system, every thread
cycles() { # mode url connections [server pid] -> cycles/s [and the server's CPU ms per cycle]
  local out before=0
  [ -n "${4:-}" ] && before=$(cpu_ticks "$4")
  out=$(CYCLE_MODE=$1 CYCLE_RUN="$1_$3" wrk -t"$3" -c"$3" -d"${secs}s" -s "$dir/cycle.lua" "$2")
  read -r c e s < <(awk '/^CYCLES/ { print $2, $4, $6 }' <<< "$out")
  if [ "${e:-1}" != 0 ] || [ "${c:-0}" = 0 ]; then echo "cycle $1: $c cycles, $e errors" >&2; exit 1; fi
  awk -v c="$c" -v s="$s" 'BEGIN { printf "%.0f", c / s }'
  [ -n "${4:-}" ] && awk -v t="$(( $(cpu_ticks "$4") - before ))" -v hz="$ticks" -v c="$c" 'BEGIN { printf " %.3f", t * 1000 / hz / c }'
  echo # a whole line, which `read` needs
}
for c in 1 16; do
  a=$(cycles a2a "$a2a" "$c")
  for sync in full normal; do
    url=$cycle_full pid=$full_pid
    [ "$sync" = normal ] && url=$normal pid=$normal_pid
    for mode in baton_batched baton_steps; do
      read -r b ms < <(cycles "$mode" "$url" "$c" "$pid")
      echo "BENCH serve_wrk_cycle sync=$sync mode=$mode connections=$c baton_cycles_per_s=$b baton_server_cpu_ms_per_cycle=$ms a2a_js_server_cycles_per_s=$a ratio=$(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.2f", b / a }')x"
    done
  done
done
