// The host driver (`baton-engine/host`) over the embedded engine: a lead delegates to workers
// whose turns are scripted runners; the driver reports every turn and tool call, runs the
// children from start_child, answers a synchronous watch when it returns (G9), wakes the lead
// with its mail (M5), steers a live child with a follow-up (H1), tells an aborting agent of a
// cancel (C1) and, after a restart — in process, and after a SIGKILL of the host process —
// runs again a child that was cut off (in_flight).
import test from "node:test";
import assert from "node:assert/strict";
import { Baton, FileStore } from "../../pkg/node.js";
import { Host } from "../../pkg/host-node.js";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const tool = (turn, name) => turn.tools.find((t) => t.name === name);

/** A worker that reports as its report_to says, then answers. */
function reporter(answer) {
  return async (turn) => {
    const r = turn.effect.report_to;
    if (r.how === "mailbox") {
      await tool(turn, "mailbox_action").execute({ action: "SEND_MESSAGE", to_thread_id: r.to_thread_id, to_bot_id: r.to_bot_id, body: answer });
    }
    return answer;
  };
}

test("a lead delegates to two workers: a watched one answers the call, a notify one wakes the lead with its report", async () => {
  const baton = new Baton(7);
  const records = [];
  baton.subscribe((r) => records.push(r.command));
  const host = new Host(baton);
  const woken = [];
  await host.agent("lead", {
    run: async (turn) => {
      if (turn.kind === "wake") {
        woken.push(turn.effect.messages.map((m) => m.body));
        const [m] = turn.effect.messages;
        assert.match(turn.input, /Risks: cache, migration/);
        const list = await tool(turn, "handoff_list").execute({});
        return `Got mail from ${m.from_bot_id}; ${list.handoffs.length} open`;
      }
      const a = await tool(turn, "handoff").execute({ task: "List the risks", target_bot: "adam" });
      assert.equal(a.success, true);
      const b = await tool(turn, "handoff").execute({ task: "Check the data", target_bot: "eve", async_mode: false });
      assert.equal(b.watch.status, "completed");
      assert.equal(b.watch.result, "The data is clean.");
      return "Delegated.";
    },
  });
  await host.agent("adam", { run: reporter("Risks: cache, migration") });
  await host.agent("eve", { run: async () => "The data is clean." });
  const main = await host.open("lead", { thread_id: "chat_main" });
  assert.equal(await host.send(main, "Plan the release"), "Delegated.");
  await host.idle();
  assert.deepEqual(woken, [["Risks: cache, migration"]]);
  const open = baton.call("handoff_list", {}, { thread: main, bot: "lead" });
  assert.equal(open.handoffs.length, 0, "both handoffs completed");
  // every turn reported: started before its tool calls, ended after its response
  // (a woken turn is already mid-turn when its turn_started comes: that one records nothing)
  assert.ok(records.filter((c) => c === "turn_started").length >= 3);
  assert.equal(records.filter((c) => c === "turn_ended").length, 4);
  assert.equal(records.filter((c) => c === "tool_call").length, 4, "handoff ×2, mailbox_action, handoff_list");
  host.close();
});

test("a follow-up reaches the child's live turn as steering; a cancel aborts an agent that asked for it", async () => {
  const baton = new Baton(8);
  const host = new Host(baton);
  let started;
  const adamLive = new Promise((r) => (started = r));
  let aborted = false;
  let zedRuns;
  const zedLive = new Promise((r) => (zedRuns = r));
  await host.agent("lead", { run: async () => "ok" });
  await host.agent("adam", {
    run: async (turn) => {
      started();
      const guidance = await turn.steering.next();
      return reporter(`Done, with: ${guidance}`)(turn);
    },
  });
  await host.agent("zed", {
    onCancel: "abort",
    run: (turn) =>
      new Promise((_, reject) => {
        turn.signal.addEventListener("abort", () => {
          aborted = true;
          reject(turn.signal.reason);
        });
        zedRuns();
      }),
  });
  const main = await host.open("lead", { thread_id: "chat_main" });
  const lead = { thread: main, bot: "lead" };
  const h = await host.call("handoff", { task: "Draft the notes", target_bot: "adam" }, lead);
  await adamLive;
  const sent = await host.call("handoff_send", { handoff_id: h.handoff_id, message: "Mention the backup job" }, lead);
  assert.equal(sent.queued_to_live_child, true);
  const z = await host.call("handoff", { task: "Long job", target_bot: "zed" }, lead);
  await zedLive;
  await host.call("handoff_cancel", { handoff_id: z.handoff_id }, lead);
  await host.idle();
  assert.equal(aborted, true);
  assert.equal(baton.host("in_flight", {}).turns.length, 0, "the aborted turn was ended");
  const r = baton.call("handoff_results", { handoff_id: h.handoff_id }, lead);
  assert.equal(r.status, "completed");
  assert.equal(r.result, "Done, with: Mention the backup job");
  host.close();
});

test("a G13 refusal reaches the model as the error, and the tool does not run", async () => {
  const baton = new Baton(9);
  const host = new Host(baton);
  let ran = false;
  let answer;
  await host.agent("lead", { run: async () => "ok" });
  await host.agent("adam", {
    tools: ["shell"],
    run: async (turn) => {
      answer = await turn.wrap("shell", async () => ((ran = true), "rm -rf"))({ cmd: "ls" });
      return "tried";
    },
  });
  const main = await host.open("lead", { thread_id: "chat_main" });
  await host.call("handoff", { task: "Look around", target_bot: "adam", allowed_tools: ["handoff_status"] }, { thread: main, bot: "lead" });
  await host.idle();
  assert.equal(ran, false);
  assert.equal(answer.code, -32004);
  host.close();
});

test("after a restart the child whose turn was cut off runs again (in_flight), and nothing else is started twice", async () => {
  const dir = mkdtempSync(join(tmpdir(), "baton-host-"));
  // First host: the worker's turn starts and never ends (the process "dies").
  const first = Baton.open(FileStore.open(dir, { seed: 11 }));
  const h1 = new Host(first);
  let cutOff;
  const workerRunning = new Promise((r) => (cutOff = r));
  await h1.agent("lead", { run: async () => "ok" });
  await h1.agent("adam", { run: () => (cutOff(), new Promise(() => {})) });
  const main = await h1.open("lead", { thread_id: "chat_main" });
  const h = await h1.call("handoff", { task: "Summarize", target_bot: "adam" }, { thread: main, bot: "lead" });
  await workerRunning;
  h1.close();
  first.close();
  // Second host on the same store.
  const again = Baton.open(FileStore.open(dir));
  const h2 = new Host(again);
  const runs = [];
  await h2.agent("lead", { run: async () => "ok" });
  await h2.agent("adam", { run: async (turn) => (runs.push(turn.restarted), reporter("Summary: fine")(turn)) });
  const flying = await h2.recover();
  assert.equal(flying.children.length, 1);
  await h2.idle();
  assert.deepEqual(runs, [true]);
  const r = again.call("handoff_results", { handoff_id: h.handoff_id }, { thread: main, bot: "lead" });
  assert.equal(r.status, "completed");
  assert.equal(r.result, "Summary: fine");
  h2.close();
  again.close();
});

test("a host killed (SIGKILL) while a worker's turn is in flight: the restarted host runs the worker again and the handoff completes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "baton-host-kill-"));
  const here = dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [join(here, "host-child.mjs"), dir], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("RUNNING")) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`child exited ${code}: ${out}`))));
  });
  assert.equal(out.trim(), "RUNNING 1", "the first host started the worker once");
  const baton = Baton.open(FileStore.open(dir));
  const host = new Host(baton);
  const runs = [];
  await host.agent("lead", { run: async () => "ok" });
  await host.agent("adam", { run: async (turn) => (runs.push(turn.restarted), reporter("Findings: two")(turn)) });
  await host.recover();
  await host.idle();
  assert.deepEqual(runs, [true], "run again once, marked as a restart");
  const [h] = baton.call("handoff_list", {}, { thread: "chat_main", bot: "lead" }).handoffs;
  assert.equal(h, undefined, "no handoff is left open");
  const log = baton.exportLog();
  assert.match(log, /Findings: two/);
  // the worker's turn was started once by each host (the lead's woken turn is the other start)
  const starts = readFileSync(join(dir, "log.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.includes('"command":"turn_started"') && !l.includes('"chat_main"'));
  assert.equal(starts.length, 2);
  host.close();
  baton.close();
});

test("effects for an agent registered later wait for it; a child whose agent never registers is start_failed (G18) once the host is idle", async () => {
  const baton = new Baton(12);
  baton.host("register_agent", { bot_id: "adam" });
  baton.host("register_agent", { bot_id: "ghost" });
  const host = new Host(baton);
  await host.agent("lead", { run: async () => "ok" });
  const main = await host.open("lead", { thread_id: "chat_main" });
  const lead = { thread: main, bot: "lead" };
  // the start_child comes before this host registers adam (as after a restart)
  const early = await host.call("handoff", { task: "Early work", target_bot: "adam" }, lead);
  const lost = await host.call("handoff", { task: "Nobody runs this", target_bot: "ghost" }, lead);
  await host.agent("adam", { run: reporter("Done early") });
  await host.idle();
  assert.equal(baton.call("handoff_results", { handoff_id: early.handoff_id }, lead).result, "Done early");
  assert.equal(baton.call("handoff_status", { handoff_id: lost.handoff_id }, lead).status, "materialize_failed");
  host.close();
});
