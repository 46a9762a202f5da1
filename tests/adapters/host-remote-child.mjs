// A host process for the remote restart test in host-remote.test.mjs: over a `baton serve`
// workspace (URL, workspace, key and cursor file as arguments), a lead hands work to a worker
// whose turn never ends; prints `RUNNING <turns of the worker started>` once the worker's turn
// is live, and waits to be killed (the parent sends SIGKILL).
import { writeSync } from "node:fs";
import { Host } from "../../pkg/host-node.js";
import { RemoteBaton } from "../../pkg/remote.js";

const [url, workspace, key, cursorFile] = process.argv.slice(2);
const remote = await RemoteBaton.connect({ url, workspace, key, cursorFile });
const host = new Host(remote);
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
