// `baton-engine/openai-agents`: the OpenAI Agents SDK (JS) adapter for the host driver. A turn
// is one `run()` of the agent (a worker's turn is a run of its own): Baton's tools for the
// thread as the SDK's function tools beside the agent's own; each of the agent's own tools gets
// a tool input guardrail — the SDK's hook that runs before a tool and may reject the call — that
// reports the call to Baton and rejects what G13 refuses (the model sees Baton's message, the
// tool does not run); the turn's signal as the run's `signal`; each thread's history carried
// from turn to turn (in memory). The SDK has no steering of a live run, so a follow-up that
// arrives mid-run is run by the driver as the thread's next turn. `@openai/agents` is a peer
// dependency.
import { defineToolInputGuardrail, run, tool, ToolGuardrailFunctionOutputFactory as Guard } from "@openai/agents";

/** A Baton tool schema as the SDK's non-strict JSON object schema. */
function parameters(schema) {
  return { type: "object", properties: {}, required: [], additionalProperties: true, ...schema };
}

/** A tool call's arguments (JSON text), as sent. */
function parse(input) {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** Baton's tools for `turn` as function tools, and the agent's own `tools` with each call
 * reported (G13) before it runs. */
export function batonTools(turn, tools = []) {
  const baton = turn.tools.map((t) =>
    tool({
      name: t.name,
      description: t.description,
      parameters: parameters(t.parameters),
      strict: false,
      execute: async (args) => JSON.stringify(await t.execute(args)),
    }),
  );
  // The notices Baton gave each allowed call (M3), by call id, for its result.
  const notices = new Map();
  const guard = defineToolInputGuardrail({
    name: "baton",
    run: async ({ toolCall }) => {
      const r = await turn.report(toolCall.name, parse(toolCall.arguments));
      if (r.refused) return Guard.rejectContent(r.refused.error, r.refused);
      notices.set(toolCall.callId, r.notices);
      return Guard.allow();
    },
  });
  const own = tools.map((t) => {
    if (t.type !== "function") return t;
    const invoke = async (ctx, input, details) => {
      const out = await t.invoke(ctx, input, details);
      const id = details?.toolCall?.callId;
      const given = notices.get(id) ?? [];
      notices.delete(id);
      if (!given.length) return out;
      return JSON.stringify(turn.withNotices(out, given));
    };
    return { ...t, inputGuardrails: [...(t.inputGuardrails ?? []), guard], invoke };
  });
  return [...baton, ...own];
}

/**
 * An agent for `Host.agent` from an SDK `Agent` (its model, instructions and own tools):
 * `maxTurns` bounds one run (default 20); `onCancel: "abort"` stops a cancelled child's run.
 */
export function openaiAgent(agent, { maxTurns = 20, onCancel } = {}) {
  const history = new Map();
  return {
    tools: agent.tools.filter((t) => t.type === "function").map((t) => t.name),
    onCancel,
    async run(turn) {
      const withBaton = agent.clone({ tools: batonTools(turn, agent.tools) });
      const input = [...(history.get(turn.threadId) ?? []), { role: "user", content: turn.input }];
      const result = await run(withBaton, input, { signal: turn.signal, maxTurns });
      history.set(turn.threadId, result.history);
      return typeof result.finalOutput === "string" ? result.finalOutput : JSON.stringify(result.finalOutput);
    },
  };
}
