// A lead delegates to three workers with the Vercel AI SDK: Baton carries the handoffs.
// Embedded (a directory) or against `baton serve` (BATON_URL, BATON_WORKSPACE, BATON_KEY).
// Runs on scripted models (./scripted-model.mjs) unless OPENAI_BASE_URL and OPENAI_API_KEY
// name a real OpenAI-compatible endpoint (then OPENAI_MODEL, default gpt-4o-mini).
import { Baton, FileStore } from "baton-engine";
import { Host } from "baton-engine/host";
import { RemoteBaton } from "baton-engine/remote";
import { aiSdkAgent } from "baton-engine/ai-sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { scriptedModels } from "./scripted-model.mjs";

const { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: apiKey, OPENAI_MODEL = "gpt-4o-mini" } = process.env;
const real = baseURL && apiKey && createOpenAICompatible({ name: "openai", baseURL, apiKey })(OPENAI_MODEL);

/** `where`: a directory (an embedded, durable workspace) or `{ url, workspace, key }` of a
 * running `baton serve`. */
export async function main(where = process.argv[2] ?? "./baton-workspace") {
  const scripted = scriptedModels();
  const model = (name) => real || scripted[name];
  const baton = typeof where === "string" ? Baton.open(FileStore.open(where)) : await RemoteBaton.connect(where);
  const host = new Host(baton);
  try {
    await host.agent("lead", aiSdkAgent({ model: model("lead"), instructions: "You lead a release. Delegate with handoff." }));
    await host.agent("adam", aiSdkAgent({ model: model("adam"), instructions: "You find release risks." }));
    await host.agent("eve", aiSdkAgent({ model: model("eve"), instructions: "You check data." }));
    await host.agent("zed", aiSdkAgent({ model: model("zed"), instructions: "You benchmark.", onCancel: "abort" }));
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
