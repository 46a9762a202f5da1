// Bench script (issue "Engine v2, part 2"): the npm package in Node over its default compact
// store — the same delegation cycle as `cargo bench -p baton-core --bench storage` (six
// commands through the JSON API) at 10k and 100k retained handoffs, the engine's memory per
// retained handoff (the engine heap in use, linear memory growth, process RSS growth), and opening a
// 100k-handoff workspace from its export (a snapshot). Prints BENCH lines.
//
// In the same run, what a JS host would pick instead: the A2A JS SDK (`@a2a-js/sdk` 1.3.0, from
// bench/package.json) in the same process — its DefaultRequestHandler over its InMemoryTaskStore
// with an executor that completes each task at once, one SendMessage + one GetTask per cycle,
// at the same numbers of retained tasks. (Baton's cycle does more: six commands, a child thread,
// its activity, a mailbox report and its delivery.)
// Run: node bench/node-storage.mjs [sizes, default 10000,100000]   (after pkg/node is built)
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { Baton, memoryBytes, heapInUse } = await import(join(root, "pkg", "node.js"));
const sizes = (process.argv[2] ?? "10000,100000").split(",").map(Number);
const T0 = 1_767_600_000_000;
const lead = { thread: "chat_main", bot: "lead" };

function fresh(keepHot) {
  const b = new Baton(5);
  if (keepHot !== undefined) b.keepHotRecords(keepHot);
  b.host("register_agent", { bot_id: "lead" }, T0);
  b.host("register_agent", { bot_id: "adam", tools: ["project_manager_tools", "web_search"] }, T0);
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, T0);
  return { b, now: T0 };
}

function cycle(w) {
  w.now += 30_000;
  const t = w.now;
  const b = w.b;
  const r = b.call("handoff", { task: "Review the model", target_bot: "adam" }, lead, t);
  b.host("tool_call", { thread_id: r.thread_id, tool: "web_search" }, t);
  b.host("response", { thread_id: r.thread_id, text: "🧰 Using tool: web_search\nTwo risks remain." }, t);
  b.call("mailbox_action", { action: "SEND_MESSAGE", to_thread_id: "chat_main", to_bot_id: "lead", body: "Done: two risks remain." }, { thread: r.thread_id, bot: "adam" }, t);
  b.tick(t);
  b.host("turn_ended", { thread_id: "chat_main" }, t);
  b.takeEffects();
}

function medianNs(samples, batch, f) {
  const per = [];
  for (let s = 0; s < samples; s++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) f();
    per.push(Number(process.hrtime.bigint() - t) / batch);
  }
  per.sort((a, b) => a - b);
  return per[per.length >> 1];
}

// The A2A JS SDK, in process.
let a2a = null;
try {
  const sdk = await import(join(root, "bench", "node_modules", "@a2a-js", "sdk", "dist", "server", "index.js"));
  const { card, executor, text } = await import(join(root, "bench", "a2a-agent.mjs"));
  a2a = () => {
    const handler = new sdk.DefaultRequestHandler(card, new sdk.InMemoryTaskStore(), executor);
    const ctx = new sdk.ServerCallContext({ requestedVersion: "1.0" });
    let i = 0;
    return async () => {
      i++;
      const r = await handler.sendMessage({ tenant: "", message: { messageId: `u-${i}`, contextId: "", taskId: "", role: 1, parts: [text("Review the model")], metadata: undefined, extensions: [], referenceTaskIds: [] }, configuration: undefined, metadata: undefined }, ctx);
      const t = await handler.getTask({ tenant: "", id: r.id, historyLength: undefined }, ctx);
      if (t.status.state !== 3) throw new Error("A2A task not completed");
    };
  };
} catch (e) {
  console.log(`(A2A JS SDK not installed under bench/: ${e.message.split("\n")[0]}; run npm ci in bench/)`);
}

async function medianNsAsync(samples, batch, f) {
  const per = [];
  for (let s = 0; s < samples; s++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await f();
    per.push(Number(process.hrtime.bigint() - t) / batch);
  }
  per.sort((a, b) => a - b);
  return per[per.length >> 1];
}

// Warm-up: the JIT compiles the glue and both hosts' code before anything is timed. Run on
// throwaway engines after each fill, so the memory a fill takes is measured on its own (linear
// memory never shrinks: a warm-up first would leave free space the fill reuses).
async function warmUp() {
  const w = fresh();
  for (let i = 0; i < 3000; i++) cycle(w);
  w.b.inner.free();
  if (a2a) {
    const c = a2a();
    for (let i = 0; i < 3000; i++) await c();
  }
}

// One row: fill a workspace to `n` handoffs and time the cycle on it. `keepHot` undefined: the
// default (records outside the recent window held sealed); Infinity: none sealed.
async function row(n, keepHot) {
  globalThis.gc?.();
  const mem0 = memoryBytes();
  const heap0 = heapInUse();
  const rss0 = process.memoryUsage().rss;
  const w = fresh(keepHot);
  for (let i = 0; i < n; i++) cycle(w);
  const wasmPer = (memoryBytes() - mem0) / n;
  const heapPer = (heapInUse() - heap0) / n;
  const rssPer = (process.memoryUsage().rss - rss0) / n;
  await warmUp();
  const batch = Math.max(5, Math.floor(n / 2100));
  const ns = medianNs(21, batch, () => cycle(w));
  console.log(`BENCH node_cycle retained=${n} sealed=${keepHot === undefined ? "yes" : "no"} cycle_us=${(ns / 1e3).toFixed(2)} cycles_per_s=${Math.round(1e9 / ns)} heap_bytes_per_handoff=${Math.round(heapPer)} wasm_memory_growth_per_handoff=${Math.round(wasmPer)} rss_bytes_per_handoff=${Math.round(rssPer)}`);
  return { w, ns };
}

// `--row n,keep`: one row in this process, its cycle time on the last output line.
const rowArg = process.argv.indexOf("--row");
if (rowArg > 0) {
  const [n, keep] = process.argv[rowArg + 1].split(",");
  const { ns } = await row(Number(n), keep === "default" ? undefined : Infinity);
  console.log(`ROW_NS ${ns}`);
  process.exit(0);
}

// Each row in a fresh process: a row run after another would reuse the linear memory that one
// freed (it never shrinks), which hides growth from its figures and page faults from its time.
// Sealed (the default) at each size, then with none sealed (`keepHotRecords(Infinity)`), to
// show what sealing costs.
const { execFileSync } = await import("node:child_process");
const baton = new Map();
for (const keep of ["default", "none"]) {
  for (const n of sizes) {
    const out = execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--row", `${n},${keep}`], { encoding: "utf8" });
    for (const line of out.split("\n")) {
      if (line.startsWith("ROW_NS ")) {
        if (keep === "default") baton.set(n, Number(line.slice(7)));
      } else if (line) console.log(line);
    }
  }
}
if (a2a) {
  for (const n of sizes) {
    const cycleA2a = a2a();
    for (let i = 0; i < n; i++) await cycleA2a();
    await warmUp();
    const ns = await medianNsAsync(21, Math.max(5, Math.floor(n / 2100)), cycleA2a);
    console.log(`BENCH a2a_js_sdk_cycle retained=${n} cycle_us=${(ns / 1e3).toFixed(2)} cycles_per_s=${Math.round(1e9 / ns)} baton_speedup=${(ns / baton.get(n)).toFixed(2)}x`);
  }
}
// Opening: a workspace of the largest size's export (a snapshot), read into a new engine.
const last = fresh();
for (let i = 0; i < sizes[sizes.length - 1]; i++) cycle(last);
const text = last.b.exportLog();
last.b.inner.free();
const opens = [];
for (let i = 0; i < 3; i++) {
  const t = process.hrtime.bigint();
  const again = Baton.fromLog(text, 5);
  opens.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (i === 0 && again.exportLog().length !== text.length) throw new Error("the export does not reopen to the same workspace");
  again.inner.free();
}
opens.sort((a, b) => a - b);
console.log(`BENCH node_open handoffs=${sizes[sizes.length - 1]} snapshot_ms=${opens[1].toFixed(0)} snapshot_mb=${(text.length / 1e6).toFixed(1)}`);
