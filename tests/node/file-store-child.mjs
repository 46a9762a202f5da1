// A child process for the crash tests in file-store.test.mjs: delegates work through a Baton
// on a FileStore in `dir` until it is killed, printing `ACK <handoff_id>` after each command
// is acknowledged. Mode `tear`: the record of command number `at` is written in two halves,
// with `HALF` printed between them and a long pause — the parent kills it there, as a crash
// in the middle of a write would. (The slow write is this harness's; the store, the kill and
// the recovery are real.)
import { writeSync } from "node:fs";
import { Baton, FileStore } from "../../pkg/node.js";

const [dir, mode, at, start] = process.argv.slice(2);
const say = (s) => writeSync(1, s + "\n");

class SlowStore extends FileStore {
  appends = 0;
  writeAt(buf, position) {
    this.appends += 1;
    if (mode !== "tear" || this.appends !== Number(at)) return super.writeAt(buf, position);
    const half = buf.length >> 1;
    super.writeAt(buf.subarray(0, half), position);
    say("HALF");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000);
    super.writeAt(buf.subarray(half), position + half);
  }
}

const store = SlowStore.open(dir, { seed: 11, fsync: mode === "fast" ? "never" : "always", snapshotEvery: 50 });
const b = Baton.open(store);
let now = Number(start);
try {
  b.host("register_agent", { bot_id: "lead" }, now);
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, now);
} catch {
  // Reopened after a crash: already there.
}
for (let i = 0; ; i++) {
  now += 1000;
  // Long tasks make long lines, so a kill lands inside one more often.
  const r = b.call("handoff", { task: `Task ${i}: ` + "review the ledger ".repeat(400), target_bot: "lead" }, { thread: "chat_main", bot: "lead" }, now);
  say(`ACK ${r.handoff_id}`);
}
