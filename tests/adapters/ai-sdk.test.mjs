// The AI SDK example (examples/ai-sdk/delegation.mjs) end to end on its scripted models, over
// a durable workspace: the lead's handoffs, eve's synchronous watch (G9), the follow-up that
// reaches adam's live turn through the SDK's steering (H1), zed's cancel aborting its run
// (C1), the wake that hands the lead adam's report (M5) and its handoff_results (R1) —
// embedded, and against a `baton serve` the test starts (target/debug/baton).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Baton, FileStore } from "../../pkg/node.js";
import { main } from "../../examples/ai-sdk/delegation.mjs";
import { RemoteBaton } from "../../pkg/remote.js";
import { start, stop, tmpDb, ok, ADMIN } from "../server/helpers.mjs";

test("the AI SDK delegation: watch, follow-up into a live turn, cancel, wake with its mail, results", async () => {
  const dir = mkdtempSync(join(tmpdir(), "baton-ai-sdk-"));
  await main(dir);
  const baton = Baton.open(FileStore.open(dir));
  const lead = { thread: "chat_main", bot: "lead" };
  const log = baton.exportLog().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  // each worker's thread names its handoff
  const child = (bot) => log.find((r) => r.kind === "thread" && r.bot_id === bot && r.handoff_id);
  const results = (bot) => baton.call("handoff_results", { handoff_id: child(bot).handoff_id }, lead);
  assert.equal(results("eve").status, "completed");
  assert.equal(results("eve").result, "The data is clean.");
  assert.equal(results("adam").status, "completed");
  assert.equal(results("adam").result, "Risks: cache, migration, backup job", "the follow-up reached adam's live turn");
  assert.equal(results("zed").status, "cancelled");
  const thread = baton.host("get_thread", { thread_id: "chat_main" });
  assert.match(thread.activity.last_response, /Adam's findings are in: Risks: cache, migration, backup job/, "the woken lead read the results");
  assert.equal(baton.host("in_flight", {}).turns.length, 0, "every turn ended");
  baton.close();
});

test("the same AI SDK delegation against baton serve", async (t) => {
  const s = await start(tmpDb());
  t.after(() => stop(s));
  await ok(s, "w1", ADMIN, "create_workspace");
  const key = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  await main({ url: s.url, workspace: "w1", key });
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w1", key });
  t.after(() => remote.close());
  const lead = { thread: "chat_main", bot: "lead" };
  const { records } = await ok(s, "w1", ADMIN, "log", {});
  const child = (bot) => records.flatMap((r) => r.changes).find((c) => c.kind === "thread" && c.bot_id === bot && c.handoff_id);
  const results = (bot) => remote.call("handoff_results", { handoff_id: child(bot).handoff_id }, lead);
  assert.equal((await results("eve")).result, "The data is clean.");
  assert.equal((await results("adam")).result, "Risks: cache, migration, backup job");
  assert.equal((await results("zed")).status, "cancelled");
  const thread = await remote.host("get_thread", { thread_id: "chat_main" });
  assert.match(thread.activity.last_response, /Adam's findings are in: Risks: cache, migration, backup job/);
  remote.close();
  await stop(s);
});
