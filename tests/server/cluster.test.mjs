// Three `baton serve` nodes on one real PostgreSQL (Debian's, started by this file: initdb in a
// temporary directory, loopback, stopped at the end): commands on any node reach the node that
// writes the workspace, every node serves the log and the streams, a stream resumes exactly on
// another node; the writer killed with SIGKILL under load from concurrent clients hands the
// workspace to another node within a bound, every acknowledged command is there once, and a
// retry with the same idempotency_key gets the first answer; a writer paused past its lease
// is fenced when it wakes; a key revoked through one node is refused at once by every node;
// A2A task generations counted from the shared log by whichever node writes the workspace.
// Loopback only, bounded in count and time.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ADMIN, start, stop, method, ok, lead, setup, readEvents } from "./helpers.mjs";
import { startPostgres } from "./postgres.mjs";

const LEASE_MS = 1000;
let pg;
before(async () => {
  pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
});

async function nodes(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await start(pg.url, ["--lease-ms", String(LEASE_MS)]));
  return out;
}

/** The node (of `all`) that writes `ws`, asked of `via`. */
async function writerOf(all, via, ws) {
  const w = await ok(via, ws, ADMIN, "writer");
  assert.equal(w.current, true, JSON.stringify(w));
  const node = all.find((s) => s.url === w.url);
  assert.ok(node, `the writer ${w.url} is one of the nodes`);
  return node;
}

/** Every record of a workspace, read through `s` in pages. */
async function wholeLog(s, ws) {
  const all = [];
  let after = 0;
  for (;;) {
    const page = await ok(s, ws, ADMIN, "log", { after, limit: 500 });
    all.push(...page.records);
    if (page.records.length === 0) return all;
    after = page.next_after;
  }
}

function handoffArgs(task) {
  return { tool: "handoff", args: { task, target_bot: "adam" }, as: lead };
}

test("three nodes on one Postgres: commands on any node, the log and streams on every node, exact resume on another node", async () => {
  const all = await nodes(3);
  await setup(all[1], "c1"); // created through node 2, so node 2 writes it
  const writer = await writerOf(all, all[0], "c1");
  assert.equal(writer, all[1]);
  // Three clients, one per node, twenty handoffs each, at once.
  const answers = await Promise.all(
    all.map(async (s, c) => {
      const got = [];
      for (let i = 0; i < 20; i++) got.push((await ok(s, "c1", ADMIN, "call", handoffArgs(`n${c}-${i}`))).handoff_id);
      return got;
    }),
  );
  assert.equal(new Set(answers.flat()).size, 60, "sixty distinct handoffs");
  const logs = await Promise.all(all.map((s) => wholeLog(s, "c1")));
  assert.deepEqual(logs[0], logs[1], "every node reads the same log");
  assert.deepEqual(logs[0], logs[2]);
  assert.deepEqual(logs[0].map((r) => r.seq), logs[0].map((_, i) => i + 1), "sequence numbers 1..N, no gap");
  const tasks = logs[0].filter((r) => r.command === "handoff").map((r) => JSON.stringify(r));
  for (let c = 0; c < 3; c++) for (let i = 0; i < 20; i++) {
    assert.equal(tasks.filter((t) => t.includes(`"n${c}-${i}"`)).length, 1, `n${c}-${i} once`);
  }
  // A stream read on one node resumes on another, exactly after the last event it had.
  const head = (await readEvents(all[0], "c1", ADMIN, { want: 10 })).slice(0, 10);
  assert.deepEqual(head.map((e) => e.id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const tail = await readEvents(all[2], "c1", ADMIN, { lastEventId: 10, want: logs[0].length - 10 });
  assert.deepEqual(tail.map((e) => e.id), logs[0].slice(10).map((r) => r.seq));
  assert.deepEqual(tail.map((e) => JSON.parse(e.data)), logs[0].slice(10));
  // Live: a stream on a node that does not write the workspace gets a command sent to a third.
  const last = logs[0].length;
  const live = readEvents(all[0], "c1", ADMIN, { lastEventId: last, want: 1, ms: 8000 });
  await new Promise((r) => setTimeout(r, 200));
  await ok(all[2], "c1", ADMIN, "call", handoffArgs("live"));
  const [ev] = await live;
  assert.equal(ev.id, last + 1);
  assert.match(ev.data, /"live"/);
  // Keys made on one node work on every node; not-found and not-yours look the same.
  const { key } = await ok(all[2], "c1", ADMIN, "create_key", { principal: "host" });
  assert.ok((await ok(all[0], "c1", key, "log", { after: 0, limit: 1 })).records.length === 1);
  await ok(all[0], "c2", ADMIN, "create_workspace");
  const other = await method(all[1], "c2", key, "log", {});
  const none = await method(all[1], "nope", key, "log", {});
  assert.equal(other.error.code, -32001);
  assert.equal(none.error.code, -32001);
  // More workspaces on one node than its pool has connections (32): writers take a
  // connection per batch, so none waits for another.
  await Promise.all(Array.from({ length: 40 }, (_, i) => setup(all[0], `many${i}`)));
  const made = await Promise.all(Array.from({ length: 40 }, (_, i) => ok(all[1], `many${i}`, ADMIN, "call", handoffArgs(`many ${i}`))));
  assert.equal(new Set(made.map((h) => h.handoff_id)).size, 40);
  for (const s of all) await stop(s);
});

test("kill -9 the writer under load: another node takes over within the bound, every acknowledged command is there once, retries get the first answer", async () => {
  const all = await nodes(3);
  await setup(all[0], "f1");
  const writer = await writerOf(all, all[1], "f1");
  const survivors = all.filter((s) => s !== writer);
  // Six clients send handoffs with idempotency keys, spread over the three nodes (the writer
  // among them: its clients lose their connection at the kill); a failed or
  // refused-for-retry command is sent again with the same key, to the next node, until it is
  // answered. The other nodes forward to the writer, and while the workspace changes hands
  // they wait for the new one.
  const acked = new Map(); // key -> handoff_id of the first answer
  const retried = new Set();
  let killedAt = 0, firstAfterKill = 0, stopLoad = false;
  const send = async (c, key, task) => {
    for (let attempt = 0; ; attempt++) {
      const s = all[(c + attempt) % 3];
      let r;
      try {
        r = await method(s, "f1", ADMIN, "call", { ...handoffArgs(task), idempotency_key: key });
      } catch {
        r = null;
      }
      if (r?.result) return r.result;
      assert.ok(r === null || r.error?.data?.data?.retry === true, `only retryable failures: ${JSON.stringify(r)}`);
      retried.add(key);
      assert.ok(attempt < 200, `${key} answered in the end`);
      await new Promise((res) => setTimeout(res, 25));
    }
  };
  const load = Array.from({ length: 6 }, async (_, c) => {
    for (let i = 0; i < 400 && !stopLoad; i++) {
      const key = `k-${c}-${i}`;
      const sentAfterKill = killedAt > 0;
      const result = await send(c, key, `f${c}-${i}`);
      acked.set(key, result.handoff_id);
      if (sentAfterKill && !firstAfterKill) firstAfterKill = Date.now();
    }
  });
  while (acked.size < 60) await new Promise((r) => setTimeout(r, 5));
  killedAt = Date.now();
  assert.equal(await stop(writer, "SIGKILL"), "SIGKILL");
  while (!firstAfterKill) await new Promise((r) => setTimeout(r, 5));
  const acksAtKill = acked.size;
  while (acked.size < acksAtKill + 60) await new Promise((r) => setTimeout(r, 5));
  stopLoad = true;
  await Promise.all(load);
  const failover = firstAfterKill - killedAt;
  console.log(`failover: the first command sent after the kill was answered ${failover} ms after it (lease ${LEASE_MS} ms)`);
  assert.ok(failover < 3 * LEASE_MS + 2000, `the workspace moved within the bound (${failover} ms)`);
  const next = await writerOf(all, survivors[0], "f1");
  assert.ok(survivors.includes(next), "a surviving node writes the workspace now");
  // Every acknowledged command is in the log exactly once, under the id its first answer gave.
  const log = await wholeLog(survivors[1], "f1");
  assert.deepEqual(log.map((r) => r.seq), log.map((_, i) => i + 1), "sequence numbers 1..N, no gap");
  const handoffs = new Map();
  for (const r of log.filter((r) => r.command === "handoff")) {
    const h = r.changes.find((c) => c.kind === "handoff");
    assert.ok(!handoffs.has(h.spec.task), `${h.spec.task} only once`);
    handoffs.set(h.spec.task, h.handoff_id);
  }
  for (const [key, id] of acked) {
    const task = key.replace(/^k-(\d+)-(\d+)$/, "f$1-$2");
    assert.equal(handoffs.get(task), id, `${task}: acknowledged as ${id}`);
  }
  // A retry after the fact gets the first answer again, from any node, and changes nothing.
  const [someKey, someId] = [...acked][0];
  const again = await ok(survivors[1], "f1", ADMIN, "call", {
    ...handoffArgs(someKey.replace(/^k-(\d+)-(\d+)$/, "f$1-$2")),
    idempotency_key: someKey,
  });
  assert.equal(again.handoff_id, someId);
  const reused = await method(survivors[0], "f1", ADMIN, "call", { ...handoffArgs("something else"), idempotency_key: someKey });
  assert.equal(reused.error.data.field, "idempotency_key");
  assert.equal((await wholeLog(survivors[0], "f1")).length, log.length, "the retries added nothing");
  console.log(`${acked.size} acknowledged, ${retried.size} sent more than once`);
  for (const s of survivors) await stop(s);
});

test("a writer paused past its lease is fenced when it wakes: its commit is refused, it steps down, nothing is written twice", async () => {
  const all = await nodes(2);
  await setup(all[0], "p1");
  const [paused, other] = (await writerOf(all, all[1], "p1")) === all[0] ? all : [all[1], all[0]];
  await ok(paused, "p1", ADMIN, "call", handoffArgs("before"));
  paused.p.kill("SIGSTOP");
  try {
    // The other node takes the workspace once the lease runs out, and goes on.
    const moved = await method(other, "p1", ADMIN, "call", handoffArgs("while paused"));
    // Should it not, what the database's sessions were doing says why (a lock held by the
    // paused node, a slow open, …).
    const sessions = () => pg.query("SELECT pid, state, wait_event_type, wait_event, left(query, 80) FROM pg_stat_activity WHERE datname = current_database()").join("\n");
    if (!moved.result?.handoff_id) assert.fail(`${JSON.stringify(moved)}\n${sessions()}`);
    assert.equal((await ok(other, "p1", ADMIN, "writer")).url, other.url);
  } catch (e) {
    // A failure here must not leave a stopped node holding connections for the tests after.
    paused.p.kill("SIGCONT");
    for (const s of all) await stop(s);
    throw e;
  }
  paused.p.kill("SIGCONT");
  // Sent to the woken node: refused for a retry (its commit was fenced) or forwarded to the
  // new writer — never written by the old one.
  const woke = await method(paused, "p1", ADMIN, "call", handoffArgs("after waking"));
  if (woke.error) assert.equal(woke.error.data?.data?.retry, true, JSON.stringify(woke));
  const again = await ok(paused, "p1", ADMIN, "call", handoffArgs("after waking, again"));
  assert.ok(again.handoff_id, "the woken node forwards to the writer");
  const log = await wholeLog(other, "p1");
  assert.deepEqual(log.map((r) => r.seq), log.map((_, i) => i + 1), "sequence numbers 1..N, no gap");
  const tasks = log.filter((r) => r.command === "handoff").map((r) => r.changes.find((c) => c.kind === "handoff").spec.task);
  const expected = ["before", "while paused", ...(woke.error ? [] : ["after waking"]), "after waking, again"];
  assert.deepEqual(tasks, expected);
  for (const s of all) await stop(s);
});

test("snapshots on Postgres: stored in parts beside the writer; the node that takes the workspace over opens from the latest one", async () => {
  const all = [];
  for (let i = 0; i < 2; i++) all.push(await start(pg.url, ["--lease-ms", String(LEASE_MS), "--snapshot-every", "5"]));
  await setup(all[0], "s1");
  const writer = await writerOf(all, all[1], "s1");
  const other = all.find((s) => s !== writer);
  // Long tasks, so that a snapshot takes several parts (256 KiB each at most); then records
  // that add no record to the state (a child's tool calls), so that a snapshot comes due
  // (at least as many records as the state holds since the last one).
  let child;
  for (let i = 0; i < 40; i++) child = (await ok(writer, "s1", ADMIN, "call", handoffArgs(`part ${i} ${"x".repeat(20000)}`))).thread_id;
  const stored = () => pg.query("SELECT s.seq, (SELECT count(*) FROM baton_snapshot_parts p WHERE p.workspace = s.workspace AND p.seq = s.seq) FROM baton_snapshots s WHERE s.workspace = 's1'")
    .map((r) => r.split("|").map(Number))[0] ?? [0, 0];
  for (let i = 0; i < 400 && stored()[0] < 40; i++) {
    await ok(writer, "s1", ADMIN, "host", { input: "tool_call", args: { thread_id: child, tool: "web_search" } });
  }
  const [seq, parts] = stored();
  assert.ok(seq >= 40 && parts > 1, `a snapshot after record ${seq} in ${parts} parts`);
  assert.deepEqual(pg.query("SELECT DISTINCT seq FROM baton_snapshot_parts WHERE workspace = 's1'").map(Number).filter((s) => s < seq), [], "older snapshots' parts are dropped");
  const live = await ok(writer, "s1", ADMIN, "export");
  await stop(writer);
  // The other node takes the workspace: it opens from that snapshot and the records after it.
  assert.equal(await ok(other, "s1", ADMIN, "export"), live);
  assert.equal((await ok(other, "s1", ADMIN, "writer")).url, other.url);
  await stop(other);
});

test("keys on the cluster: a key revoked through one node is refused at once by every node, and streams opened with it end; rotation and listing see one table", async () => {
  const all = await nodes(3);
  await setup(all[0], "k1");
  const made = await ok(all[1], "k1", ADMIN, "create_key", { principal: "bot:adam" });
  // Used on every node first (each has looked it up), and a stream open on the third.
  for (const s of all) assert.equal((await method(s, "k1", made.key, "effects", {})).error, undefined);
  const stream = await fetch(`${all[2].url}/w/k1/effects`, { headers: { authorization: `Bearer ${made.key}` } });
  assert.equal(stream.status, 200);
  const reading = (async () => { for await (const _ of stream.body) { /* keepalives and effects */ } return "ended"; })();
  await ok(all[0], "k1", ADMIN, "revoke_key", { key_id: made.key_id });
  for (const s of all) {
    const r = await method(s, "k1", made.key, "effects", {});
    assert.equal(r.error?.code, -32002, `node ${s.url} refuses the revoked key: ${JSON.stringify(r)}`);
  }
  assert.equal(await reading, "ended", "the stream on another node ends (its NOTIFY)");
  // Rotate through one node, list through another: one table.
  const host = await ok(all[2], "k1", ADMIN, "create_key", { principal: "host" });
  const rotated = await ok(all[1], "k1", ADMIN, "rotate_key", { key_id: host.key_id });
  const listed = (await ok(all[0], "k1", ADMIN, "list_keys", {})).keys;
  assert.deepEqual(listed.map((k) => [k.key_id, k.state]).sort(), [[made.key_id, "revoked"], [host.key_id, "revoked"], [rotated.key_id, "active"]].sort());
  for (const s of all) {
    assert.equal((await method(s, "k1", host.key, "effects", {})).error?.code, -32002);
    assert.equal((await method(s, "k1", rotated.key, "effects", {})).error, undefined);
  }
  for (const s of all) await stop(s);
});

test("A2A task generations on Postgres: the writer's index is built from the shared log, again on the node that takes the workspace over", async () => {
  const [first] = await nodes(1);
  await setup(first, "g1");
  await ok(first, "g1", ADMIN, "host", { input: "register_agent", args: { bot_id: "worker", tools: ["project_manager_tools", "coordination_tools"] } });
  // Records before any A2A method: the index is built from the whole log when one first runs.
  for (let i = 0; i < 3; i++) await ok(first, "g1", ADMIN, "call", handoffArgs(`warm-up ${i}`));
  const EXT = "https://github.com/a2aproject/A2A/blob/28491879ff41a9c230fb51f3f7bd6096b80cc341/docs/specification.md#327-task-generation-semantics";
  const a2a = async (s, method, params) => {
    const r = await fetch(`${s.url}/w/g1/a2a/worker`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}`, "a2a-version": "1.0", "a2a-extensions": EXT },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const b = await r.json();
    assert.ok(b.result, JSON.stringify(b));
    return b.result;
  };
  const { task } = await a2a(first, "SendMessage", { message: { messageId: "pg-1", role: "ROLE_USER", parts: [{ text: "Cut the branch" }] }, configuration: { returnImmediately: true } });
  assert.equal(task.generation, "1");
  const log = await wholeLog(first, "g1");
  const child = log.find((r) => r.command === "handoff" && JSON.stringify(r).includes(task.id)).changes.find((c) => c.kind === "handoff").child_thread_id;
  await ok(first, "g1", ADMIN, "host", { input: "tool_call", args: { thread_id: child, tool: "write_todo" } });
  assert.equal((await a2a(first, "GetTask", { id: task.id })).generation, "2");
  // Another node takes the workspace over: its writer builds the index from the same log.
  await stop(first);
  const [second] = await nodes(1);
  assert.equal((await a2a(second, "GetTask", { id: task.id })).generation, "2");
  await ok(second, "g1", ADMIN, "call", { tool: "write_todo", args: { steps: [{ title: "cut", status: "in_progress" }] }, as: { thread: child, bot: "worker" } });
  assert.equal((await a2a(second, "GetTask", { id: task.id })).generation, "3");
  await stop(second);
});
