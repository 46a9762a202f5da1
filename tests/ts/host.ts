// A small TypeScript host: routes an LLM's tool calls into Baton with the package's types.
// `tsc --noEmit` over this file is part of the test command.
import { Baton, BatonError, tools, hostInputs, type Caller, type HandoffArgs, type ToolArgs, type Effect } from "../../pkg/index.js";

const baton = new Baton(42);
baton.host("register_agent", { bot_id: "lead", display_name: "Lead" });
baton.host("open_thread", { thread_id: "chat_main", bot_id: "lead" });
const lead: Caller = { thread: "chat_main", bot: "lead" };

const args: HandoffArgs = { task: "Review the generated model", target_bot: "lead", async_mode: true, on_completion: "notify" };
const started = baton.call("handoff", args, lead);
const link: string | null | undefined = started.thread_link;
console.log(link, started.status);
const list = baton.call("handoff_list", {}, lead);
for (const h of list.handoffs) console.log(h.handoff_id, h.live_state, h.age_days.toFixed(2));

// The model's call arrives as (name, JSON arguments); the tool name picks the argument type.
function route<T extends keyof ToolArgs>(name: T, raw: ToolArgs[T]): unknown {
  try {
    return baton.call(name, raw, lead);
  } catch (e) {
    if (e instanceof BatonError) return { error: e.message, code: e.code, field: e.field };
    throw e;
  }
}
route("handoff_list", { limit: 10 });
route("mailbox_action", { action: "READ_MAIL" });
route("check_inbox", { status: ["pending", "accepted"], limit: 20 });

const effects: Effect[] = baton.takeEffects();
for (const e of effects) {
  // `Effect` is a union discriminated by `effect`: each kind's fields are typed.
  switch (e.effect) {
    case "start_child":
      console.log(e.task, e.parent_bot_id, e.report_to.how, e.report_to.instructions);
      break;
    case "wake":
      for (const m of e.messages) console.log(m.from_bot_id, m.subject ?? "", m.body);
      break;
    case "follow_up":
      console.log(e.message, e.to_live_turn, e.report_to.to_thread_id);
      break;
    case "handoff_cancelled":
      console.log(e.handoff_id, e.mid_turn);
      break;
    default:
      console.log(e.effect);
  }
}
// Host inputs and their answers are typed by name.
const turn = baton.host("turn_started", { thread_id: "chat_main" });
const midTurn: boolean = turn.mid_turn;
const used = baton.host("tool_call", { thread_id: "chat_main", tool: "handoff_list" });
const notices: string[] = used.notices;
const flying = baton.host("in_flight", {});
for (const c of flying.children) if (c.start.effect === "start_child") console.log(c.start.task, c.mid_turn);
console.log(midTurn, notices);
// @ts-expect-error no such host input
baton.host("turn_begun", { thread_id: "chat_main" });
// @ts-expect-error turn_ended needs thread_id
baton.host("turn_ended", {});
const due: number | null = baton.nextDeadline();
if (due !== null) baton.tick(due);
console.log(tools().map((t) => t.function.name).join(", "));
console.log(hostInputs().map((h) => `${h.name} (${h.rule})`).join(", "));

// The types catch what the engine would refuse (each line must be a type error).
// @ts-expect-error `task` is required (rule G1)
baton.call("handoff", { target_bot: "lead" }, lead);
// @ts-expect-error thread_mode is spawn or inline (rule G3)
baton.call("handoff", { task: "x", thread_mode: "parallel" }, lead);
// @ts-expect-error no such tool
baton.call("teleport", {}, lead);
// @ts-expect-error handoff answers no `handoffs` field
console.log(started.handoffs);

// A durable workspace for a Node host, and a store of the host's own.
import { FileStore, type Store } from "../../pkg/index.js";
const durable = Baton.open(FileStore.open("/tmp/baton-ts-example", { fsync: "always", snapshotEvery: 5000 }));
durable.checkpoint();
durable.close();
const lines: string[] = [];
const mine: Store = {
  load: () => lines,
  append: (line) => void lines.push(line),
  snapshot: (text, seq) => {
    lines.splice(0, lines.length, ...text.split("\n").filter(Boolean));
    console.log("snapshot after record", seq);
  },
};
Baton.open(mine, 1).host("register_agent", { bot_id: "x" });
// @ts-expect-error fsync is "always" or "never"
FileStore.open("/tmp/x", { fsync: "sometimes" });

// The host driver's types (`baton-engine/host`): an agent is one `run` per turn.
import { Host, type Turn } from "../../pkg/host.js";
const driver = new Host(new Baton(1), { onCancel: "finish" });
await driver.agent("worker", {
  tools: ["web_search"],
  run: async (t: Turn) => {
    const search = t.wrap("web_search", async (q: { query: string }) => `results for ${q.query}`);
    await search({ query: "risks" });
    if (t.effect?.effect === "start_child") console.log(t.effect.report_to.instructions);
    return `${t.input} — ${t.steering.take().join(" ")}`;
  },
});
// @ts-expect-error a turn's kind is one of the driver's
const k: Turn["kind"] = "dream";
console.log(k);
import { RemoteBaton } from "../../pkg/remote.js";
export async function remoteHost(key: string): Promise<Host> {
  const remote = await RemoteBaton.connect({ url: "http://127.0.0.1:7410", workspace: "demo", key, cursorFile: "/tmp/cursor" });
  const answered = await remote.host("tools_for", { thread_id: "chat_main" });
  console.log(answered.tools.length);
  return new Host(remote);
}
// Questions (A8): answered by the host's callback, or later through the driver.
const asking = new Host(new Baton(2), {
  onQuestion: async (q) => (q.inline ? ["yes"] : q.questions.map((x) => x.options?.[0] ?? "")),
});
await asking.answer("question_1", ["eu-west-1"]).catch(() => {});
const resumed: Turn["kind"] = "resume";
console.log(resumed);
