// Types of `baton-engine/remote`: a workspace of a running `baton serve` for the host driver.
import type { Caller } from "./index.js";
import type { Effect, HostInputs, HostResults, ToolArgs, ToolResults } from "./tools.js";

export declare class RemoteBaton {
  /** Connects to `url`'s workspace with a host (or admin) key; follows `/effects` from the
   * effect after the one `cursorFile` holds (Node), or from the start. */
  static connect(options: { url: string; workspace: string; key: string; cursorFile?: string }): Promise<RemoteBaton>;
  call<T extends keyof ToolArgs>(tool: T, args: ToolArgs[T], caller: Caller): Promise<ToolResults[T]>;
  host<K extends keyof HostInputs>(input: K, args: HostInputs[K]): Promise<HostResults[K]>;
  /** The effects that arrived since the last call. */
  takeEffects(): Effect[];
  /** Calls `fn` whenever effects arrive; returns an unsubscribe. */
  onEffects(fn: () => void): () => void;
  /** Resolves once every effect the server holds now has been handed over. */
  settled(): Promise<void>;
  /** Always null: the server runs the time rules. */
  nextDeadline(): null;
  tick(): void;
  close(): void;
}
