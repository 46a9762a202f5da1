// A lead delegates to three workers with the OpenAI Agents SDK: Baton carries the handoffs.
// Embedded (a directory) or against `baton serve` (BATON_URL, BATON_WORKSPACE, BATON_KEY).
// Runs on scripted models (./scripted-model.mjs) unless OPENAI_API_KEY is set (then the
// SDK's own OpenAI model, OPENAI_MODEL, default gpt-4o-mini).
import { Agent, setTracingDisabled } from "@openai/agents";
import { Baton, FileStore } from "baton-engine";
import { Host } from "baton-engine/host";
import { RemoteBaton } from "baton-engine/remote";
import { openaiAgent } from "baton-engine/openai-agents";
import { scriptedModels } from "./scripted-model.mjs";

setTracingDisabled(!process.env.OPENAI_API_KEY);
const real = process.env.OPENAI_API_KEY && (process.env.OPENAI_MODEL ?? "gpt-4o-mini");

/** `where`: a directory (an embedded, durable workspace) or `{ url, workspace, key }` of a
 * running `baton serve`. */
export async function main(where = process.argv[2] ?? "./baton-workspace") {
  const scripted = scriptedModels();
  const agent = (name, instructions) => new Agent({ name, instructions, model: real || scripted[name] });
  const baton = typeof where === "string" ? Baton.open(FileStore.open(where)) : await RemoteBaton.connect(where);
  const host = new Host(baton);
  try {
    await host.agent("lead", openaiAgent(agent("lead", "You lead a release. Delegate with handoff.")));
    await host.agent("adam", openaiAgent(agent("adam", "You find release risks.")));
    await host.agent("eve", openaiAgent(agent("eve", "You check data.")));
    await host.agent("zed", openaiAgent(agent("zed", "You benchmark."), { onCancel: "abort" }));
    const chat = await host.open("lead", { thread_id: "chat_main" });
    console.log(await host.send(chat, "Plan the release."));
    await host.idle();
  } finally {
    host.close();
    baton.close();
  }
}

const { BATON_URL: url, BATON_WORKSPACE: workspace, BATON_KEY: key } = process.env;
if (import.meta.url === `file://${process.argv[1]}`) await main(url ? { url, workspace, key } : undefined);
