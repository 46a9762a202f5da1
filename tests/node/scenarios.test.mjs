// The npm package in Node: every conformance scenario must print exactly what the native run
// prints (the `.out` files the Rust suite checks), and the JS API behaves as documented.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Baton, BatonError, runScript, tools } from "../../pkg/node.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = join(root, "tests", "scenarios");
const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();

test("the suite is there", () => assert.ok(files.length >= 52, `${files.length} scenario files`));

for (const f of files) {
  test(`byte-identical through the package: ${f}`, () => {
    const script = readFileSync(join(dir, f), "utf8");
    const expected = readFileSync(join(dir, f.replace(/\.jsonl$/, ".out")), "utf8");
    assert.equal(runScript(script), expected);
  });
}

test("objects in and out, effects, deadlines, export and reload", () => {
  const t0 = Date.parse("2026-01-05T09:00:00Z");
  const b = new Baton(7);
  assert.equal(b.seed, 7);
  assert.deepEqual(b.host("register_agent", { bot_id: "lead" }, t0), { ok: true, bot_id: "lead" });
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, t0);
  const r = b.call("handoff", { task: "Review the model" }, { thread: "chat_main", bot: "lead" }, t0);
  assert.equal(r.status, "started");
  assert.equal(b.takeEffects()[0].effect, "start_child");
  assert.equal(b.nextDeadline(), t0 + 30 * 60 * 1000);
  const again = Baton.fromLog(b.exportLog(), 7);
  assert.equal(again.exportLog(), b.exportLog());
  assert.equal(again.nextDeadline(), b.nextDeadline());
  assert.ok(tools().some((t) => t.function.name === "check_inbox"));
});

test("errors are thrown as BatonError with the stable code, field and rule", () => {
  const b = new Baton(1);
  b.host("register_agent", { bot_id: "lead" }, 1);
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, 1);
  assert.throws(
    () => b.call("handoff", { task: "  " }, { thread: "chat_main" }, 2),
    (e) => e instanceof BatonError && e.code === -32602 && e.codeName === "invalid_params" && e.field === "task" && e.rule === "G1",
  );
  assert.throws(() => b.call("teleport", {}, { thread: "chat_main" }, 3), (e) => e.code === -32601);
  assert.throws(() => b.host("open_thread", { bot_id: "nobody" }, 4), (e) => e.code === -32001 && e.field === "bot_id");
});

test("subscribers see what each accepted command changed, and nothing for refused ones", () => {
  const b = new Baton(3);
  const seen = [];
  const off = b.subscribe((r) => seen.push([r.seq, r.command, r.changes.map((c) => c.kind)]));
  b.host("register_agent", { bot_id: "lead" }, 10);
  b.host("open_thread", { thread_id: "chat_main", bot_id: "lead" }, 10);
  assert.throws(() => b.call("handoff", {}, { thread: "chat_main" }, 11));
  b.call("handoff_list", {}, { thread: "chat_main" }, 12);
  off();
  b.call("handoff", { task: "t" }, { thread: "chat_main" }, 13);
  assert.deepEqual(seen, [
    [1, "register_agent", ["agent"]],
    [2, "open_thread", ["thread"]],
  ]);
});
