// The host driver (`baton-engine/host`): runs Baton's effects with the agents a host
// registers. It owns the effect loop, the deadline timer, the thread → bot bookkeeping and
// the reporting around every turn and tool call (docs/HOST.md), so an adapter only says how
// one turn of one agent runs. No rule is decided here: every check is the engine's.
import { BatonError } from "./api.js";

/** The input of a child's first turn: the task, its context and how to report (G6, G10). */
function childPrompt(e) {
  let text = e.task;
  if (e.context_data && Object.keys(e.context_data).length) text += `\n\nContext: ${JSON.stringify(e.context_data)}`;
  return `${text}\n\n${e.report_to.instructions}`;
}

/** The input of a woken turn: the mail it was woken for, whole (M5). */
function mailPrompt(messages) {
  const parts = messages.map((m) => {
    const subject = m.subject ? ` — ${m.subject}` : "";
    return `From ${m.from_bot_id} (thread ${m.from_thread_id})${subject}:\n${m.body}`;
  });
  return `New mail (${messages.length}):\n\n${parts.join("\n\n")}`;
}

/** The input of a turn resumed with a user's answers (A8). */
function answersPrompt(e) {
  const lines = e.answers.map((a, i) => `${i + 1}. ${typeof a === "string" ? a : JSON.stringify(a)}`);
  return `The user answered question ${e.question_id}:\n${lines.join("\n")}`;
}

/** A tool's result with the notices that go with it, once (M3). */
function withNotices(result, notices) {
  if (!notices.length) return result;
  const plain = result !== null && typeof result === "object" && !Array.isArray(result);
  return plain ? { ...result, notices } : { result, notices };
}

/** Why a turn was stopped for a question (A8): it ends normally, to resume when answered. */
const ENDED_FOR_QUESTION = Symbol("ended for a question");

/** Follow-ups and reminders that reach a live turn, for the adapter to steer it with. */
class Steering {
  #queue = [];
  #waiters = [];
  #subscriber = null;
  push(text) {
    if (this.#subscriber) return this.#subscriber(text);
    const w = this.#waiters.shift();
    if (w) w(text);
    else this.#queue.push(text);
  }
  /** Hands every waiting and every later message to `fn` until the returned function is
   * called (an adapter forwarding them to its framework's own steering). */
  subscribe(fn) {
    this.#subscriber = fn;
    for (const t of this.take()) fn(t);
    return () => {
      if (this.#subscriber === fn) this.#subscriber = null;
    };
  }
  /** Every message waiting now (each handed out once). */
  take() {
    return this.#queue.splice(0);
  }
  /** The next message, waiting for it. */
  next() {
    const t = this.#queue.shift();
    return t !== undefined ? Promise.resolve(t) : new Promise((r) => this.#waiters.push(r));
  }
}

/** The `Host` class over a build's `schemas()` (the package's `host` entries call this). */
export function makeHost(schemas) {
  const toolDefs = () => new Map(schemas().tools.map((t) => [t.name, t]));
  let defs = null;
  return class Host {
  /**
   * `engine`: a `Baton` or `Workspace` of this package, or a `RemoteBaton` (a workspace of a
   * running `baton serve`, `baton-engine/remote`). Options: `now` (the clock, default
   * `Date.now`), `onEffect(effect)` (called for every effect, before the driver acts on it),
   * `onCancel` (`"finish"`, the default: a cancelled child's turn runs to its end (C1);
   * `"abort"`: its signal is aborted), `onQuestion({question_id, thread_id, questions,
   * inline})` (a model asked the user, A8: resolve to the answers, in question order, and the
   * driver sends them; resolve to `undefined` to answer later with `answer()`).
   */
  constructor(engine, { now = Date.now, onEffect, onCancel = "finish", onQuestion } = {}) {
    this.engine = engine;
    this.now = now;
    this.onEffect = onEffect;
    this.onCancel = onCancel;
    this.onQuestion = onQuestion;
    this.agents = new Map();
    this.bots = new Map(); // thread → its bot, as far as this host has seen
    this.parked = []; // turns for agents not registered yet
    this.live = new Map(); // thread → the turn running on it
    this.chains = new Map(); // thread → the promise of its last turn (turns of a thread run one at a time)
    this.running = new Set();
    this.watches = new Map(); // handoff → resolve, or the watch_returned effect that came first
    this.timer = null;
    this.closed = false;
    // A remote engine (`baton-engine/remote`) hands effects over as they arrive.
    this.unfollow = engine.onEffects?.(() => this.#pump()) ?? null;
  }

  /** One command to the engine, then its effects. */
  async #cmd(f) {
    try {
      return await f();
    } finally {
      this.#pump();
    }
  }

  host(input, args) {
    return this.#cmd(() => this.engine.host(input, args, this.now()));
  }

  call(tool, args, caller) {
    return this.#cmd(() => this.engine.call(tool, args, caller, this.now()));
  }

  /**
   * Registers an agent: `run(turn)` runs one turn and resolves to the model's final text.
   * `tools` names the agent's own tools (declared to Baton with Baton's groups, G13);
   * `options` are `register_agent`'s other arguments (`display_name`, `tool_policy`, …) and
   * `onCancel` for this agent.
   */
  async agent(botId, { run, tools = [], onCancel, ...options }) {
    const groups = options.groups ?? ["project_manager_tools", "relay_tools", "coordination_tools"];
    delete options.groups;
    this.agents.set(botId, { run, onCancel: onCancel ?? this.onCancel });
    const registered = await this.host("register_agent", { bot_id: botId, tools: [...groups, ...tools], ...options });
    const mine = this.parked.filter((p) => p.botId === botId);
    this.parked = this.parked.filter((p) => p.botId !== botId);
    for (const p of mine) this.#spawn(p.threadId, p.botId, p.what);
    return registered;
  }

  /** Opens a conversation of `botId` (`open_thread`); resolves to its thread id. */
  async open(botId, options = {}) {
    const r = await this.host("open_thread", { bot_id: botId, ...options });
    return r.thread_id;
  }

  /** Runs a turn of a thread on what a user said; resolves to its final text. */
  async send(threadId, input) {
    return this.#turn(threadId, await this.#botOf(threadId), { kind: "user", input });
  }

  /** Answers a question a model asked (`ask_user`, A8): the run resumes with the answers. */
  answer(questionId, answers) {
    return this.host("answer_user", { question_id: questionId, answers });
  }

  /** The bot that owns a thread. */
  async #botOf(threadId) {
    const known = this.bots.get(threadId);
    if (known) return known;
    const { thread } = await this.host("get_thread", { thread_id: threadId });
    this.bots.set(threadId, thread.bot_id);
    return thread.bot_id;
  }

  /** After a restart: runs again the children that were cut off or never started, and ends
   * the other turns that were cut off (their input is not Baton's to know). */
  async recover() {
    const flying = await this.host("in_flight", {});
    const rerun = new Set();
    for (const c of flying.children) {
      if (c.start.effect !== "start_child") continue;
      rerun.add(c.start.thread_id);
      this.#startChild(c.start, true);
    }
    for (const t of flying.turns) {
      if (!rerun.has(t.thread_id)) await this.host("turn_ended", { thread_id: t.thread_id });
    }
    return flying;
  }

  /** Resolves when no turn runs and no deadline is due. */
  async idle() {
    for (;;) {
      if (this.running.size) {
        await Promise.allSettled([...this.running]);
        continue;
      }
      if (this.engine.settled) {
        // remote: wait for the effects the server holds, then look again
        await this.engine.settled();
        this.#pump();
        if (this.running.size) continue;
      }
      const due = this.engine.nextDeadline();
      if (due !== null && due <= this.now()) {
        await this.#cmd(() => this.engine.tick(this.now()));
        continue;
      }
      if (await this.#unpark()) continue;
      return;
    }
  }

  /** Stops the timer; running turns are left to finish. */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.unfollow?.();
  }

  #pump() {
    for (const e of this.engine.takeEffects()) this.#dispatch(e);
    this.#arm();
  }

  #arm() {
    clearTimeout(this.timer);
    const due = this.engine.nextDeadline();
    if (this.closed || due === null) return;
    this.timer = setTimeout(() => {
      this.#cmd(() => this.engine.tick(this.now())).catch(() => {});
    }, Math.min(Math.max(0, due - this.now()), 2 ** 31 - 1));
    this.timer.unref?.();
  }

  #dispatch(e) {
    this.onEffect?.(e);
    switch (e.effect) {
      case "start_child":
        return this.#startChild(e, false);
      case "watch_returned": {
        const w = this.watches.get(e.handoff_id);
        if (typeof w === "function") w(e);
        else this.watches.set(e.handoff_id, e);
        return;
      }
      case "wake":
        return this.#spawn(e.thread_id, e.bot_id, { kind: "wake", input: mailPrompt(e.messages), effect: e });
      case "follow_up":
      case "nudge":
        return this.#deliver(e.thread_id, { kind: e.effect, input: e.effect === "follow_up" ? e.message : e.text, effect: e }, e.bot_id);
      case "handoff_cancelled": {
        const live = this.live.get(e.thread_id);
        if (live && this.agents.get(e.bot_id)?.onCancel === "abort") live.controller.abort(new Error("handoff cancelled"));
        return;
      }
      case "start_sibling":
        return this.#spawn(e.thread_id, e.bot_id, { kind: "sibling", input: e.context, effect: e });
      case "system_message":
        return this.#deliver(e.thread_id, { kind: "system", input: e.text, effect: e });
      case "run_schedule":
        return this.#spawn(e.thread_id, e.bot_id, { kind: "schedule", input: `Run the scheduled skill ${e.skill_name} now.`, effect: e });
      case "start_leg":
        return this.#track(this.#leg(e));
      case "leg_result":
        return this.#deliver(e.parent_thread_id, { kind: "leg_result", input: e.result, effect: e });
      case "start_follow_up_task":
        return this.#track(
          this.host("start_task", { thread_id: e.thread_id }).then(() => this.#spawn(e.thread_id, e.bot_id, { kind: "follow_up_task", input: e.prompt, effect: e })),
        );
      case "ask_inline":
      case "end_run":
        return this.#track(this.#question(e));
      case "resume_run":
        return this.#deliver(e.thread_id, { kind: "resume", input: answersPrompt(e), effect: e });
      default:
        return; // left to onEffect (docs/HOST.md lists them)
    }
  }

  /** Work the driver started that `idle()` waits for. */
  #track(p) {
    const q = p.catch(() => {});
    this.running.add(q);
    q.finally(() => this.running.delete(q));
  }

  /** Into the thread's live turn as steering, or else as a turn of its own (of `botId`, or
   * the thread's bot, looked up). */
  #deliver(threadId, what, botId) {
    const live = this.live.get(threadId);
    // a turn stopping for a question takes nothing more: what comes runs after it
    if (live && !live.ending) return live.steering.push(what.input);
    if (botId) return this.#spawn(threadId, botId, what);
    this.#track(this.#botOf(threadId).then((bot) => this.#spawn(threadId, bot, what)));
  }

  /** A leg (A1): a turn of the parent's agent on the leg's own thread, which sees none of the
   * parent conversation; its final text is the report (A3), a failure `leg_failed`. */
  async #leg(e) {
    const bot = await this.#botOf(e.parent_thread_id);
    this.bots.set(e.thread_id, bot);
    let text;
    try {
      text = await this.#turn(e.thread_id, bot, { kind: "leg", input: e.system_prompt ? `${e.system_prompt}\n\n${e.task}` : e.task, effect: e });
    } catch (err) {
      await this.host("leg_failed", { leg_id: e.leg_id, error: String(err?.message ?? err) || "the leg failed" });
      return;
    }
    await this.host("leg_report", { leg_id: e.leg_id, text: typeof text === "string" && text.trim() ? text : "(no report)" });
  }

  /** A model asked the user (A8). `end_run`: its turn ends now (it resumes with the answers,
   * `resume_run`); `ask_inline`: it goes on and the answers reach it as steering. */
  async #question(e) {
    if (e.effect === "end_run") {
      const live = this.live.get(e.thread_id);
      if (live) {
        live.ending = true;
        live.controller.abort(ENDED_FOR_QUESTION);
      }
    }
    if (!this.onQuestion) return;
    const answers = await this.onQuestion({ question_id: e.question_id, thread_id: e.thread_id, questions: e.questions, inline: e.effect === "ask_inline" });
    if (answers !== undefined) await this.answer(e.question_id, answers);
  }

  #startChild(e, restarted) {
    this.#spawn(e.thread_id, e.bot_id, { kind: "task", input: childPrompt(e), effect: e, restarted });
  }

  /** A turn for an agent this host runs; one for an agent not registered yet waits for it
   * (a restarted host gets effects before it has registered all its agents). */
  #spawn(threadId, botId, what) {
    if (!this.agents.has(botId)) {
      this.parked.push({ threadId, botId, what });
      return;
    }
    this.#turn(threadId, botId, what).catch(() => {});
  }

  /** When nothing else runs: the children still waiting for an agent no one registered could
   * not be started (`start_failed`, G18); other waiting turns are dropped. */
  async #unpark() {
    const left = this.parked.splice(0);
    for (const p of left) {
      if (p.what.effect?.effect === "start_child") {
        await this.host("start_failed", { thread_id: p.threadId, error: `no agent '${p.botId}' runs on this host` }).catch(() => {});
      }
    }
    return left.length > 0;
  }

  /** Runs one turn of a thread after the turns before it. */
  #turn(threadId, botId, what) {
    const before = this.chains.get(threadId) ?? Promise.resolve();
    const p = before.catch(() => {}).then(() => this.#run(threadId, botId, what));
    this.chains.set(threadId, p);
    this.running.add(p);
    p.finally(() => this.running.delete(p)).catch(() => {});
    return p;
  }

  async #run(threadId, botId, what) {
    const agent = this.agents.get(botId);
    if (!agent) throw new BatonError({ code: -32001, name: "not_found", message: `no agent '${botId}' runs on this host` });
    const controller = new AbortController();
    const turn = {
      threadId,
      botId,
      restarted: what.restarted ?? false,
      kind: what.kind,
      input: what.input,
      effect: what.effect ?? null,
      signal: controller.signal,
      steering: new Steering(),
      controller,
    };
    // Live before the first await, so a follow-up or a cancel that comes meanwhile finds it.
    this.live.set(threadId, turn);
    this.bots.set(threadId, botId);
    try {
      await this.host("turn_started", { thread_id: threadId });
      if (controller.signal.aborted) throw controller.signal.reason;
      const { tools } = await this.host("tools_for", { thread_id: threadId });
      turn.tools = this.#batonTools(threadId, botId, tools);
      turn.wrap = (name, fn) => this.#reported(threadId, name, fn);
      // for a framework that checks a call in a hook of its own before running the tool
      turn.report = (name, args) => this.#report(threadId, name, args);
      turn.withNotices = withNotices;
      const text = await agent.run(turn);
      if (typeof text === "string" && text.length) await this.host("response", { thread_id: threadId, text });
      this.live.delete(threadId);
      await this.host("turn_ended", { thread_id: threadId });
      // Follow-ups the turn did not take in run as the thread's next turn (H1).
      const left = turn.steering.take();
      if (left.length) this.#spawn(threadId, botId, { kind: "follow_up", input: left.join("\n\n") });
      return text;
    } catch (err) {
      this.live.delete(threadId);
      if (turn.ending) {
        // stopped for a question (A8): the run ends as any other and resumes when answered
        await this.host("turn_ended", { thread_id: threadId });
        return null;
      }
      await this.host("child_error", { thread_id: threadId, error: String(err?.message ?? err) || "the turn failed" });
      throw err;
    }
  }

  /** A tool call reported to Baton before it runs (`tool_call`): `{ notices }` to go with its
   * result (M3), or `{ refused }` (G13: the error for the model; the tool must not run). */
  async #report(threadId, name, args) {
    try {
      const used = await this.host("tool_call", { thread_id: threadId, tool: name, arguments: args ?? null });
      return { notices: used.notices };
    } catch (e) {
      if (e instanceof BatonError) return { refused: { error: e.message, code: e.code, codeName: e.codeName } };
      throw e;
    }
  }

  /** `fn` (one of the agent's own tools) reported before it runs: refused calls do not run (G13). */
  #reported(threadId, name, fn) {
    return async (args, ...rest) => {
      const r = await this.#report(threadId, name, args);
      return r.refused ?? withNotices(await fn(args, ...rest), r.notices);
    };
  }

  /** Baton's tools for a thread, caller bound, each reported and, for a watched `handoff`,
   * answered when its watch returns (G9). */
  #batonTools(threadId, botId, names) {
    defs ??= toolDefs();
    const caller = { thread: threadId, bot: botId };
    return names
      .filter((n) => defs.has(n))
      .map((name) => ({
        name,
        description: defs.get(name).description,
        parameters: defs.get(name).parameters,
        execute: this.#reported(threadId, name, async (args) => {
          let out;
          try {
            out = await this.call(name, args ?? {}, caller);
          } catch (e) {
            if (e instanceof BatonError) return { error: e.message, code: e.code, codeName: e.codeName, field: e.field };
            throw e;
          }
          if (name === "handoff" && out.success && args?.async_mode === false) {
            out = { ...out, watch: await this.#watch(out.handoff_id) };
          }
          return out;
        }),
      }));
  }

  #watch(handoffId) {
    const early = this.watches.get(handoffId);
    if (early && typeof early !== "function") {
      this.watches.delete(handoffId);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => {
      this.watches.set(handoffId, (e) => {
        this.watches.delete(handoffId);
        resolve(e);
      });
    });
  }
};
}
