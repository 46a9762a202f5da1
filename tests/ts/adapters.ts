// The adapters' types (`baton-engine/ai-sdk`, `baton-engine/openai-agents`) against the
// frameworks' own (installed in the examples, which the test command sets up first).
import { Agent, tool as agentsTool } from "@openai/agents";
import { MockLanguageModelV4 } from "ai/test";
import { tool as aiTool, jsonSchema } from "ai";
import { Baton } from "../../pkg/index.js";
import { Host } from "../../pkg/host.js";
import { aiSdkAgent, batonTools as aiSdkTools } from "../../pkg/ai-sdk.js";
import { openaiAgent } from "../../pkg/openai-agents.js";

const host = new Host(new Baton(3));
const model = new MockLanguageModelV4({});
await host.agent("writer", aiSdkAgent({ model, instructions: "You write.", tools: { shout: aiTool({ inputSchema: jsonSchema<{ text: string }>({ type: "object" }), execute: async ({ text }) => text.toUpperCase() }) }, onCancel: "abort" }));
const lookup = agentsTool({ name: "lookup", description: "Looks up.", parameters: { type: "object", properties: {}, required: [], additionalProperties: true }, strict: false, execute: async () => "found" });
await host.agent("reader", openaiAgent(new Agent({ name: "reader", instructions: "You read.", tools: [lookup] }), { maxTurns: 5 }));
await host.agent("checker", {
  run: async (turn) => {
    const tools = aiSdkTools(turn, {});
    const r = await turn.report("lookup", { term: "x" });
    if ("refused" in r && r.refused) return r.refused.error;
    return `${Object.keys(tools).length} tools; ${JSON.stringify(turn.withNotices("ok", r.notices ?? []))}`;
  },
});
// @ts-expect-error onCancel is finish or abort
openaiAgent(new Agent({ name: "x" }), { onCancel: "later" });
