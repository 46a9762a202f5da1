// `baton-engine/remote`: a workspace of a running `baton serve`, with the engine's interface
// for the host driver — `call` and `host` over JSON-RPC, the effects followed on `/effects`
// (Server-Sent Events) and resumed with `Last-Event-ID`. The server runs the time rules
// itself, so there is no deadline here. With `cursorFile`, the last effect handed over is kept
// on disk before it is handed over: a restarted host resumes after it, so no effect is handed
// over twice or lost (Node only).
import { BatonError } from "./api.js";

export class RemoteBaton {
  /** `url` (`http://127.0.0.1:7410`), `workspace`, `key` (a host or admin key), `cursorFile`. */
  static async connect({ url, workspace, key, cursorFile }) {
    const r = new RemoteBaton();
    r.base = `${url.replace(/\/$/, "")}/w/${encodeURIComponent(workspace)}`;
    r.key = key;
    r.cursorFile = cursorFile ?? null;
    r.fs = cursorFile ? await import("node:fs") : null;
    r.cursor = 0;
    if (r.fs?.existsSync(cursorFile)) r.cursor = Number(r.fs.readFileSync(cursorFile, "utf8").trim()) || 0;
    r.buffer = [];
    r.listeners = new Set();
    r.arrivals = new Set();
    r.nextId = 1;
    r.controller = new AbortController();
    r.following = r.#follow();
    return r;
  }

  async #rpc(method, params) {
    const res = await fetch(`${this.base}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.key}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
    });
    const body = await res.json();
    if (body.error) throw new BatonError({ ...body.error, name: body.error.data?.name ?? body.error.name, field: body.error.data?.field, rule: body.error.data?.rule });
    return body.result;
  }

  call(tool, args, caller) {
    return this.#rpc("call", { tool, args: args ?? {}, as: caller });
  }

  host(input, args) {
    return this.#rpc("host", { input, args: args ?? {} });
  }

  /** The server ticks itself. */
  tick() {}

  nextDeadline() {
    return null;
  }

  takeEffects() {
    return this.buffer.splice(0);
  }

  /** Calls `fn` whenever effects arrived (the driver then takes them). */
  onEffects(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Resolves once every effect the server holds now has been handed over. */
  async settled() {
    for (;;) {
      const { effects } = await this.#rpc("effects", { after: this.cursor, limit: 1 });
      const waiting = effects.length && effects[0].seq > this.cursor;
      if (!waiting) return;
      // wait for the stream to hand it over (or look again shortly: it may have come meanwhile)
      await new Promise((r) => {
        const t = setTimeout(r, 100);
        this.arrivals.add(() => (clearTimeout(t), r()));
      });
    }
  }

  close() {
    this.controller.abort();
  }

  async #follow() {
    const dec = new TextDecoder();
    while (!this.controller.signal.aborted) {
      try {
        const res = await fetch(`${this.base}/effects`, {
          headers: { authorization: `Bearer ${this.key}`, "last-event-id": String(this.cursor) },
          signal: this.controller.signal,
        });
        if (res.status !== 200) throw new Error(`/effects answered ${res.status}`);
        const reader = res.body.getReader();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let id = null;
            let data = "";
            for (const line of block.split("\n")) {
              if (line.startsWith("id:")) id = Number(line.slice(3).trim());
              if (line.startsWith("data:")) data += line.slice(5).trim();
            }
            if (id === null || id <= this.cursor || !data) continue;
            this.#deliver(id, JSON.parse(data));
          }
        }
      } catch (e) {
        if (this.controller.signal.aborted) return;
      }
      // The stream ended (a restart of the server): resume after the last effect.
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  #deliver(id, effect) {
    this.cursor = id;
    if (this.cursorFile) {
      const fd = this.fs.openSync(`${this.cursorFile}.tmp`, "w");
      this.fs.writeSync(fd, String(id));
      this.fs.fsyncSync(fd);
      this.fs.closeSync(fd);
      this.fs.renameSync(`${this.cursorFile}.tmp`, this.cursorFile);
    }
    delete effect.seq;
    this.buffer.push(effect);
    for (const fn of this.listeners) fn();
    for (const r of this.arrivals) r();
    this.arrivals.clear();
  }
}
