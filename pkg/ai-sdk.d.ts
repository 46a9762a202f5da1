// Types of `baton-engine/ai-sdk`, the Vercel AI SDK adapter.
import type { LanguageModel, ToolSet } from "ai";
import type { AgentOptions, Turn } from "./host.js";

/** Baton's tools for the turn's thread and the agent's own `tools`, as one `ToolSet`; every
 * call is reported and checked by Baton (G13) before it runs. */
export declare function batonTools(turn: Turn, tools?: ToolSet): ToolSet;

/** An agent for `Host.agent` whose turns are `generateText` runs: follow-ups through the SDK's
 * steering, cancels through `abortSignal`, each thread's conversation kept from turn to turn. */
export declare function aiSdkAgent(options: {
  model: LanguageModel;
  instructions?: string;
  /** The agent's own tools (declared to Baton by name). */
  tools?: ToolSet;
  /** Steps a turn may take (default 20). */
  maxSteps?: number;
  onCancel?: "finish" | "abort";
  [setting: string]: unknown;
}): AgentOptions;
