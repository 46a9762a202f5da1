// `baton-engine/ai-sdk`: the Vercel AI SDK (v7) adapter for the host driver. A turn is one
// `generateText` run: Baton's tools for the thread and the agent's own as one `ToolSet` (each
// call reported and checked first), follow-ups and reminders through the SDK's steering, the
// turn's `abortSignal` for cancels, and each thread's conversation carried from turn to turn
// (in memory). `ai` is a peer dependency.
import { generateText, jsonSchema, stepCountIs, tool, experimental_createSteering as createSteering } from "ai";

/** Baton's tools for `turn` and the agent's own `tools` (an AI SDK `ToolSet`), as one
 * `ToolSet`: every call goes through Baton's `tool_call` first (G13). */
export function batonTools(turn, tools = {}) {
  const set = {};
  for (const t of turn.tools) {
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.parameters), execute: (args) => t.execute(args) });
  }
  for (const [name, own] of Object.entries(tools)) {
    set[name] = own.execute ? { ...own, execute: turn.wrap(name, (args, options) => own.execute(args, options)) } : own;
  }
  return set;
}

/**
 * An agent for `Host.agent`: `model`, `instructions` and the agent's own `tools` as the AI SDK
 * takes them; `maxSteps` bounds a turn's tool loop (default 20); other `generateText` settings
 * pass through. `onCancel: "abort"` stops a cancelled child's run.
 */
export function aiSdkAgent({ model, instructions, tools = {}, maxSteps = 20, onCancel, ...settings }) {
  // Each thread's conversation, in this process: a turn sees the turns before it.
  const history = new Map();
  return {
    tools: Object.keys(tools),
    onCancel,
    async run(turn) {
      const steering = createSteering();
      const pending = [];
      const stop = turn.steering.subscribe((text) => pending.push(steering.steer(text).then((o) => [text, o])));
      try {
        const result = await generateText({
          ...settings,
          model,
          instructions,
          messages: [...(history.get(turn.threadId) ?? []), { role: "user", content: turn.input }],
          tools: batonTools(turn, tools),
          stopWhen: stepCountIs(maxSteps),
          abortSignal: turn.signal,
          experimental_steering: steering,
        });
        const before = history.get(turn.threadId) ?? [];
        history.set(turn.threadId, [...before, { role: "user", content: turn.input }, ...result.responseMessages]);
        return result.text;
      } finally {
        stop();
        // A follow-up that came after the last step goes back to the driver: it runs next.
        for (const [text, outcome] of await Promise.all(pending)) if (outcome.type !== "delivered") turn.steering.push(text);
      }
    },
  };
}
