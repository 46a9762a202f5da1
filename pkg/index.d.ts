// Types of the baton-engine package. Tool argument and result types come from tools.d.ts,
// which `baton typescript` generates from the Rust types the engine parses and answers.
import type { ToolArgs, ToolResults, HostInputs, HostResults, Effect } from "./tools.js";
export type * from "./tools.js";

/** Who makes a tool call. Handoff tools need `thread`; relay tools act as `handle`. */
export interface Caller {
  thread?: string;
  bot?: string;
  handle?: string;
}

/** A host input's name. */
export type HostInputName = keyof HostInputs;

/** An error answered by the engine. Branch on `code` / `codeName`. */
export declare class BatonError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly field: string | null;
  readonly rule: string | null;
  readonly data: unknown;
}

/** A store a host brings for `Baton.open` (the package's `FileStore` is one, for Node).
 * Every method is synchronous; a throw is a storage failure. */
export interface Store {
  /** What the store holds, in the `exportLog()` form: the latest snapshot's lines, then the
   * records after it, one JSON line each (a string, or an array of its lines). Records the
   * snapshot already holds may be left in; they are skipped. */
  load(): string | string[];
  /** Stores one record (a JSON line, without its newline) durably before returning. A throw
   * refuses the command and changes nothing — the store must then hold none of the line. */
  append(line: string): void;
  /** Replaces the snapshot with `text` (JSON lines: the state after record `seq`), atomically:
   * a torn snapshot must never replace a whole one. Records up to `seq` may then be dropped. */
  snapshot(text: string, seq: number): void;
  /** Records between snapshots (default 10000; the engine also waits at least as many
   * records as the workspace holds, so a snapshot's cost stays a bounded share). */
  readonly snapshotEvery?: number;
  /** The workspace's id seed, if the store keeps it (it then wins over `Baton.open`'s). */
  readonly seed?: number;
  /** Called by `Baton.close()`. */
  close?(): void;
}

/** A durable store for Node hosts: a directory with `meta.json` (seed), `snapshot.jsonl` and
 * `log.jsonl`; one process writes it at a time (`lock`; a dead process's lock is taken over). `fsync: "always"` (default) makes each record durable before the command is
 * acknowledged; `"never"` survives a process crash but not a machine crash. A torn last line
 * left by a crash is dropped on open (see `recovered`). Node only. */
export declare class FileStore implements Store {
  static open(dir: string, options?: { seed?: number; fsync?: "always" | "never"; snapshotEvery?: number }): FileStore;
  readonly dir: string;
  readonly seed: number;
  readonly fsync: "always" | "never";
  readonly snapshotEvery?: number;
  /** What the last `load()` found: bytes of a torn last record it dropped (0: none). */
  readonly recovered: { tornBytes: number };
  load(): string[];
  append(line: string): void;
  snapshot(text: string, seq: number): void;
  close(): void;
}

export declare class Baton {
  /** A new engine over the compact in-memory store (memory bounded by the live workspace,
   * not its history); `seed` picks the id sequence (random when omitted). */
  constructor(seed?: number);
  /** Rebuilds an engine from `exportLog()` text (or a log of JSON lines from any version). */
  static fromLog(log: string, seed: number): Baton;
  /** Opens an engine over a store the host brings, replaying what it holds. */
  static open(store: Store, seed?: number): Baton;
  /** How many recently written records of each kind stay plain values; older ones, and those
   * at rest (a closed handoff) 64 writes after their last, are held sealed (compressed,
   * decoded when read). Default 1024; `Infinity` never seals, and a number set after it
   * seals the older records at the next write of their kind. */
  keepHotRecords(n: number): void;
  /** Hands the store a snapshot now. */
  checkpoint(): void;
  /** Closes the store (if it can be closed). */
  close(): void;
  /** A model's tool call. Throws BatonError. */
  call<T extends keyof ToolArgs>(tool: T, args: ToolArgs[T], caller: Caller, now?: number): ToolResults[T];
  /** A host input (`hostInputs()` lists them). Throws BatonError. */
  host<K extends keyof HostInputs>(input: K, args: HostInputs[K], now?: number): HostResults[K];
  /** Runs the time rules due at `now`. */
  tick(now?: number): void;
  /** When `tick` next has work (ms since the epoch), or null. */
  nextDeadline(): number | null;
  /** The effects emitted since the last call. */
  takeEffects(): Effect[];
  /** The workspace as text: a snapshot of now (JSON lines); `Baton.fromLog` reads it. */
  exportLog(): string;
  /** Calls `fn` with what each accepted command changed (its log record); returns an unsubscribe. */
  subscribe(fn: (record: LogRecord) => void): () => void;
  readonly seed: number;
}

/** One accepted command as stored: what it changed. A record created by the command is whole;
 * a later change to a handoff, thread, activity or mail message (`*_delta` kinds, format 2)
 * holds only the fields that moved, under `set`. */
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
  host<K extends keyof HostInputs>(input: K, args: HostInputs[K], now?: number): Promise<HostResults[K]>;
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
/** Every host input: its name, description, rule, and the JSON Schemas of its arguments and answer. */
export declare function hostInputs(): Array<{ name: HostInputName; description: string; rule: string; parameters: object; result: object | boolean }>;
/** Every JSON Schema Baton publishes (what `baton schemas` prints). */
export declare function schemas(): { tools: Array<{ name: keyof ToolArgs; description: string; parameters: object; result: object }>; host_inputs: ReturnType<typeof hostInputs>; effects: object };
/** Runs a scenario script; the output equals `baton run`'s byte for byte. */
export declare function runScript(script: string): string;
/** The engine's WebAssembly linear memory in bytes (it only grows): its whole heap. */
export declare function memoryBytes(): number;
/** Bytes the engine's heap holds now (allocated and not freed): its memory without the
 * allocator's free space. */
export declare function heapInUse(): number;
