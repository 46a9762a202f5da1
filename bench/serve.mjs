// Bench script (issue "baton serve"), loopback only, bounded in time: Baton's delegation cycle
// over HTTP against the A2A JS SDK's server in the same run, at 1 and 16 concurrent clients,
// and the event stream's fan-out to 100 subscribers. Both servers run as their own process;
// the load comes from this one. Prints BENCH lines.
//
// Baton's cycle (six JSON-RPC requests, as an agent host sends them): open_thread (a new parent,
// so the M8 send limit per thread pair is never the bottleneck), handoff from it, the child's
// tool_call and response, its mailbox report, the parent's turn end. `--sync full`: each is
// answered once on disk. The A2A cycle: SendMessage (the executor completes the task at once)
// and GetTask, over its express JSON-RPC handler and in-memory task store (nothing on disk).
// Run: node bench/serve.mjs path/to/baton [seconds per row, default 4]
import * as fs from "node:fs";
import * as os from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { closedLoop } from "./loop.mjs";
import { startServer } from "./spawn.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.argv[2];
const seconds = Number(process.argv[3] ?? 4);
const ADMIN = "bench-admin";

// Every process the bench starts goes when it does, however it ends (a failed start included):
// none is left holding the output a pipeline reads (bench/spawn.mjs).
const startProcess = (cmd, args, env) => startServer(cmd, cmd, args, env, { stderr: "inherit" });

const dir = fs.mkdtempSync(join(os.tmpdir(), "baton-bench-serve-"));
const serve = (sync) => startProcess(bin, ["serve", "--db", join(dir, `${sync}.db`), "--addr", "127.0.0.1:0", "--sync", sync, "--rate-limit", "1000000", "--fixture-agent", "echo"], { BATON_ADMIN_KEY: ADMIN, RUST_LOG: "warn" });
let baton = await serve("full");
const a2a = await startProcess(process.execPath, [join(here, "a2a-server.mjs")], {});

let rid = 0;
async function rpc(method, params) {
  const r = await fetch(`${baton.url}/w/bench/rpc`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++rid, method, params }) });
  const b = await r.json();
  if (b.error) throw new Error(`${method}: ${JSON.stringify(b.error)}`);
  return b.result;
}
async function setup() {
  await rpc("create_workspace");
  await rpc("host", { input: "register_agent", args: { bot_id: "lead" } });
  await rpc("host", { input: "register_agent", args: { bot_id: "adam", tools: ["project_manager_tools", "web_search"] } });
  await rpc("host", { input: "register_agent", args: { bot_id: "echo" } });
}
await setup();

let parents = 0;
async function batonCycle() {
  const p = `chat_p${++parents}`;
  await rpc("host", { input: "open_thread", args: { thread_id: p, bot_id: "lead" } });
  const h = await rpc("call", { tool: "handoff", args: { task: "Review the model", target_bot: "adam" }, as: { thread: p, bot: "lead" } });
  await rpc("host", { input: "tool_call", args: { thread_id: h.thread_id, tool: "web_search" } });
  await rpc("host", { input: "response", args: { thread_id: h.thread_id, text: "Two risks remain." } });
  await rpc("call", { tool: "mailbox_action", args: { action: "SEND_MESSAGE", to_thread_id: p, to_bot_id: "lead", body: "Done: two risks remain." }, as: { thread: h.thread_id, bot: "adam" } });
  await rpc("host", { input: "turn_ended", args: { thread_id: p } });
}

let aid = 0;
/** One A2A cycle against `url`: SendMessage (the agent completes the task at once) + GetTask. */
async function a2aCycleAt(url, headers, text) {
  const post = async (body) => {
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers }, body: JSON.stringify(body) });
    const b = await r.json();
    if (b.error) throw new Error(JSON.stringify(b.error));
    return b.result;
  };
  const sent = await post({ jsonrpc: "2.0", id: ++aid, method: "SendMessage", params: { message: { messageId: `u-${aid}`, role: "ROLE_USER", parts: [{ text }] } } });
  const t = await post({ jsonrpc: "2.0", id: ++aid, method: "GetTask", params: { id: sent.task.id } });
  if (t.status.state !== "TASK_STATE_COMPLETED") throw new Error(`the task at ${url} did not complete`);
}
// The A2A JS SDK's own server (tasks in memory).
const a2aCycle = () => a2aCycleAt(a2a.url, {}, "Review the model");
// Baton's A2A binding: SendMessage to a fixture agent (it completes the task in the same
// command, like the SDK server's executor) + GetTask; each answered after the writer's commit.
const batonA2aCycle = () => a2aCycleAt(`${baton.url}/w/bench/a2a/echo`, { authorization: `Bearer ${ADMIN}` }, "complete: two risks remain");

/** Cycles per second over `seconds`, with `clients` loops at once (after a 1 s warm-up). */
const rate = async (cycle, clients) => (await closedLoop(cycle, clients, seconds)).rate;

// `--sync full` (each request answered once on disk), then `--sync normal` (once in the
// write-ahead log: closer to the A2A server, which keeps its tasks in memory).
const a2aRate = new Map();
for (const sync of ["full", "normal"]) {
  if (sync === "normal") {
    baton.p.kill("SIGTERM");
    baton = await serve("normal");
    await setup();
  }
  for (const clients of [1, 16]) {
    const b = await rate(batonCycle, clients);
    if (!a2aRate.has(clients)) a2aRate.set(clients, await rate(a2aCycle, clients));
    const a = a2aRate.get(clients);
    console.log(`BENCH serve_cycle sync=${sync} clients=${clients} baton_cycles_per_s=${b.toFixed(0)} a2a_js_server_cycles_per_s=${a.toFixed(0)} ratio=${(b / a).toFixed(2)}x baton_requests_per_s=${(6 * b).toFixed(0)} a2a_requests_per_s=${(2 * a).toFixed(0)}`);
    const ba = await rate(batonA2aCycle, clients);
    console.log(`BENCH serve_a2a_cycle sync=${sync} clients=${clients} baton_a2a_cycles_per_s=${ba.toFixed(0)} a2a_js_server_cycles_per_s=${a.toFixed(0)} ratio=${(ba / a).toFixed(2)}x`);
  }
}

// Fan-out: 100 event-stream subscribers; the time from sending a command until all 100 have
// its record, over 50 commands one at a time (nothing else writes, so the command's record is
// the one after the last record every subscriber has).
const seen = new Array(100).fill(0);
let wake = null;
const check = () => wake?.();
let last = 0;
for (let i = 0; i < 100; i++) {
  const r = await fetch(`${baton.url}/w/bench/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let k;
      while ((k = buf.indexOf("\n\n")) >= 0) {
        const m = buf.slice(0, k).match(/^id: (\d+)$/m);
        buf = buf.slice(k + 2);
        if (m) seen[i] = Number(m[1]);
      }
      check();
    }
  })();
}
const allAt = (seq) => new Promise((resolve) => {
  wake = () => { if (Math.min(...seen) >= seq) { wake = null; resolve(); } };
  wake();
});
last = (await rpc("export")).split("\n")[0].match(/"seq":(\d+)/)?.[1];
last = Number(last ?? 0);
await allAt(last);
const lat = [];
for (let k = 0; k < 50; k++) {
  const t = process.hrtime.bigint();
  await rpc("host", { input: "register_agent", args: { bot_id: `fan_${k}` } });
  last += 1;
  await allAt(last);
  lat.push(Number(process.hrtime.bigint() - t) / 1e6);
}
lat.sort((a, b) => a - b);
console.log(`BENCH serve_fanout subscribers=100 commands=50 to_all_ms_median=${lat[25].toFixed(2)} to_all_ms_max=${lat[49].toFixed(2)}`);
baton.p.kill("SIGTERM");
a2a.p.kill("SIGTERM");
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
