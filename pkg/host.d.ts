// Types of `baton-engine/host`, the host driver.
import type { Baton, Workspace } from "./index.js";
import type { RemoteBaton } from "./remote.js";
import type { Effect, HostResults } from "./tools.js";

/** Follow-ups (H1) and reminders (S7) that reach a live turn. */
export interface Steering {
  /** Every message waiting now, each handed out once. */
  take(): string[];
  /** The next message, waiting for it. */
  next(): Promise<string>;
  /** Hands every waiting and later message to `fn` until the returned function is called;
   * a message handed back with `push` after the turn ends runs as the thread's next turn. */
  subscribe(fn: (text: string) => void): () => void;
  push(text: string): void;
}

/** One of Baton's tools for the running thread: caller bound, reported (`tool_call`) before it
 * runs; a refusal (G13) or an engine error comes back as `{ error, code, codeName }`. */
export interface BoundTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: object;
  execute(args: Record<string, unknown>): Promise<unknown>;
}

/** One turn of one thread, as the driver hands it to an agent's `run`. */
export interface Turn {
  threadId: string;
  botId: string;
  /** What started it: a user's message, a child's task, a wake with mail, a follow-up, a reminder,
   * a sibling taking over (`start_sibling`), a system message, a schedule come due (A6), a leg on
   * its own thread (A1: its final text is the report), a leg's result for its parent, a
   * background group's follow-up task (A5), a run resumed with a user's answers (A8). */
  kind:
    | "user"
    | "task"
    | "wake"
    | "follow_up"
    | "nudge"
    | "sibling"
    | "system"
    | "schedule"
    | "leg"
    | "leg_result"
    | "follow_up_task"
    | "resume";
  /** The turn's input for the model: the task with its report instructions, the mail, the follow-up. */
  input: string;
  /** The effect that started it (`start_child`, `wake`, …), or null for a user's turn. */
  effect: Effect | null;
  /** True when a restarted host runs a child again that was cut off (`in_flight`). */
  restarted: boolean;
  /** Aborted when the handoff is cancelled and the agent asked for `onCancel: "abort"`, and when
   * the model asked the user outside an interactive terminal (A8: the run ends, to resume). */
  signal: AbortSignal;
  steering: Steering;
  /** Baton's tools this thread may call now (`tools_for`). */
  tools: BoundTool[];
  /** Wraps one of the agent's own tools so each call is reported and checked (G13) first. */
  wrap<A, R>(name: string, fn: (args: A) => R | Promise<R>): (args: A) => Promise<R | { error: string; code: number }>;
  /** Reports one of the agent's own tool calls (`tool_call`) before it runs, for a framework
   * that checks calls in a hook of its own: `notices` go with its result (M3); `refused` is the
   * error for the model (G13), and the tool must not run. */
  report(name: string, args: unknown): Promise<{ notices: string[]; refused?: undefined } | { refused: { error: string; code: number; codeName: string }; notices?: undefined }>;
  /** A result with the notices that go with it. */
  withNotices<R>(result: R, notices: string[]): R | { result: R; notices: string[] } | (R & { notices: string[] });
}

export interface AgentOptions {
  /** Runs one turn; resolves to the model's final text. A throw reports `child_error`. */
  run(turn: Turn): Promise<string | void>;
  /** The agent's own tool names (declared to Baton beside its groups). */
  tools?: string[];
  /** Baton's tool groups the agent has (default: all three). */
  groups?: string[];
  display_name?: string;
  tool_policy?: "allow_all" | "allowlist";
  tool_access_list?: string[];
  /** What a cancel does to this agent's running turn (default: the host's). */
  onCancel?: "finish" | "abort";
}

export interface HostOptions {
  /** The clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** Called with every effect before the driver acts on it. */
  onEffect?: (effect: Effect) => void;
  /** `"finish"` (default): a cancelled child's turn runs to its end (C1); `"abort"`: its signal is aborted. */
  onCancel?: "finish" | "abort";
  /** A model asked the user (`ask_user`, A8): resolve to the answers in question order (the driver
   * sends them), or to `undefined` to answer later with `Host.answer`. `inline`: the run goes on
   * and the answers reach it as steering; else it ended and resumes with them. */
  onQuestion?: (question: {
    question_id: string;
    thread_id: string;
    questions: Array<{ question: string; kind: string; options?: string[]; detail?: string }>;
    inline: boolean;
  }) => Promise<unknown[] | undefined> | unknown[] | undefined;
}

/** The host driver over an embedded engine or a `baton serve` workspace: effect loop, deadline timer, turn and tool-call
 * reporting, children, synchronous watches, wakes with their mail, follow-ups, cancels, sibling starts, legs and
 * background groups, schedules, questions, restarts. */
export declare class Host {
  constructor(engine: Baton | Workspace | RemoteBaton, options?: HostOptions);
  /** Registers an agent this host runs. Work for an agent not registered yet (effects a restarted
   * host gets before its `agent` calls) waits for it; once the host is idle, a child whose agent
   * no one registered is reported `start_failed` (G18). */
  agent(botId: string, options: AgentOptions): Promise<HostResults["register_agent"]>;
  /** Opens a conversation of `botId`; resolves to its thread id. */
  open(botId: string, options?: { thread_id?: string; title?: string }): Promise<string>;
  /** Runs a turn of a thread on what a user said; resolves to its final text. */
  send(threadId: string, input: string): Promise<string | void>;
  /** Answers a question a model asked (`answer_user`, A8). */
  answer(questionId: string, answers: unknown[]): Promise<unknown>;
  /** After a restart: runs again the children that were cut off or never started. */
  recover(): Promise<HostResults["in_flight"]>;
  /** Resolves when no turn runs and no deadline is due. */
  idle(): Promise<void>;
  close(): void;
}
