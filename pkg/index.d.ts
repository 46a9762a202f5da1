// Types of the baton-engine package. Tool argument and result types come from tools.d.ts,
// which `baton typescript` generates from the Rust types the engine parses and answers.
import type { ToolArgs, ToolResults } from "./tools.js";
export type * from "./tools.js";

/** Who makes a tool call. Handoff tools need `thread`; relay tools act as `handle`. */
export interface Caller {
  thread?: string;
  bot?: string;
  handle?: string;
}

/** A host input's result object. */
export type ToolResult = Record<string, unknown>;

/** Something the host does on Baton's behalf (`effect` names the kind). */
export interface Effect {
  effect: string;
  [key: string]: unknown;
}

/** An error answered by the engine. Branch on `code` / `codeName`. */
export declare class BatonError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly field: string | null;
  readonly rule: string | null;
  readonly data: unknown;
}

export declare class Baton {
  /** A new engine; `seed` picks the id sequence (random when omitted). */
  constructor(seed?: number);
  /** Rebuilds an engine from `exportLog()` text. */
  static fromLog(log: string, seed: number): Baton;
  /** A model's tool call. Throws BatonError. */
  call<T extends keyof ToolArgs>(tool: T, args: ToolArgs[T], caller: Caller, now?: number): ToolResults[T];
  /** A host input (`baton host-inputs` lists them). Throws BatonError. */
  host(input: string, args?: Record<string, unknown>, now?: number): ToolResult;
  /** Runs the time rules due at `now`. */
  tick(now?: number): void;
  /** When `tick` next has work (ms since the epoch), or null. */
  nextDeadline(): number | null;
  /** The effects emitted since the last call. */
  takeEffects(): Effect[];
  /** The log as JSON lines. */
  exportLog(): string;
  /** Calls `fn` with what each accepted command changed (its log record); returns an unsubscribe. */
  subscribe(fn: (record: LogRecord) => void): () => void;
  readonly seed: number;
}

/** One accepted command as stored: what it changed (post-images of the records it touched). */
export interface LogRecord {
  v: number;
  seq: number;
  at: number;
  command: string;
  id_seq: number;
  changes: Array<{ kind: string; [key: string]: unknown }>;
}

/** A workspace persisted in IndexedDB (browsers): one transaction per accepted command,
 * acknowledged after it commits; commands are queued; other tabs' records are absorbed. */
export declare class Workspace {
  static open(name: string, seed?: number): Promise<Workspace>;
  /** Creates a workspace from `exportLog()` text and its seed (refused if it has records). */
  static import(name: string, log: string, seed: number): Promise<Workspace>;
  static delete(name: string): Promise<void>;
  call<T extends keyof ToolArgs>(tool: T, args: ToolArgs[T], caller: Caller, now?: number): Promise<ToolResults[T]>;
  host(input: string, args?: Record<string, unknown>, now?: number): Promise<ToolResult>;
  tick(now?: number): Promise<void>;
  /** Absorbs records other tabs stored; resolves to how many. */
  reload(): Promise<number>;
  nextDeadline(): number | null;
  takeEffects(): Effect[];
  exportLog(): Promise<string>;
  /** Calls `fn` with what each command (or absorbed record) changed; returns an unsubscribe. */
  subscribe(fn: (record: LogRecord) => void): () => void;
  readonly seed: number;
}

/** Every tool's definition, in the function-calling shape. */
export declare function tools(): Array<{ type: "function"; function: { name: keyof ToolArgs; description: string; parameters: object } }>;
/** Runs a scenario script; the output equals `baton run`'s byte for byte. */
export declare function runScript(script: string): string;
