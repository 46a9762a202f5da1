// The pause a snapshot puts into `baton serve`'s answers (issue 26 item 1): builds of the
// server side by side (say, before and after a change), each on a fresh SQLite file with
// `--sync full`, loopback only. Each workspace is loaded with N handoffs (completed, or left
// open with BATON_BENCH_STALL_PRELOAD=open), with `--snapshot-every` above what that state
// holds (so the first snapshot comes due at exactly that record), padded with records that
// add nothing to the state (a child's tool calls) to 1,000 records before it, then driven by
// an open loop of batched delegation cycles (the peer bench's cycle, without the read) at a
// fixed rate; half a second in, one burst of 2,000 such records brings the snapshot due, so
// it falls in the loop's first second (`snapshot_at`: the record the snapshot stored is
// after; 0 if none was). Latency counts from each cycle's scheduled start, so the cycles
// queued behind a pause count it (at most 64 in flight). Rounds alternate the builds.
// With BATON_BENCH_STALL_CAUSE=export, no snapshot comes due: half a second in, another
// process asks for the workspace's export instead (the pause an export puts into the writes behind
// it). With BATON_BENCH_STALL_CAUSE=none, nothing is brought due: the steady tail at that rate,
// with snapshots at the server's own interval (or BATON_BENCH_SNAPSHOT_EVERY). Prints BENCH
// lines.
//
// Run: node bench/snapshot-stall.mjs N SECONDS RATE ROUNDS LABEL=BIN [LABEL=BIN ...]
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import { join } from "node:path";
import { startServer } from "./spawn.mjs";

const [n, seconds, rate, rounds] = process.argv.slice(2, 6).map(Number);
const builds = process.argv.slice(6).map((a) => a.split("="));
// The loaded handoffs: "done" (each child reported, the parent's turn ended, as in the open
// loop's cycles) or "open" (each left running: many delegations in flight).
const preload = process.env.BATON_BENCH_STALL_PRELOAD ?? "done";
// What pauses the writes: a snapshot coming due, or an export.
const cause = process.env.BATON_BENCH_STALL_CAUSE ?? "snapshot";
// Records between snapshots: more than the loaded state holds, so the snapshot comes due at
// exactly this record (the engine waits for the larger of the two); for an export, none; with
// no cause, the server's own interval unless one is given.
const every =
  cause === "export" ? 1e12 : cause === "none" ? process.env.BATON_BENCH_SNAPSHOT_EVERY : 10 * n + 10_000;
const ADMIN = "bench-admin";
function serve(bin, db) {
  const args = ["serve", "--db", db, "--addr", "127.0.0.1:0", "--sync", "full", "--rate-limit", "1000000"];
  if (every !== undefined) args.push("--snapshot-every", String(every));
  return startServer(bin, bin, args, { BATON_ADMIN_KEY: ADMIN, RUST_LOG: "warn" });
}

let rid = 0;
const req = (method, params) => ({ jsonrpc: "2.0", id: ++rid, method, params });
async function rpc(url, body) {
  const r = await fetch(`${url}/w/bench/rpc`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });
  const b = await r.json();
  for (const e of Array.isArray(b) ? b : [b]) if (e.error) throw new Error(JSON.stringify(e.error));
  return Array.isArray(b) ? b.map((e) => e.result) : b.result;
}

async function load(url) {
  await rpc(url, req("create_workspace"));
  for (const [bot_id, tools] of [["lead", undefined], ["adam", ["project_manager_tools", "web_search"]]]) {
    await rpc(url, req("host", { input: "register_agent", args: tools ? { bot_id, tools } : { bot_id } }));
  }
  let child;
  for (let i = 0; i < n; i += 250) {
    const batch = [];
    const parents = [];
    for (let j = i; j < Math.min(n, i + 250); j++) {
      parents.push(`pre${j}`);
      batch.push(req("host", { input: "open_thread", args: { thread_id: `pre${j}`, bot_id: "lead" } }));
      batch.push(req("call", { tool: "handoff", args: { task: `Review part ${j}`, target_bot: "adam" }, as: { thread: `pre${j}`, bot: "lead" } }));
    }
    const made = (await rpc(url, batch)).filter((_, k) => k % 2 === 1);
    child = made.at(-1).thread_id;
    if (preload === "done") await rpc(url, made.flatMap((h, k) => steps(parents[k], h)));
  }
  // The export's header: the record the state is after, and how many lines it holds.
  const header = JSON.parse((await rpc(url, req("export"))).split("\n", 1)[0]);
  let pad = cause === "snapshot" ? every - 1000 - header.seq : 0;
  while (pad > 0) {
    const k = Math.min(pad, 1000);
    await rpc(url, Array.from({ length: k }, () => req("host", { input: "tool_call", args: { thread_id: child, tool: "web_search" } })));
    pad -= k;
  }
  padThread = child;
  return header.changes;
}

/** The child's activity and report, and the parent's turn end. */
const steps = (p, h) => [
  req("host", { input: "tool_call", args: { thread_id: h.thread_id, tool: "web_search" } }),
  req("host", { input: "response", args: { thread_id: h.thread_id, text: "Two risks remain." } }),
  req("call", { tool: "mailbox_action", args: { action: "SEND_MESSAGE", to_thread_id: p, to_bot_id: "lead", body: "Done." }, as: { thread: h.thread_id, bot: "adam" } }),
  req("host", { input: "turn_ended", args: { thread_id: p } }),
];

let parents = 0;
let padThread;
async function cycle(url) {
  const p = `chat_p${++parents}`;
  const [, h] = await rpc(url, [
    req("host", { input: "open_thread", args: { thread_id: p, bot_id: "lead" } }),
    req("call", { tool: "handoff", args: { task: "Review the model", target_bot: "adam" }, as: { thread: p, bot: "lead" } }),
  ]);
  await rpc(url, steps(p, h));
}

/** An export asked for by a process of its own, which reads the answer and drops it (so the
 * open loop's client does not pay for receiving and parsing it). */
function exportElsewhere(url) {
  const script = `const r = await fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer ${ADMIN}" }, body: '{"jsonrpc":"2.0","id":1,"method":"export"}' }); const b = Buffer.from(await r.arrayBuffer()); if (!r.ok || b.length < 100) process.exit(1);`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--input-type=module", "-e", script, `${url}/w/bench/rpc`], { stdio: "ignore" });
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the export's client exited with ${code}`))));
  });
}

async function openLoop(url) {
  const gap = 1000 / rate;
  const total = Math.round(rate * seconds);
  const lat = [];
  const starts = [];
  const t0 = performance.now();
  const runs = [];
  let inFlight = 0;
  const slots = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * gap;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // Half a second in, a burst of records that add nothing to the state brings the snapshot
    // due (the cycles add more to the state than to the log, so they alone never would).
    if (i === Math.round(rate / 2) && cause === "export") runs.push(exportElsewhere(url));
    else if (i === Math.round(rate / 2) && cause === "snapshot") runs.push(rpc(url, Array.from({ length: 2000 }, () => req("host", { input: "tool_call", args: { thread_id: padThread, tool: "web_search" } }))));
    while (inFlight >= 64) await new Promise((r) => slots.push(r));
    inFlight++;
    runs.push(cycle(url).then(() => {
      lat.push(performance.now() - due);
      starts.push([(due - t0) / 1000, lat.at(-1)]);
      inFlight--;
      slots.shift()?.();
    }));
  }
  await Promise.all(runs);
  lat.sort((a, b) => a - b);
  const at = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
  // The slowest 1 %, by when they were due: whether the tail is spread out or comes in bursts.
  const slow = starts.filter(([, ms]) => ms >= at(0.99)).sort((a, b) => a[0] - b[0]);
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: lat.at(-1), slow };
}

const dir = fs.mkdtempSync(join(os.tmpdir(), "baton-bench-stall-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 ? builds : [...builds].reverse();
  for (const [label, bin] of order) {
    const db = join(dir, `${label}-${round}.db`);
    const s = await serve(bin, db);
    const changes = await load(s.url);
    const r = await openLoop(s.url);
    const snap = JSON.parse((await rpc(s.url, req("export"))).split("\n", 1)[0]);
    s.p.removeAllListeners("exit");
    s.p.kill("SIGTERM");
    // The record the stored snapshot is after (0: none was stored).
    const py = "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute('SELECT coalesce(max(seq),0) FROM snapshots').fetchone(); print(r[0])";
    const stored = execFileSync("python3", ["-c", py, db], { encoding: "utf8" }).trim();
    const f = (x) => x.toFixed(1);
    console.log(`BENCH snapshot_stall build=${label} round=${round} cause=${cause} handoffs=${n} preload=${preload} state_changes=${changes} records=${snap.seq} snapshot_at=${stored} rate=${rate} p50_ms=${f(r.p50)} p99_ms=${f(r.p99)} p999_ms=${f(r.p999)} max_ms=${f(r.max)}`);
    if (process.env.BATON_BENCH_STALL_SLOW) console.log(`BENCH snapshot_stall_slow build=${label} round=${round} due_s:ms=${r.slow.map(([s, ms]) => `${s.toFixed(2)}:${ms.toFixed(0)}`).join(",")}`);
  }
}
process.exit(0);
