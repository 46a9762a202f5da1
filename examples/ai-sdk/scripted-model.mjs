// The scripted models the AI SDK example runs on in the test command (the AI SDK's own
// MockLanguageModelV4): each agent's model answers by a script of steps, each step either tool
// calls or a final text, chosen from what the prompt holds. With OPENAI_BASE_URL and
// OPENAI_API_KEY set, the example uses a real OpenAI-compatible endpoint instead.
import { MockLanguageModelV4 } from "ai/test";

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
let ids = 0;
const call = (toolName, input) => ({ type: "tool-call", toolCallId: `call_${++ids}`, toolName, input: JSON.stringify(input) });
const text = (t) => ({ content: [{ type: "text", text: t }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
const calls = (...c) => ({ content: c, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] });

/** Everything the model has been shown so far, as one string. */
const seen = (options) => JSON.stringify(options.prompt);
/** The results of this turn's tool calls so far, in order. */
function results(options) {
  const out = [];
  const lastUser = options.prompt.findLastIndex((m) => m.role === "user");
  for (const m of options.prompt.slice(lastUser + 1)) {
    if (m.role !== "tool") continue;
    for (const p of m.content) if (p.type === "tool-result") out.push(p.output?.value ?? p.output);
  }
  return out;
}

/** A model that runs `script(options, step)` for each step of a turn. */
export function scripted(script) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      // the step within this turn: assistant messages after the turn's last user message
      const lastUser = options.prompt.findLastIndex((m) => m.role === "user");
      const step = options.prompt.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
      return script({ options, step, seen: seen(options), results: results(options) });
    },
  });
}

export { call, calls, text };

// The delegation's scripts. The lead hands work to adam and zed, waits on eve (a synchronous
// watch), steers adam's live turn with a follow-up, cancels zed, and when woken with adam's
// report reads handoff_results. Adam holds his first step until the follow-up was sent, so it
// reaches his live turn.
const idOf = (results, i) => results[i]?.handoff_id;
function assertSeen(seen, id) {
  if (!seen.includes(id)) throw new Error(`the woken turn was not shown its thread's history (${id})`);
}

/** The body of `bot`'s mail in the turn's prompt (the host's "New mail" input). */
function mailFrom(options, bot) {
  const user = options.prompt.findLast((m) => m.role === "user");
  const input = user?.content.map((p) => p.text ?? "").join("") ?? "";
  return new RegExp(`From ${bot} \\(thread [^)]*\\)[^\\n]*:\\n([^\\n]*)`).exec(input)?.[1];
}

/** A fresh set of the delegation's models, one per agent. */
export function scriptedModels() {
  let followUpSent;
  const sent = new Promise((r) => (followUpSent = r));
  const ids = {};
  return {
    lead: scripted(({ options, step, seen, results }) => {
      if (seen.includes("New mail")) {
        // the conversation so far holds adam's handoff id (the adapter keeps each thread's history)
        const id = ids.adam;
        assertSeen(seen, id);
        if (step === 0) return calls(call("handoff_results", { handoff_id: id }));
        // Adam's report waited for his follow-up (S5): the handoff completes when his turn ends.
        // Against a server the mail can wake the lead before that; then the results are partial
        // and the lead answers from the mail it was woken with.
        const r = results.at(-1);
        return text(`Adam's findings are in: ${r?.partial ? mailFrom(options, "adam") : r?.result}`);
      }
      if (step === 0) {
        return calls(call("handoff", { task: "List the release risks", target_bot: "adam" }), call("handoff", { task: "Benchmark everything", target_bot: "zed" }));
      }
      if (step === 1) {
        Object.assign(ids, { adam: idOf(results, 0), zed: idOf(results, 1) });
        return calls(call("handoff", { task: "Check the data", target_bot: "eve", async_mode: false }));
      }
      if (step === 2) {
        const { adam, zed } = ids;
        return calls(call("handoff_send", { handoff_id: adam, message: "Include the backup job" }), call("handoff_cancel", { handoff_id: zed, reason: "not needed" }));
      }
      followUpSent();
      return text("Delegated: adam lists the risks, eve checked the data, zed was cancelled.");
    }),
    adam: scripted(async ({ step, seen }) => {
      if (step === 0) return (await sent, calls(call("mailbox_action", { action: "READ_MAIL" })));
      if (step === 1) {
        const [, to, bot] = /to_thread_id \\"([^\\"]+)\\", to_bot_id \\"([^\\"]+)\\"/.exec(seen) ?? [];
        const extra = seen.includes("Include the backup job") ? ", backup job" : "";
        return calls(call("mailbox_action", { action: "SEND_MESSAGE", to_thread_id: to, to_bot_id: bot, body: `Risks: cache, migration${extra}` }));
      }
      return text("Reported.");
    }),
    eve: scripted(() => text("The data is clean.")),
    zed: new MockLanguageModelV4({
      doGenerate: (options) => new Promise((_, reject) => options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal.reason))),
    }),
  };
}
