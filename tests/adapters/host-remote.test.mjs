// The host driver over a running `baton serve` (`baton-engine/remote`), run with the adapters
// (after the wasm build it imports): JSON-RPC for commands,
// `/effects` followed with Last-Event-ID and a cursor file. The same delegation as the
// embedded tests (a watched child, a notify child whose report wakes the lead with its mail),
// then a host restarted on the same cursor: it hands over no effect twice.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { start, stop, tmpDb, ok, ADMIN } from "../server/helpers.mjs";
import { Host } from "../../pkg/host-node.js";
import { RemoteBaton } from "../../pkg/remote.js";

const tool = (turn, name) => turn.tools.find((t) => t.name === name);

test("the host driver against baton serve: watch, report, wake with its mail; a restarted host resumes after its cursor", async () => {
  const s = await start(tmpDb());
  await ok(s, "w1", ADMIN, "create_workspace");
  const key = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  const cursorFile = join(fs.mkdtempSync(join(os.tmpdir(), "baton-cursor-")), "effects.cursor");
  const remote = await RemoteBaton.connect({ url: s.url, workspace: "w1", key, cursorFile });
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
  const host2 = new Host(again, { onEffect: (e) => effects.push(e.effect) });
  await host2.idle();
  assert.deepEqual(effects, []);
  host2.close();
  again.close();
  await stop(s);
});
