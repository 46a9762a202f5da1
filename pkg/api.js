// The idiomatic JS layer over the wasm-bindgen output: objects in and out, time read at this
// edge (Date.now) when the host does not pass it, errors thrown as BatonError with the core's
// stable code. No rule is decided here.

/** An error answered by the engine; `code` and `name` are stable. */
export class BatonError extends Error {
  constructor(e) {
    super(e.message);
    this.name = "BatonError";
    this.code = e.code;
    this.codeName = e.name;
    this.field = e.field ?? null;
    this.rule = e.rule ?? null;
    this.data = e.data ?? null;
  }
}

function answer(text) {
  const v = JSON.parse(text);
  if (v && typeof v === "object" && !Array.isArray(v) && v.error && typeof v.error.code === "number") {
    throw new BatonError(v.error);
  }
  return v;
}

export function makeApi(wasm) {
  /** Storage itself failed: the core's `storage_failed` error (its code from the core). */
  const storageFailed = (message) => new BatonError(JSON.parse(wasm.storageFailed(message)).error);

  class Baton {
    /** A new engine; `seed` picks the id sequence (random when omitted). */
    constructor(seed) {
      this.inner = new wasm.Baton(seed ?? Math.floor(Math.random() * 2 ** 52));
      this.listeners = new Set();
    }

    /** Calls `fn(record)` with what each accepted command changed (its log record). Returns
     * a function that unsubscribes. */
    subscribe(fn) {
      this.listeners.add(fn);
      return () => this.listeners.delete(fn);
    }

    #notify(before) {
      if (this.listeners.size === 0 || this.inner.logLength() === before) return;
      const record = JSON.parse(this.inner.lastRecord());
      for (const fn of this.listeners) fn(record);
    }

    #run(f) {
      const before = this.inner.logLength();
      try {
        return f();
      } finally {
        this.#notify(before);
      }
    }

    /** Rebuilds an engine from `exportLog()` text. */
    static fromLog(log, seed) {
      const b = new Baton(seed);
      try {
        b.inner = wasm.Baton.fromLog(log, seed);
      } catch (e) {
        throw storageFailed(String(e?.message ?? e));
      }
      return b;
    }

    /** Opens an engine over a store the host brings: `FileStore` (Node), or any object with
     * `load()`, `append(line)` and `snapshot(text, seq)`. The store's `seed`, if it has one,
     * wins over `seed`. */
    static open(store, seed) {
      const s = store?.seed ?? seed ?? Math.floor(Math.random() * 2 ** 52);
      const b = new Baton(s);
      try {
        b.inner = wasm.Baton.openStore(store, s);
      } catch (e) {
        store?.close?.(); // nothing opened: let the store go
        throw storageFailed(String(e?.message ?? e));
      }
      b.store = store;
      return b;
    }

    /**
     * How many recently written records of each kind (handoffs, threads, activity, messages)
     * stay plain values; older ones are held sealed — compressed, decoded when read. Fewer
     * costs less memory per retained handoff; more (or Infinity: never seal) is faster.
     * Default 1024.
     */
    keepHotRecords(n) {
      this.inner.keepHotRecords(n);
    }

    /** Hands the store a snapshot now (stores that keep them; others ignore it). */
    checkpoint() {
      try {
        this.inner.checkpoint();
      } catch (e) {
        throw storageFailed(String(e?.message ?? e));
      }
    }

    /** Closes the store the engine was opened over, if it can be closed. */
    close() {
      this.store?.close?.();
    }

    /** A model's tool call; returns the tool's result object or throws BatonError. */
    call(tool, args, caller, now = Date.now()) {
      return this.#run(() => answer(this.inner.call(tool, JSON.stringify(args ?? {}), JSON.stringify(caller), now)));
    }

    /** A host input; returns its result object or throws BatonError. */
    host(input, args = {}, now = Date.now()) {
      return this.#run(() => answer(this.inner.host(input, JSON.stringify(args), now)));
    }

    /** Runs the time rules due at `now`. */
    tick(now = Date.now()) {
      this.#run(() => answer(this.inner.tick(now)));
    }

    /** When `tick` next has work (ms since the epoch), or null. */
    nextDeadline() {
      return this.inner.nextDeadline() ?? null;
    }

    /** The effects emitted since the last call, for the host to carry out in order. */
    takeEffects() {
      return JSON.parse(this.inner.takeEffects());
    }

    /** The workspace as text (a snapshot of now, JSON lines); `Baton.fromLog` reads it. */
    exportLog() {
      return this.inner.exportLog();
    }

    /** The id seed. */
    get seed() {
      return this.inner.seed;
    }
  }

  /** A workspace whose log lives in IndexedDB (browsers). Commands are queued one at a time;
   * each resolves after its IndexedDB transaction committed. */
  class Workspace {
    static async open(name, seed) {
      if (!wasm.PersistentBaton) throw storageFailed("this build has no IndexedDB workspace");
      const w = new Workspace();
      try {
        w.inner = await wasm.PersistentBaton.open(name, seed ?? Math.floor(Math.random() * 2 ** 52));
      } catch (e) {
        throw storageFailed(String(e?.message ?? e));
      }
      w.queue = Promise.resolve();
      w.listeners = new Set();
      return w;
    }
    /** Calls `fn(record)` with what each command (or absorbed record) changed. */
    subscribe(fn) {
      this.listeners.add(fn);
      return () => this.listeners.delete(fn);
    }
    /** Creates a workspace from `exportLog()` text and its seed (refused if it has records). */
    static async import(name, log, seed) {
      const w = new Workspace();
      try {
        w.inner = await wasm.PersistentBaton.importWorkspace(name, log, seed);
      } catch (e) {
        throw storageFailed(String(e?.message ?? e));
      }
      w.queue = Promise.resolve();
      w.listeners = new Set();
      return w;
    }
    static async delete(name) {
      await wasm.PersistentBaton.deleteWorkspace(name);
    }
    #run(f) {
      const next = this.queue.then(async () => {
        const before = this.inner.logLength();
        try {
          return await f();
        } finally {
          if (this.listeners.size && this.inner.logLength() !== before) {
            const record = JSON.parse(this.inner.lastRecord());
            for (const fn of this.listeners) fn(record);
          }
        }
      });
      this.queue = next.catch(() => {});
      return next;
    }
    call(tool, args, caller, now = Date.now()) {
      return this.#run(async () => answer(await this.inner.call(tool, JSON.stringify(args ?? {}), JSON.stringify(caller), now)));
    }
    host(input, args = {}, now = Date.now()) {
      return this.#run(async () => answer(await this.inner.host(input, JSON.stringify(args), now)));
    }
    tick(now = Date.now()) {
      return this.#run(async () => { answer(await this.inner.tick(now)); });
    }
    /** Absorbs what other tabs stored; resolves to how many records. */
    reload() {
      return this.#run(() => this.inner.reload());
    }
    nextDeadline() {
      return this.inner.nextDeadline() ?? null;
    }
    takeEffects() {
      return JSON.parse(this.inner.takeEffects());
    }
    exportLog() {
      return this.#run(() => this.inner.exportLog());
    }
    get seed() {
      return this.inner.seed;
    }
  }

  return {
    Baton,
    Workspace,
    BatonError,
    /** Every tool's definition, ready for an LLM function-calling API. */
    tools: () => JSON.parse(wasm.tools()),
    /** Every host input: name, description, rule, argument and answer schemas. */
    hostInputs: () => JSON.parse(wasm.schemas()).host_inputs,
    /** Every JSON Schema Baton publishes: tools, host inputs, effects (`baton schemas`). */
    schemas: () => JSON.parse(wasm.schemas()),
    /** Runs a scenario script; the output equals `baton run`'s byte for byte. */
    runScript: (script) => wasm.runScript(script),
    /** The engine's linear memory in bytes (it only grows). */
    memoryBytes: () => wasm.memoryBytes(),
    /** Bytes the engine's heap holds now (allocated, not freed). */
    heapInUse: () => wasm.heapInUse(),
  };
}
