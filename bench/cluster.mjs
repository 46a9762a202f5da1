// Bench for `baton serve` on Postgres (issue "Postgres across nodes"), one run, loopback only:
// one workspace's command throughput on one node and on three nodes sharing one PostgreSQL
// (the tests' throwaway server: initdb in a temporary directory), with the same number of
// clients (on three nodes they are spread evenly, so two in three commands are forwarded to
// the writer), beside the same load on SQLite; three workspaces on one node and on three
// (each node writing one); then the failover time: the writer killed with
// SIGKILL under a light load, from the kill to the answer of the first command sent after it,
// five times. Usage: node bench/cluster.mjs BATON_BIN SECONDS. Prints BENCH lines.
import * as fs from "node:fs";
import * as os from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "../tests/server/postgres.mjs";
import { killAll, startServer } from "./spawn.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.argv[2] ?? join(here, "..", "target", "release", "baton");
const seconds = Number(process.argv[3] ?? 4);
const CLIENTS = 16;
const LEASE_MS = 1000;
const ADMIN = "bench-admin";
const tmp = fs.mkdtempSync(join(os.tmpdir(), "baton-cluster-bench-"));

function start(db, extra = []) {
  const args = ["serve", "--db", db, "--addr", "127.0.0.1:0", "--rate-limit", "1000000", ...extra];
  return startServer("baton serve", bin, args, { BATON_ADMIN_KEY: ADMIN, RUST_LOG: "error" }, { stderr: "inherit" });
}

function kill(s, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (s.p.exitCode !== null || s.p.signalCode !== null) return resolve();
    s.p.once("exit", resolve);
    s.p.kill(signal);
  });
}

let id = 0;
async function call(s, ws, method, params, key = ADMIN) {
  const r = await fetch(`${s.url}/w/${ws}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
  });
  const b = await r.json();
  if (b.result === undefined) throw new Error(`${method}: ${JSON.stringify(b)}`);
  return b.result;
}

async function setup(s, ws) {
  await call(s, ws, "create_workspace");
  await call(s, ws, "host", { input: "register_agent", args: { bot_id: "lead" } });
  await call(s, ws, "host", { input: "register_agent", args: { bot_id: "adam" } });
  await call(s, ws, "host", { input: "open_thread", args: { thread_id: "chat_main", bot_id: "lead" } });
}

const handoff = (task, key) => ({
  tool: "handoff",
  args: { task, target_bot: "adam" },
  as: { thread: "chat_main", bot: "lead" },
  ...(key ? { idempotency_key: key } : {}),
});

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** CLIENTS clients, client c on nodes[c % nodes.length] and workspace ws(c), for `seconds`:
 * commands/s, median ms. */
async function load(nodes, ws, key = ADMIN) {
  const name = typeof ws === "function" ? ws : () => ws;
  const until = performance.now() + seconds * 1000;
  const lat = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        const t = performance.now();
        await call(nodes[c % nodes.length], name(c), "call", handoff(`c${c}-${i}`), key);
        lat.push(performance.now() - t);
      }
    }),
  );
  return { perS: Math.round(lat.length / seconds), ms: median(lat) };
}

try {
  const sqlite = await start(join(tmp, "bench.db"));
  await setup(sqlite, "b");
  const lite = await load([sqlite], "b");
  await kill(sqlite);
  console.log(`BENCH cluster_throughput db=sqlite nodes=1 clients=${CLIENTS} commands_per_s=${lite.perS} median_ms=${lite.ms.toFixed(2)}`);

  const pg = await startPostgres();
  try {
    const nodes = [];
    for (let i = 0; i < 3; i++) nodes.push(await start(pg.url, ["--lease-ms", String(LEASE_MS)]));
    await setup(nodes[0], "one");
    const one = await load([nodes[0]], "one");
    console.log(`BENCH cluster_throughput db=postgres nodes=1 clients=${CLIENTS} commands_per_s=${one.perS} median_ms=${one.ms.toFixed(2)}`);
    // The same with a workspace's host key, which every request reads from the database (a
    // revocation counts at once on every node); the admin key above is compared in memory.
    const hostKey = (await call(nodes[0], "one", "create_key", { principal: "host" })).key;
    const keyed = await load([nodes[0]], "one", hostKey);
    console.log(`BENCH cluster_throughput db=postgres nodes=1 key=host clients=${CLIENTS} commands_per_s=${keyed.perS} median_ms=${keyed.ms.toFixed(2)} vs_admin_key=${(keyed.perS / one.perS).toFixed(2)}x`);
    await setup(nodes[0], "three");
    const three = await load(nodes, "three");
    console.log(`BENCH cluster_throughput db=postgres nodes=3 clients=${CLIENTS} commands_per_s=${three.perS} median_ms=${three.ms.toFixed(2)} vs_one_node=${(three.perS / one.perS).toFixed(2)}x`);
    // Three workspaces: on one node, then each written by its own node (a workspace's writer
    // is the node that created it, or took it over), each client sending to its writer.
    for (let k = 0; k < 3; k++) await setup(nodes[0], `m1_${k}`);
    const m1 = await load([nodes[0]], (c) => `m1_${c % 3}`);
    for (let k = 0; k < 3; k++) await setup(nodes[k], `m3_${k}`);
    const m3 = await load(nodes, (c) => `m3_${c % 3}`);
    console.log(`BENCH cluster_throughput db=postgres workspaces=3 nodes=1 clients=${CLIENTS} commands_per_s=${m1.perS} median_ms=${m1.ms.toFixed(2)}`);
    console.log(`BENCH cluster_throughput db=postgres workspaces=3 nodes=3 clients=${CLIENTS} commands_per_s=${m3.perS} median_ms=${m3.ms.toFixed(2)} vs_one_node=${(m3.perS / m1.perS).toFixed(2)}x`);
    for (const s of nodes) await kill(s);

    // Failover, five times: a fresh workspace each time, its writer killed under load.
    const times = [];
    let live = [];
    for (let i = 0; i < 3; i++) live.push(await start(pg.url, ["--lease-ms", String(LEASE_MS)]));
    for (let round = 0; round < 5; round++) {
      const ws = `f${round}`;
      await setup(live[0], ws);
      const w = await call(live[1], ws, "writer");
      const writer = live.find((s) => s.url === w.url);
      const others = live.filter((s) => s !== writer);
      let killedAt = 0, answeredAt = 0, stop = false;
      const clients = Array.from({ length: 4 }, async (_, c) => {
        for (let i = 0; !stop; i++) {
          const key = `r${round}-${c}-${i}`;
          const sentAfterKill = killedAt > 0;
          for (let attempt = 0; ; attempt++) {
            try {
              await call(others[(c + attempt) % 2], ws, "call", handoff(key, key));
              break;
            } catch {
              await new Promise((r) => setTimeout(r, 20));
            }
          }
          if (sentAfterKill && !answeredAt) answeredAt = performance.now();
        }
      });
      await new Promise((r) => setTimeout(r, 300));
      killedAt = performance.now();
      await kill(writer, "SIGKILL");
      while (!answeredAt) await new Promise((r) => setTimeout(r, 5));
      stop = true;
      await Promise.all(clients);
      times.push(answeredAt - killedAt);
      live = [...others, await start(pg.url, ["--lease-ms", String(LEASE_MS)])];
    }
    console.log(`BENCH cluster_failover lease_ms=${LEASE_MS} rounds=5 median_ms=${Math.round(median(times))} max_ms=${Math.round(Math.max(...times))} all_ms=${times.map(Math.round).join(",")}`);
    for (const s of live) await kill(s);
  } finally {
    await pg.stop();
  }
} finally {
  killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
}
