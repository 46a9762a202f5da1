// The AI SDK example (examples/ai-sdk/delegation.mjs) end to end on its scripted models, over
// a durable workspace: the lead's handoffs, eve's synchronous watch (G9), the follow-up that
// reaches adam's live turn through the SDK's steering (H1), zed's cancel aborting its run
// (C1), the wake that hands the lead adam's report (M5) and its handoff_results (R1).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Baton, FileStore } from "../../pkg/node.js";
import { main } from "../../examples/ai-sdk/delegation.mjs";

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
