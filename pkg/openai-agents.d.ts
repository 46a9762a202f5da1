// Types of `baton-engine/openai-agents`, the OpenAI Agents SDK (JS) adapter.
import type { Agent, Tool } from "@openai/agents";
import type { AgentOptions, Turn } from "./host.js";

/** Baton's tools for the turn's thread as function tools, and the agent's own `tools`, each with
 * a tool input guardrail that reports the call to Baton and rejects what G13 refuses. */
export declare function batonTools(turn: Turn, tools?: Tool[]): Tool[];

/** An agent for `Host.agent` whose turns are `run()`s of `agent` (its model, instructions and
 * own tools): the turn's signal as the run's `signal`, each thread's history kept from turn to
 * turn; a follow-up that arrives mid-run runs as the thread's next turn. */
export declare function openaiAgent(agent: Agent<any, any>, options?: { maxTurns?: number; onCancel?: "finish" | "abort" }): AgentOptions;
