// A host process for the restart tests (tests/node/host.test.mjs, embedded, and
// tests/adapters/host-remote.test.mjs, against `baton serve`): a lead hands work to a worker
// whose turn never ends, over a FileStore in `dir` — or, given `url workspace key cursorFile`,
// over that server's workspace; prints `RUNNING <turns of the worker started>` once the
// worker's turn is live, and waits to be killed (the parent sends SIGKILL).
import { writeSync } from "node:fs";
import { Baton, FileStore } from "../../pkg/node.js";
import { Host } from "../../pkg/host-node.js";
import { RemoteBaton } from "../../pkg/remote.js";

const args = process.argv.slice(2);
const engine =
  args.length === 1
    ? Baton.open(FileStore.open(args[0], { seed: 21 }))
    : await RemoteBaton.connect({ url: args[0], workspace: args[1], key: args[2], cursorFile: args[3] });
const host = new Host(engine);
let started = 0;
await host.agent("lead", { run: async () => "ok" });
await host.agent("adam", {
  run: () => {
    started += 1;
    writeSync(1, `RUNNING ${started}\n`);
    return new Promise(() => {});
  },
});
const main = await host.open("lead", { thread_id: "chat_main" });
await host.call("handoff", { task: "Summarize the findings", target_bot: "adam" }, { thread: main, bot: "lead" });
setInterval(() => {}, 1 << 30);
