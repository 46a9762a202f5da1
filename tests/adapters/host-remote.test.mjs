// The host driver over a running `baton serve` (`baton-engine/remote`), run with the adapters
// (after the wasm build it imports): JSON-RPC for commands,
// `/effects` followed with Last-Event-ID and a cursor file. The same delegation as the
// embedded tests (a watched child, a notify child whose report wakes the lead with its mail),
// then a host restarted on the same cursor: it hands over no effect twice; and a host process
// killed with SIGKILL while a worker's turn runs (tests/node/host-child.mjs),
// restarted on its cursor: `recover` runs the worker again once and the handoff completes.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { start, stop, tmpDb, ok, ADMIN } from "../server/helpers.mjs";
import { Host } from "../../pkg/host-node.js";
import { RemoteBaton } from "../../pkg/remote.js";

const tool = (turn, name) => turn.tools.find((t) => t.name === name);

test("the host driver against baton serve: watch, report, wake with its mail; a restarted host resumes after its cursor", async (t) => {
  const s = await start(tmpDb());
  t.after(() => stop(s));
  await ok(s, "w1", ADMIN, "create_workspace");
  const key = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  const cursorFile = join(fs.mkdtempSync(join(os.tmpdir(), "baton-cursor-")), "effects.cursor");
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w1", key, cursorFile });
  t.after(() => remote.close());
  const host = new Host(remote);
  const effects = [];
  const woken = [];
  await host.agent("lead", {
    run: async (turn) => {
      if (turn.kind === "wake") {
        woken.push(turn.effect.messages.map((m) => m.body));
        return "Read it.";
      }
      await tool(turn, "handoff").execute({ task: "List the risks", target_bot: "adam" });
      const b = await tool(turn, "handoff").execute({ task: "Check the data", target_bot: "eve", async_mode: false });
      assert.equal(b.watch.result, "The data is clean.");
      return "Delegated.";
    },
  });
  await host.agent("adam", {
    run: async (turn) => {
      const r = turn.effect.report_to;
      await tool(turn, "mailbox_action").execute({ action: "SEND_MESSAGE", to_thread_id: r.to_thread_id, to_bot_id: r.to_bot_id, body: "Risks: cache" });
      return "Reported.";
    },
  });
  await host.agent("eve", { run: async () => "The data is clean." });
  const chat = await host.open("lead", { thread_id: "chat_main" });
  assert.equal(await host.send(chat, "Plan the release"), "Delegated.");
  await host.idle();
  assert.deepEqual(woken, [["Risks: cache"]]);
  const list = await remote.call("handoff_list", {}, { thread: "chat_main", bot: "lead" });
  assert.equal(list.handoffs.length, 0, "both handoffs completed");
  const cursor = Number(fs.readFileSync(cursorFile, "utf8"));
  const all = await ok(s, "w1", ADMIN, "effects", {});
  assert.equal(cursor, all.effects.at(-1).seq, "the cursor is the last effect handed over");
  host.close();
  remote.close();
  // A restarted host on the same cursor is handed nothing it already had.
  const again = await RemoteBaton.connect({ url: s.url, workspace: "w1", key, cursorFile });
  t.after(() => again.close());
  const host2 = new Host(again, { onEffect: (e) => effects.push(e.effect) });
  await host2.idle();
  assert.deepEqual(effects, []);
  host2.close();
  again.close();
  await stop(s);
});

test("a host on baton serve killed (SIGKILL) mid-turn: restarted on its cursor, no effect is handed over twice, the worker runs again once and reports", async (t) => {
  const { spawn } = await import("node:child_process");
  const s = await start(tmpDb());
  t.after(() => stop(s));
  await ok(s, "w2", ADMIN, "create_workspace");
  const key = (await ok(s, "w2", ADMIN, "create_key", { principal: "host" })).key;
  const cursorFile = join(fs.mkdtempSync(join(os.tmpdir(), "baton-cursor-")), "effects.cursor");
  const child = spawn(process.execPath, [join(import.meta.dirname, "..", "node", "host-child.mjs"), s.url, "w2", key, cursorFile], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("RUNNING")) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`host exited ${code}: ${out}`))));
  });
  assert.equal(out.trim(), "RUNNING 1", "the first host started the worker once");
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w2", key, cursorFile });
  t.after(() => remote.close());
  const handed = [];
  const host = new Host(remote, { onEffect: (e) => handed.push(e.effect) });
  const runs = [];
  await host.agent("lead", { run: async () => "ok" });
  await host.agent("adam", {
    run: async (turn) => {
      runs.push(turn.restarted);
      const r = turn.effect.report_to;
      await tool(turn, "mailbox_action").execute({ action: "SEND_MESSAGE", to_thread_id: r.to_thread_id, to_bot_id: r.to_bot_id, body: "Findings: two" });
      return "Findings: two";
    },
  });
  await host.recover();
  await host.idle();
  assert.deepEqual(runs, [true], "run again once, by recover");
  assert.ok(!handed.includes("start_child"), `the start_child the first host took is not handed over again: ${handed}`);
  const open = await remote.call("handoff_list", {}, { thread: "chat_main", bot: "lead" });
  assert.equal(open.handoffs.length, 0, "the handoff completed");
  host.close();
  remote.close();
  await stop(s);
});
