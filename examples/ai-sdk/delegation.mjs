// A lead delegates to three workers with the Vercel AI SDK: Baton carries the handoffs.
// Runs on scripted models (./scripted-model.mjs) unless OPENAI_BASE_URL and OPENAI_API_KEY
// name a real OpenAI-compatible endpoint (then OPENAI_MODEL, default gpt-4o-mini).
import { Baton, FileStore } from "baton-engine";
import { Host } from "baton-engine/host";
import { aiSdkAgent } from "baton-engine/ai-sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { scriptedModels } from "./scripted-model.mjs";

const { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: apiKey, OPENAI_MODEL = "gpt-4o-mini" } = process.env;
const real = baseURL && apiKey && createOpenAICompatible({ name: "openai", baseURL, apiKey })(OPENAI_MODEL);
const model = (name) => real || scriptedModels[name];

export async function main(dir = process.argv[2] ?? "./baton-workspace") {
  const baton = Baton.open(FileStore.open(dir));
  const host = new Host(baton);
  await host.agent("lead", aiSdkAgent({ model: model("lead"), instructions: "You lead a release. Delegate with handoff." }));
  await host.agent("adam", aiSdkAgent({ model: model("adam"), instructions: "You find release risks." }));
  await host.agent("eve", aiSdkAgent({ model: model("eve"), instructions: "You check data." }));
  await host.agent("zed", aiSdkAgent({ model: model("zed"), instructions: "You benchmark.", onCancel: "abort" }));
  const chat = await host.open("lead", { thread_id: "chat_main" });
  console.log(await host.send(chat, "Plan the release."));
  await host.idle();
  host.close();
  baton.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
