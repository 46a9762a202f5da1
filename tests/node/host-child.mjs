// A host process for the restart test in host.test.mjs: a lead hands work to a worker whose
// turn never ends, over a FileStore in `dir`; prints `RUNNING <turns of the worker started>`
// once the worker's turn is live, and waits to be killed (the parent sends SIGKILL).
import { writeSync } from "node:fs";
import { Baton, FileStore } from "../../pkg/node.js";
import { Host } from "../../pkg/host-node.js";

const [dir] = process.argv.slice(2);
const baton = Baton.open(FileStore.open(dir, { seed: 21 }));
const host = new Host(baton);
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
