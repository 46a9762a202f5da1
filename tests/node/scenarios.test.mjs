// Every conformance scenario through the wasm build in Node must print exactly what the
// native run prints (the `.out` files the Rust suite checks).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(import.meta.url);
const baton = require(process.env.BATON_WASM_NODE ?? join(root, "target", "wasm-node", "baton_wasm.js"));
const dir = join(root, "tests", "scenarios");
const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();

test("the suite is there", () => assert.ok(files.length >= 52, `${files.length} scenario files`));

for (const f of files) {
  test(`wasm output is byte-identical: ${f}`, () => {
    const script = readFileSync(join(dir, f), "utf8");
    const expected = readFileSync(join(dir, f.replace(/\.jsonl$/, ".out")), "utf8");
    assert.equal(baton.runScript(script), expected);
  });
}

test("engine API: a call, an effect, a deadline, export and reload", () => {
  const t0 = Date.parse("2026-01-05T09:00:00Z");
  const e = new baton.Baton(7);
  assert.deepEqual(JSON.parse(e.host("register_agent", JSON.stringify({ bot_id: "lead" }), t0)), { ok: true, bot_id: "lead" });
  e.host("open_thread", JSON.stringify({ thread_id: "chat_main", bot_id: "lead" }), t0);
  const r = JSON.parse(e.call("handoff", JSON.stringify({ task: "Review the model" }), JSON.stringify({ thread: "chat_main", bot: "lead" }), t0));
  assert.equal(r.status, "started");
  assert.equal(JSON.parse(e.takeEffects())[0].effect, "start_child");
  assert.equal(e.nextDeadline(), t0 + 30 * 60 * 1000);
  const bad = JSON.parse(e.call("handoff", "{}", JSON.stringify({ thread: "chat_main" }), t0));
  assert.equal(bad.error.code, -32602);
  assert.equal(bad.error.field, "task");
  const again = baton.Baton.fromLog(e.exportLog(), 7);
  assert.equal(again.exportLog(), e.exportLog());
  assert.equal(again.nextDeadline(), e.nextDeadline());
});
