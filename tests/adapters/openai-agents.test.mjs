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

test("the OpenAI Agents SDK delegation against baton serve", async (t) => {
  const s = await start(tmpDb());
  t.after(() => stop(s));
  await ok(s, "w1", ADMIN, "create_workspace");
  const key = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  await main({ url: s.url, workspace: "w1", key });
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w1", key });
  t.after(() => remote.close());
  const { records } = await ok(s, "w1", ADMIN, "log", {});
  await check(remote, records.flatMap((r) => r.changes));
  remote.close();
  await stop(s);
});

// The agent's own tools: checked by the tool input guardrail the adapter adds (the SDK's hook
// before a tool runs). A call G13 refuses is rejected with Baton's message and never runs; an
// allowed one runs and is reported (handoff_status shows it).
test("the agent's own tools go through Baton's guardrail: a G13 refusal never runs, an allowed call is reported", async () => {
  const sdk = "../../examples/openai-agents-js/node_modules";
  const { Agent, tool, setTracingDisabled } = await import(`${sdk}/@openai/agents/dist/index.mjs`);
  const { Baton } = await import(`${sdk}/baton-engine/node.js`);
  const { Host } = await import(`${sdk}/baton-engine/host-node.js`);
  const { openaiAgent } = await import(`${sdk}/baton-engine/openai-agents.js`);
  const { scripted, call, text } = await import("../../examples/openai-agents-js/scripted-model.mjs");
  setTracingDisabled(true);
  const baton = new Baton(31);
  const host = new Host(baton);
  const ran = [];
  const lookup = tool({
    name: "lookup",
    description: "Looks a term up.",
    parameters: { type: "object", properties: { term: { type: "string" } }, required: ["term"], additionalProperties: false },
    strict: false,
    execute: async ({ term }) => (ran.push(term), `${term}: found`),
  });
  const seen = [];
  const model = scripted(({ step, results }) => {
    if (step === 0) return call("lookup", { term: "cache" });
    seen.push(results[0]);
    return text(`Lookup said: ${typeof results[0] === "string" ? results[0] : JSON.stringify(results[0])}`);
  });
  await host.agent("lead", { run: async () => "ok" });
  await host.agent("adam", openaiAgent(new Agent({ name: "adam", instructions: "You look things up.", model, tools: [lookup] })));
  const main = await host.open("lead", { thread_id: "chat_main" });
  const lead = { thread: main, bot: "lead" };
  const narrowed = await host.call("handoff", { task: "Look it up", target_bot: "adam", allowed_tools: ["mailbox_action"] }, lead);
  await host.idle();
  assert.deepEqual(ran, [], "the refused call did not run");
  assert.match(String(seen[0]), /not allowed|tool_not_allowed|allowed_tools/i, `the model saw Baton's refusal: ${seen[0]}`);
  const open = await host.call("handoff", { task: "Look it up again", target_bot: "adam" }, lead);
  await host.idle();
  assert.deepEqual(ran, ["cache"]);
  assert.equal(seen[1], "cache: found");
  const status = baton.call("handoff_status", { handoff_id: open.handoff_id }, lead);
  assert.equal(status.last_tool_call?.name, "lookup", "the allowed call was reported");
  assert.equal(baton.call("handoff_status", { handoff_id: narrowed.handoff_id }, lead).tool_call_count ?? 0, 0);
  host.close();
});
