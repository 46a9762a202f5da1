#!/usr/bin/env bash
# The conformance run: the official A2A TCK against `baton serve` (target/debug/baton, with
# the fixture agent) on every binding its card offers, and the MCP conformance suite against
# its MCP endpoint on both revisions; then docs/CONFORMANCE.md written from the results
# (tests/conformance/report.py). Fails when a test fails that docs/CONFORMANCE.md gives no
# reason for (tests/conformance/reasons.json). Needs BATON_A2A_TCK and BATON_MCP_CONFORMANCE
# (scripts/setup.sh's ensure_a2a_tck and ensure_mcp_conformance) and target/debug/baton.
set -euo pipefail
cd "$(dirname "$0")/../.."
tck="${BATON_A2A_TCK:?run ensure_a2a_tck from scripts/setup.sh first}"
out=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$out"' EXIT

# A server on a free loopback port: a workspace, the fixture agent `echo` served at the root
# card (the TCK discovers the agent there), the TCK's webhook on loopback allowed.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
host="http://127.0.0.1:$port"
BATON_ADMIN_KEY=conformance-admin target/debug/baton serve --db "$out/baton.db" --addr "127.0.0.1:$port" \
  --fixture-agent echo --a2a-default tck/echo --allow-private-callbacks > "$out/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$host/healthz" > /dev/null && break; sleep 0.1; done
rpc() {
  curl -sf -X POST -H "authorization: Bearer conformance-admin" -H "content-type: application/json" \
    "$host/w/tck/rpc" -d "$1"
}
rpc '{"jsonrpc": "2.0", "id": 1, "method": "create_workspace"}' > /dev/null
rpc '{"jsonrpc": "2.0", "id": 2, "method": "host", "params": {"input": "register_agent",
  "args": {"bot_id": "echo", "tools": ["project_manager_tools", "coordination_tools"]}}}' > /dev/null
made=$(rpc '{"jsonrpc": "2.0", "id": 3, "method": "create_key", "params": {"principal": "bot:tck"}}')
key=$(echo "$made" | python3 -c 'import json, sys; print(json.load(sys.stdin)["result"]["key"])')
source=$(cut -d, -f1-3 "$tck/SOURCE")
echo "-- the A2A TCK, $source, against $host on every binding the card offers"
levels="$out/levels"
mkdir "$levels"
(
  cd "$tck"
  # The tests of each RFC 2119 level, as the TCK marks them.
  for level in must should may; do
    .venv/bin/python -m pytest tests/compatibility --sut-host="$host" -p no:cacheprovider --collect-only -q -m "$level" \
      | grep '::' > "$levels/$level" || true
  done
  # The key rides on the TCK's own HTTP clients through a pytest plugin (it has no option
  # for credentials); the run's pass/fail is decided below, not by pytest's exit code.
  BATON_TCK_KEY="$key" BATON_TCK_HOST="$host" PYTHONPATH="$OLDPWD/tests/conformance" \
    .venv/bin/python -m pytest tests/compatibility --sut-host="$host" -p baton_tck_auth -p no:cacheprovider \
    -q --tb=line -rN --junitxml="$out/tck.xml" --compatibility-report="$out/compatibility" > "$out/tck.log" 2>&1 || true
)
tail -1 "$out/tck.log"

echo "-- the MCP conformance suite against $host/w/tck/mcp, on both revisions it has requirements for"
node tests/conformance/mcp.mjs "${BATON_MCP_CONFORMANCE:?run ensure_mcp_conformance from scripts/setup.sh first}" \
  "$host/w/tck/mcp" conformance-admin "$out/mcp.json"

echo "-- the MCP Inspector's CLI lists the tools of a bound thread and calls two"
suite="$BATON_MCP_CONFORMANCE"
inspect() {
  HOME="$out" "$suite/node_modules/.bin/node" "$suite/node_modules/.bin/mcp-inspector" --cli \
    "$host/w/tck/mcp?as=chat_inspector" --transport http --header "Authorization: Bearer conformance-admin" "$@"
}
rpc '{"jsonrpc": "2.0", "id": 4, "method": "host", "params": {"input": "register_agent", "args": {"bot_id": "lead"}}}' > /dev/null
rpc '{"jsonrpc": "2.0", "id": 5, "method": "host", "params": {"input": "open_thread",
  "args": {"thread_id": "chat_inspector", "bot_id": "lead"}}}' > /dev/null
inspect --method tools/list > "$out/inspector-list.json"
inspect --method tools/call --tool-name handoff --tool-arg "task=Checked by the Inspector" --tool-arg target_bot=echo \
  > "$out/inspector-call.json"
handoff=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["structuredContent"]["handoff_id"])' "$out/inspector-call.json")
inspect --method tools/call --tool-name handoff_status --tool-arg "handoff_id=$handoff" > "$out/inspector-status.json"

python3 tests/conformance/report.py --tck "$tck" --junit "$out/tck.xml" --levels "$levels" \
  --reasons tests/conformance/reasons.json --mcp "$out/mcp.json" --inspector "$out" --out docs/CONFORMANCE.md
