// The OpenAI Agents SDK example (examples/openai-agents-js/delegation.mjs) end to end on its
// scripted models: the lead's handoffs, eve's synchronous watch (G9), the follow-up sent while
// adam's run is live (H1: the SDK cannot steer a live run, so the driver runs it as adam's
// next turn, and the report waits for it, S5), zed's cancel aborting its run (C1), the wake
// with adam's mail (M5) and handoff_results (R1) — embedded, and against a `baton serve`.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Baton, FileStore } from "../../pkg/node.js";
import { RemoteBaton } from "../../pkg/remote.js";
import { main } from "../../examples/openai-agents-js/delegation.mjs";
import { start, stop, tmpDb, ok, ADMIN } from "../server/helpers.mjs";

const lead = { thread: "chat_main", bot: "lead" };

async function check(engine, records) {
  const child = (bot) => records.find((c) => c.kind === "thread" && c.bot_id === bot && c.handoff_id);
  const results = (bot) => engine.call("handoff_results", { handoff_id: child(bot).handoff_id }, lead);
  assert.equal((await results("eve")).result, "The data is clean.");
  assert.equal((await results("adam")).status, "completed");
  assert.equal((await results("adam")).result, "Risks: cache, migration");
  assert.equal((await results("zed")).status, "cancelled");
  const mail = records.filter((c) => c.kind === "message" && c.to_thread_id === "chat_main").map((m) => m.body);
  assert.ok(mail.includes("Also: the backup job"), "the follow-up ran as adam's next turn and he answered it");
  const thread = await engine.host("get_thread", { thread_id: "chat_main" });
  assert.match(thread.activity.last_response, /Adam's findings are in: Risks: cache, migration/);
  assert.equal((await engine.host("in_flight", {})).turns.length, 0, "every turn ended");
}

test("the OpenAI Agents SDK delegation, embedded", async () => {
  const dir = mkdtempSync(join(tmpdir(), "baton-openai-agents-"));
  await main(dir);
  const baton = Baton.open(FileStore.open(dir));
  await check(baton, baton.exportLog().split("\n").filter(Boolean).map((l) => JSON.parse(l)));
  baton.close();
});

test("the OpenAI Agents SDK delegation against baton serve", async () => {
  const s = await start(tmpDb());
  await ok(s, "w1", ADMIN, "create_workspace");
  const key = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  await main({ url: s.url, workspace: "w1", key });
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w1", key });
  const { records } = await ok(s, "w1", ADMIN, "log", {});
  await check(remote, records.flatMap((r) => r.changes));
  remote.close();
  await stop(s);
});
