// The npm package's stores in Node: the compact default, the durable FileStore (reopen gives
// the identical state; a torn last line from a crash is dropped, never half applied — with a
// real SIGKILL of a child process mid-write; a damaged line is refused), and a store a host
// brings through the Store interface.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Baton, BatonError, FileStore } from "../../pkg/node.js";

const here = dirname(fileURLToPath(import.meta.url));
const T0 = Date.parse("2026-01-05T09:00:00Z");
const lead = { thread: "chat_main", bot: "lead" };

const dirs = [];
function tmp() {
  const d = fs.mkdtempSync(join(os.tmpdir(), "baton-store-"));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function setup(b) {
  b.host("register_agent", { bot_id: "lead" }, T0);
  b.host("register_agent", { bot_id: "adam", tools: ["project_manager_tools", "web_search"] }, T0);
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, T0);
}

/** One delegation: spawn, activity, report, delivery, turn end. */
function cycle(b, i) {
  const t = T0 + 30_000 * (i + 1);
  const r = b.call("handoff", { task: `Review part ${i}`, target_bot: "adam" }, lead, t);
  b.host("tool_call", { thread_id: r.thread_id, tool: "web_search" }, t);
  b.host("response", { thread_id: r.thread_id, text: `Finding ${i}` }, t);
  b.call("mailbox_action", { action: "SEND_MESSAGE", to_thread_id: "chat_main", to_bot_id: "lead", body: `Done ${i}` }, { thread: r.thread_id, bot: "adam" }, t);
  b.tick(t);
  b.host("turn_ended", { thread_id: "chat_main" }, t);
  b.takeEffects();
  return r.handoff_id;
}

const handoffsIn = (exported) => exported.split("\n").filter((l) => l.startsWith('{"kind":"handoff"')).length;

test("records held sealed answer exactly as plain ones: every read, the export, the next command", () => {
  const plain = new Baton(5);
  plain.keepHotRecords(Infinity);
  const sealed = new Baton(5);
  sealed.keepHotRecords(1); // all but the last written of each kind are sealed
  const ids = [];
  for (const b of [plain, sealed]) setup(b);
  for (let i = 0; i < 30; i++) {
    const a = cycle(plain, i);
    assert.equal(cycle(sealed, i), a);
    ids.push(a);
  }
  const t = T0 + 30_000 * 31;
  for (const id of ids) {
    assert.deepEqual(sealed.call("handoff_status", { handoff_id: id }, lead, t), plain.call("handoff_status", { handoff_id: id }, lead, t));
  }
  assert.deepEqual(sealed.call("handoff_list", {}, lead, t), plain.call("handoff_list", {}, lead, t));
  assert.equal(sealed.exportLog(), plain.exportLog());
  assert.equal(cycle(sealed, 31), cycle(plain, 31));
  assert.equal(sealed.exportLog(), plain.exportLog());
});

test("the compact default keeps no history and exports a snapshot that reopens identically", () => {
  const b = new Baton(3);
  setup(b);
  for (let i = 0; i < 40; i++) cycle(b, i);
  const text = b.exportLog();
  assert.ok(text.startsWith('{"snapshot":2,'), text.slice(0, 60));
  assert.equal(handoffsIn(text), 40);
  const again = Baton.fromLog(text, 3);
  assert.equal(again.exportLog(), text);
  // The same next command does the same in both.
  cycle(b, 40);
  cycle(again, 40);
  assert.equal(again.exportLog(), b.exportLog());
  const seen = [];
  b.subscribe((r) => seen.push(r));
  cycle(b, 41);
  assert.deepEqual(seen.map((r) => r.command), ["handoff", "tool_call", "response", "mailbox_action", "tick", "turn_ended"]);
  assert.ok(seen.some((r) => r.changes.some((c) => c.kind === "handoff_delta")), "progress is logged as deltas");
});

test("FileStore: reopen gives the identical state, through snapshots and the records after them", () => {
  const dir = tmp();
  const b = Baton.open(FileStore.open(dir, { seed: 5, snapshotEvery: 30 }));
  assert.equal(b.seed, 5);
  setup(b);
  for (let i = 0; i < 60; i++) cycle(b, i);
  const before = b.exportLog();
  b.close();
  assert.ok(fs.existsSync(join(dir, "snapshot.jsonl")), "a snapshot was taken");
  const logLines = fs.readFileSync(join(dir, "log.jsonl"), "utf8").split("\n").filter(Boolean).length;
  assert.ok(logLines < 60 * 6, `the log holds only the records after the snapshot (${logLines})`);
  const again = Baton.open(FileStore.open(dir));
  assert.equal(again.seed, 5, "the seed is the store's");
  assert.equal(again.exportLog(), before);
  // And it goes on: the next command answers as the original would have.
  const id = cycle(again, 60);
  assert.match(id, /^handoff_/);
  again.close();
  const third = Baton.open(FileStore.open(dir));
  assert.equal(third.exportLog(), again.exportLog());
  third.close();
});

test("FileStore: a torn last line is dropped and cut off; a damaged whole line is refused", () => {
  const dir = tmp();
  const b = Baton.open(FileStore.open(dir, { seed: 2 }));
  setup(b);
  cycle(b, 0);
  const before = b.exportLog();
  b.close();
  const logPath = join(dir, "log.jsonl");
  const whole = fs.readFileSync(logPath);
  // A crash mid-write leaves part of a record and no newline.
  fs.appendFileSync(logPath, '{"v":2,"seq":99,"at":1767603630000,"command":"handoff","id_se');
  const store = FileStore.open(dir);
  const reopened = Baton.open(store);
  assert.equal(reopened.exportLog(), before, "nothing of the torn record applied");
  assert.ok(store.recovered.tornBytes > 0);
  assert.deepEqual(fs.readFileSync(logPath), whole, "the file is cut back to its last whole line");
  cycle(reopened, 1);
  reopened.close();
  const third = Baton.open(FileStore.open(dir));
  assert.equal(third.exportLog(), reopened.exportLog());
  third.close();
  // A whole line that does not read is damage, not a crash: refused, naming the record.
  fs.appendFileSync(logPath, "{not a record}\n");
  assert.throws(() => Baton.open(FileStore.open(dir)), (e) => e instanceof BatonError && e.codeName === "storage_failed" && /corrupt/.test(e.message));
});

test("FileStore: records the snapshot already holds (a crash before the log was cut) are skipped", () => {
  const dir = tmp();
  const b = Baton.open(FileStore.open(dir, { seed: 8 }));
  setup(b);
  for (let i = 0; i < 3; i++) cycle(b, i);
  const logPath = join(dir, "log.jsonl");
  const oldLog = fs.readFileSync(logPath);
  b.checkpoint();
  cycle(b, 3);
  const after = fs.readFileSync(logPath);
  const state = b.exportLog();
  b.close();
  // As if the process died after the snapshot's rename and before the log was cut.
  fs.writeFileSync(logPath, Buffer.concat([oldLog, after]));
  const again = Baton.open(FileStore.open(dir));
  assert.equal(again.exportLog(), state);
  again.close();
});

test("FileStore: one process writes a store at a time; a lock left by a dead process is taken over", () => {
  const dir = tmp();
  const first = FileStore.open(dir, { seed: 1 });
  assert.throws(() => FileStore.open(dir), /already open in this process/);
  first.close();
  FileStore.open(dir).close();
  // A live process holding it (the parent of this test process, say) refuses the open.
  fs.writeFileSync(join(dir, "lock"), String(process.ppid));
  assert.throws(() => FileStore.open(dir), new RegExp(`open in process ${process.ppid}`));
  // A dead one's lock is taken over.
  fs.writeFileSync(join(dir, "lock"), "2147483646");
  const s = FileStore.open(dir);
  assert.equal(fs.readFileSync(join(dir, "lock"), "utf8"), String(process.pid));
  s.close();
  assert.ok(!fs.existsSync(join(dir, "lock")), "closing lets the store go");
});

test("a store the host brings: a failing append refuses the command and changes nothing", () => {
  const lines = [];
  let snapshots = 0;
  let failNext = false;
  const store = {
    load: () => lines.join("\n"),
    append(line) {
      if (failNext) throw new Error("disk full");
      lines.push(line);
    },
    snapshot(text, seq) {
      snapshots += 1;
      assert.ok(seq > 0);
      lines.length = 0;
      lines.push(...text.split("\n").filter(Boolean));
    },
    snapshotEvery: 20,
  };
  const b = Baton.open(store, 4);
  setup(b);
  for (let i = 0; i < 20; i++) cycle(b, i);
  assert.ok(snapshots >= 1, "the engine handed the store snapshots");
  const before = b.exportLog();
  failNext = true;
  assert.throws(() => b.call("handoff", { task: "x", target_bot: "adam" }, lead, T0 + 10_000_000), (e) => e.codeName === "storage_failed" && /disk full/.test(e.message));
  assert.equal(b.exportLog(), before, "state unchanged");
  assert.deepEqual(b.takeEffects(), [], "no effect escapes");
  failNext = false;
  cycle(b, 20);
  assert.equal(Baton.open(store, 4).exportLog(), b.exportLog(), "reopen from what the store holds");
});

/** Runs the child until `until(line)` says stop, then SIGKILLs it; answers its stdout lines. */
function runAndKill(dir, mode, at, until, start = T0) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "file-store-child.mjs"), dir, mode, String(at), String(start)], { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    let buf = "";
    let err = "";
    let killed = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the child did not reach its kill point in 60 s: ${err}`));
    }, 60_000);
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        out.push(line);
        if (!killed && until(line, out)) {
          killed = true;
          child.kill("SIGKILL");
        }
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") resolve(out);
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

function ackedIds(lines) {
  return lines.filter((l) => l.startsWith("ACK ")).map((l) => l.slice(4));
}

function assertAllThere(dir, acked, { exact }) {
  const store = FileStore.open(dir);
  const b = Baton.open(store);
  const text = b.exportLog();
  for (const id of acked) assert.ok(text.includes(`"handoff_id":"${id}"`), `acknowledged ${id} is there`);
  const n = handoffsIn(text);
  if (exact) assert.equal(n, acked.length, "the torn command is not there");
  else assert.ok(n === acked.length || n === acked.length + 1, `${n} handoffs for ${acked.length} acknowledged`);
  b.close();
  return store;
}

test("FileStore under SIGKILL mid-write: the torn record is dropped, every acknowledged command is there", async () => {
  const dir = tmp();
  // Kill inside the 70th record's write (after a snapshot at 50 and well into the next log).
  const lines = await runAndKill(dir, "tear", 70, (l) => l === "HALF");
  const acked = ackedIds(lines);
  assert.ok(acked.length >= 60, `${acked.length} acknowledged before the kill`);
  const store = assertAllThere(dir, acked, { exact: true });
  assert.ok(store.recovered.tornBytes > 0, "the kill left a torn line, and opening dropped it");
  // The store goes on after recovery: a second run, killed under load, loses nothing either.
  const more = await runAndKill(dir, "load", 0, (_l, out) => ackedIds(out).length >= 40, T0 + 86_400_000);
  assertAllThere(dir, [...acked, ...ackedIds(more)], { exact: false });
});

test("FileStore under SIGKILL at random points under load (fsync never): nothing acknowledged is lost", async () => {
  for (let round = 0; round < 5; round++) {
    const dir = tmp();
    const stopAt = 20 + Math.floor(Math.random() * 120);
    const lines = await runAndKill(dir, "fast", 0, (_l, out) => ackedIds(out).length >= stopAt);
    assertAllThere(dir, ackedIds(lines), { exact: false });
  }
});

test("a v1 log (an export of the v1 package) opens with fromLog and through a FileStore", () => {
  const v1 = fs.readFileSync(join(here, "..", "fixtures", "log-v1", "s10_every_live_status_ends_every_way.jsonl"), "utf8");
  assert.ok(v1.split("\n").filter(Boolean).every((l) => l.startsWith('{"v":1,')));
  const opened = Baton.fromLog(v1, 42);
  const snapshot = opened.exportLog();
  assert.ok(snapshot.startsWith('{"snapshot":2,'));
  assert.ok(handoffsIn(snapshot) > 0);
  // The same log as a FileStore's (a v1 file left by an earlier host) opens to the same state.
  const dir = tmp();
  FileStore.open(dir, { seed: 42 }).close();
  fs.writeFileSync(join(dir, "log.jsonl"), v1);
  const b = Baton.open(FileStore.open(dir));
  assert.equal(b.exportLog(), snapshot);
  b.close();
});
