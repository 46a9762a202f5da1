// The scripted models the OpenAI Agents SDK example runs on in the test command: each is an
// SDK `Model` (getResponse) answering by a script of steps — function calls or a final
// message — chosen from what the run's input holds. With OPENAI_API_KEY set, the example
// uses the SDK's own OpenAI models instead.
import { Usage } from "@openai/agents";

let ids = 0;
export const call = (name, args) => ({ type: "function_call", callId: `call_${++ids}`, name, arguments: JSON.stringify(args), status: "completed" });
export const text = (t) => [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t }] }];

/** The step within this turn: function calls after the turn's last user message. */
function turnItems(input) {
  const items = Array.isArray(input) ? input : [{ role: "user", content: input }];
  const lastUser = items.findLastIndex((i) => i.role === "user");
  return items.slice(lastUser + 1);
}

export function scripted(script) {
  return {
    async getResponse(request) {
      const mine = turnItems(request.input);
      // steps taken so far: runs of function calls (one per model response)
      let step = 0;
      mine.forEach((item, k) => item.type === "function_call" && mine[k - 1]?.type !== "function_call" && step++);
      const results = mine.filter((i) => i.type === "function_call_result").map((i) => {
        const raw = i.output?.text ?? i.output;
        try {
          return JSON.parse(raw);
        } catch {
          return raw;
        }
      });
      const output = await script({ step, seen: JSON.stringify(request.input), results, signal: request.signal });
      return { usage: new Usage(), output: Array.isArray(output) ? output : [output], responseId: `resp_${++ids}` };
    },
    async *getStreamedResponse() {
      throw new Error("the scripted models answer getResponse only");
    },
  };
}

/** A fresh set of the delegation's models, one per agent: the lead hands work to adam and
 * zed, waits on eve (a synchronous watch), sends adam a follow-up while his run is live,
 * cancels zed, and when woken with adam's mail reads handoff_results. */
export function scriptedModels() {
  let followUpSent;
  const sent = new Promise((r) => (followUpSent = r));
  const ids = {};
  return {
    lead: scripted(({ step, seen, results }) => {
      if (seen.includes("New mail")) {
        return step === 0 ? call("handoff_results", { handoff_id: ids.adam }) : text(`Adam's findings are in: ${results.at(-1)?.result}`);
      }
      if (step === 0) return [call("handoff", { task: "List the release risks", target_bot: "adam" }), call("handoff", { task: "Benchmark everything", target_bot: "zed" })];
      if (step === 1) {
        Object.assign(ids, { adam: results[0]?.handoff_id, zed: results[1]?.handoff_id });
        return call("handoff", { task: "Check the data", target_bot: "eve", async_mode: false });
      }
      if (step === 2) return [call("handoff_send", { handoff_id: ids.adam, message: "Include the backup job" }), call("handoff_cancel", { handoff_id: ids.zed, reason: "not needed" })];
      followUpSent();
      return text("Delegated: adam lists the risks, eve checked the data, zed was cancelled.");
    }),
    adam: scripted(async ({ step, seen }) => {
      const [, to, bot] = /to_thread_id \\"([^\\"]+)\\", to_bot_id \\"([^\\"]+)\\"/.exec(seen) ?? [];
      if (seen.includes("Include the backup job")) {
        // the follow-up, as the next turn (the SDK cannot steer a live run)
        return step === 0 ? call("mailbox_action", { action: "SEND_MESSAGE", to_thread_id: to, to_bot_id: bot, body: "Also: the backup job" }) : text("Added.");
      }
      if (step === 0) return (await sent, call("mailbox_action", { action: "READ_MAIL" }));
      if (step === 1) return call("mailbox_action", { action: "SEND_MESSAGE", to_thread_id: to, to_bot_id: bot, body: "Risks: cache, migration" });
      return text("Reported.");
    }),
    eve: scripted(() => text("The data is clean.")),
    zed: scripted(({ signal }) => new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)))),
  };
}
