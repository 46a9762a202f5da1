// What the server tests share: starting `baton serve` (target/debug/baton) on a free loopback
// port, JSON-RPC calls, reading an event stream; everything started is killed and every
// temporary directory removed when the test file ends.
import { after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = join(root, "target", "debug", "baton");
export const ADMIN = "test-admin-key";
const dirs = [];
const procs = new Set();
after(() => {
  for (const p of procs) p.kill("SIGKILL");
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

export function tmpDb() {
  const d = fs.mkdtempSync(join(os.tmpdir(), "baton-serve-"));
  dirs.push(d);
  return join(d, "baton.db");
}

/** Starts the server on a free loopback port; resolves once it listens. `under` wraps the
 * command (a program and its arguments before the server's). */
export function start(db, extra = [], under = []) {
  return new Promise((resolve, reject) => {
    const argv = [...under, bin, "serve", "--db", db, "--addr", "127.0.0.1:0", ...extra];
    const p = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, BATON_ADMIN_KEY: ADMIN, RUST_LOG: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    procs.add(p);
    let out = "", err = "";
    p.stderr.on("data", (d) => (err += d));
    p.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[\d.:]+)/);
      if (m) resolve({ p, url: m[1], stderr: () => err });
    });
    p.on("exit", (code) => {
      procs.delete(p);
      reject(new Error(`server exited (${code}) before listening: ${err}`));
    });
  });
}

/** Stops a server with `signal`. One that has not exited 20 s after a SIGTERM (its own
 * shutdown deadline is 10 s) is killed, and that is said on stderr, so a test run never hangs. */
export function stop(s, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (s.p.exitCode !== null || s.p.signalCode !== null) return resolve(s.p.exitCode ?? s.p.signalCode);
    const late = signal === "SIGTERM" ? setTimeout(() => {
      console.error(`# server pid ${s.p.pid} did not exit 20 s after SIGTERM; killed`);
      s.p.kill("SIGKILL");
    }, 20_000) : null;
    s.p.once("exit", (code, sig) => {
      if (late) clearTimeout(late);
      resolve(code ?? sig);
    });
    s.p.kill(signal);
  });
}

export async function rpc(s, ws, key, body) {
  const r = await fetch(`${s.url}/w/${ws}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

let nextId = 1;
export async function method(s, ws, key, name, params) {
  const r = await rpc(s, ws, key, { jsonrpc: "2.0", id: nextId++, method: name, params });
  return r.body;
}

export async function ok(s, ws, key, name, params) {
  const b = await method(s, ws, key, name, params);
  assert.ok(b.result !== undefined, `${name} ${JSON.stringify(params)}: ${JSON.stringify(b)}`);
  return b.result;
}

export const lead = { thread: "chat_main", bot: "lead" };
export async function setup(s, ws) {
  await ok(s, ws, ADMIN, "create_workspace");
  await ok(s, ws, ADMIN, "host", { input: "register_agent", args: { bot_id: "lead" } });
  await ok(s, ws, ADMIN, "host", { input: "register_agent", args: { bot_id: "adam", tools: ["project_manager_tools", "web_search"] } });
  await ok(s, ws, ADMIN, "host", { input: "open_thread", args: { thread_id: "chat_main", bot_id: "lead" } });
}

/** Reads an event stream until `want` events came (or `ms` passed); returns [{id, data}]. */
export async function readEvents(s, ws, key, { lastEventId, want, ms = 5000, path = "events" }) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  const headers = { authorization: `Bearer ${key}` };
  if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
  const got = [];
  try {
    const r = await fetch(`${s.url}/w/${ws}/${path}`, { headers, signal: ctl.signal });
    assert.equal(r.status, 200);
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    while (got.length < want) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const ev = {};
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) ev.id = Number(line.slice(3).trim());
          if (line.startsWith("data:")) ev.data = line.slice(5).trim();
        }
        if (ev.id !== undefined) got.push(ev);
      }
    }
    ctl.abort();
  } catch (e) {
    if (e.name !== "AbortError") throw e;
  } finally {
    clearTimeout(timer);
  }
  return got;
}

