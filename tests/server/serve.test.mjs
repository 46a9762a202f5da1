// `baton serve` as a process, on loopback only: the JSON-RPC contract (methods, keys and who
// may do what, protocol errors), the event stream's exact resume, a restart that reopens the
// identical workspace, concurrent clients that lose nothing, and kill -9 under a bounded load
// after which every acknowledged command is there. Needs target/debug/baton (scripts/test.sh
// builds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { join, dirname } from "node:path";
import { root, bin, ADMIN, tmpDb, start, stop, rpc, method, ok, lead, setup, readEvents } from "./helpers.mjs";

test("serve --help lists the endpoints and methods", async () => {
  const out = await new Promise((resolve) => {
    const p = spawn(bin, ["serve", "--help"]);
    let o = "";
    p.stdout.on("data", (d) => (o += d));
    p.on("exit", () => resolve(o));
  });
  for (const word of ["--db", "--addr", "--sync", "BATON_ADMIN_KEY", "/healthz", "/metrics", "/rpc", "/events", "create_key", "list_keys", "revoke_key", "rotate_key", "Baton-As", "Last-Event-ID"]) {
    assert.ok(out.includes(word), `--help names ${word}`);
  }
});

test("JSON-RPC: calls and host inputs answer what the engine answers; protocol errors name the problem", async () => {
  const s = await start(tmpDb());
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  await setup(s, "w1");
  const h = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Review the model", target_bot: "adam" }, as: lead });
  assert.equal(h.success, true);
  assert.match(h.handoff_id, /^handoff_/);
  // A Baton error keeps its code, with name, field and rule.
  const bad = await method(s, "w1", ADMIN, "call", { tool: "handoff", args: { target_bot: "adam" }, as: lead });
  assert.equal(bad.error.code, -32602);
  assert.deepEqual([bad.error.data.name, bad.error.data.field, bad.error.data.rule], ["invalid_params", "task", "G1"]);
  // Protocol errors.
  assert.equal((await rpc(s, "w1", ADMIN, "{not json")).body.error.code, -32700);
  assert.equal((await rpc(s, "w1", ADMIN, "[]")).body.error.code, -32600);
  assert.equal((await rpc(s, "w1", ADMIN, "42")).body.error.code, -32600);
  assert.equal((await method(s, "w1", ADMIN, "no_such_method")).error.code, -32601);
  assert.equal((await method(s, "w1", ADMIN, "call", { tool: 7 })).error.data.field, "tool");
  assert.equal((await method(s, "w1", ADMIN, "call", { tool: "handoff_list", args: {}, as: { thread: 5 } })).error.data.field, "as");
  assert.equal((await rpc(s, "w1", ADMIN, { jsonrpc: "1.0", id: 1, method: "export" })).body.error.code, -32600);
  // A notification gets no answer; a batch gets one answer per request with an id.
  assert.equal((await rpc(s, "w1", ADMIN, { jsonrpc: "2.0", method: "export" })).status, 204);
  const batch = await rpc(s, "w1", ADMIN, [
    { jsonrpc: "2.0", id: "a", method: "call", params: { tool: "handoff_status", args: { handoff_id: h.handoff_id }, as: lead } },
    { jsonrpc: "2.0", method: "export" },
    { jsonrpc: "2.0", id: "c", method: "nope" },
  ]);
  assert.deepEqual(batch.body.map((x) => x.id), ["a", "c"]);
  assert.equal(batch.body[0].result.handoff_id, h.handoff_id);
  // Commands in a batch run in order (they go to the writer together, one transaction): a
  // thread opened by the first is there for the handoff of the second; one that fails in the
  // middle changes nothing and the rest still run.
  const before = (await ok(s, "w1", ADMIN, "log", { after: 0, limit: 10000 })).records.length;
  const chained = await rpc(s, "w1", ADMIN, [
    { jsonrpc: "2.0", id: 1, method: "host", params: { input: "open_thread", args: { thread_id: "chat_batch", bot_id: "lead" } } },
    { jsonrpc: "2.0", id: 2, method: "call", params: { tool: "handoff", args: { target_bot: "adam" }, as: { thread: "chat_batch", bot: "lead" } } },
    { jsonrpc: "2.0", id: 3, method: "call", params: { tool: "handoff", args: { task: "From the batch", target_bot: "adam" }, as: { thread: "chat_batch", bot: "lead" } } },
    { jsonrpc: "2.0", id: 4, method: "log", params: { after: before } },
  ]);
  assert.deepEqual(chained.body.map((x) => x.id), [1, 2, 3, 4]);
  assert.equal(chained.body[1].error.data.field, "task");
  assert.equal(chained.body[2].result.success, true);
  assert.deepEqual(chained.body[3].result.records.map((r) => r.command), ["open_thread", "handoff"], "the log after the commands, in order");
  // An oversized body is refused with a JSON-RPC error, and nothing ran.
  const big = await rpc(s, "w1", ADMIN, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "call", params: { tool: "handoff", args: { task: "x".repeat(5 << 20), target_bot: "adam" }, as: lead } }));
  assert.equal(big.status, 413);
  assert.equal(big.body.error.code, -32600);
  // Metrics count what ran.
  const m = await (await fetch(`${s.url}/metrics`)).text();
  assert.match(m, /^baton_commands_total \d+$/m);
  assert.match(m, /^baton_workspaces 1$/m);
  assert.equal(await stop(s), 0);
});

test("keys: each acts only as its principal; not found and not yours look the same", async () => {
  const s = await start(tmpDb());
  await setup(s, "w1");
  await setup(s, "w2");
  const key = async (ws, principal) => (await ok(s, ws, ADMIN, "create_key", { principal })).key;
  const adam = await key("w1", "bot:adam");
  const host = await key("w1", "host");
  const other = await key("w2", "host");
  const h = await ok(s, "w1", host, "call", { tool: "handoff", args: { task: "Review", target_bot: "adam" }, as: lead });
  const asAdam = { thread: h.thread_id, bot: "adam" };
  // A bot key calls as itself, not as another bot, and sends no host inputs.
  assert.ok((await ok(s, "w1", adam, "call", { tool: "mailbox_action", args: { action: "READ_MAIL" }, as: asAdam })) !== undefined);
  assert.equal((await method(s, "w1", adam, "call", { tool: "handoff_list", args: {}, as: lead })).error.code, -32002);
  assert.equal((await method(s, "w1", adam, "host", { input: "register_agent", args: { bot_id: "eve" } })).error.code, -32002);
  assert.equal((await method(s, "w1", adam, "export")).error.code, -32002);
  assert.equal((await method(s, "w1", adam, "create_key", { principal: "host" })).error.code, -32002);
  assert.equal((await method(s, "w1", ADMIN, "create_key", { principal: "root" })).error.data.field, "principal");
  // No key, a wrong key: 401. Another workspace's key and a workspace that does not exist: the same 404.
  assert.equal((await rpc(s, "w1", null, { jsonrpc: "2.0", id: 1, method: "export" })).status, 401);
  assert.equal((await rpc(s, "w1", "bk_wrong", { jsonrpc: "2.0", id: 1, method: "export" })).status, 401);
  const notYours = await rpc(s, "w1", other, { jsonrpc: "2.0", id: 1, method: "export" });
  const missing = await rpc(s, "nope", ADMIN, { jsonrpc: "2.0", id: 1, method: "export" });
  assert.equal(notYours.status, 404);
  assert.equal(notYours.body.error.code, missing.body.error.code);
  assert.equal(notYours.body.error.message.replace("w1", "X"), missing.body.error.message.replace("nope", "X"));
  // Event streams are for host and admin keys.
  assert.equal((await fetch(`${s.url}/w/w1/events`, { headers: { authorization: `Bearer ${adam}` } })).status, 404);
  await stop(s);
});

test("events: every record once, in order; Last-Event-ID resumes exactly; a restart reopens the identical workspace", async () => {
  const db = tmpDb();
  let s = await start(db);
  await setup(s, "w1");
  for (let i = 0; i < 5; i++) await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: `Part ${i}`, target_bot: "adam" }, as: lead });
  const all = await readEvents(s, "w1", ADMIN, { want: 8 });
  assert.deepEqual(all.map((e) => e.id), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(JSON.parse(all[4].data).command, "handoff");
  const rest = await readEvents(s, "w1", ADMIN, { lastEventId: 5, want: 3 });
  assert.deepEqual(rest.map((e) => e.id), [6, 7, 8]);
  // The same records read as pages over JSON-RPC (`log`): what the console reads history with.
  const page1 = await ok(s, "w1", ADMIN, "log", { after: 2, limit: 3 });
  assert.deepEqual(page1.records.map((r) => r.seq), [3, 4, 5]);
  assert.equal(page1.next_after, 5);
  assert.deepEqual(page1.records, all.slice(2, 5).map((e) => JSON.parse(e.data)));
  assert.deepEqual((await ok(s, "w1", ADMIN, "log", { after: 8 })).records, []);
  assert.equal((await method(s, "w1", ADMIN, "log", { limit: 0 })).error.data.field, "limit");
  const adamKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  assert.equal((await method(s, "w1", adamKey, "log", {})).error.data.name, "forbidden");
  // Live: a stream that is open gets new commits, after what it was sent.
  const live = readEvents(s, "w1", ADMIN, { lastEventId: 7, want: 3 });
  await new Promise((r) => setTimeout(r, 200));
  await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Part 5", target_bot: "adam" }, as: lead });
  await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Part 6", target_bot: "adam" }, as: lead });
  assert.deepEqual((await live).map((e) => e.id), [8, 9, 10]);
  // SIGTERM with a stream open: the server still exits, promptly.
  const hanging = fetch(`${s.url}/w/w1/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
  await hanging;
  const before = await ok(s, "w1", ADMIN, "export");
  assert.equal(await stop(s), 0);
  s = await start(db);
  assert.equal(await ok(s, "w1", ADMIN, "export"), before);
  const after = await readEvents(s, "w1", ADMIN, { lastEventId: 9, want: 1 });
  assert.deepEqual(after.map((e) => e.id), [10]);
  await stop(s);
});

test("concurrent clients on one workspace lose nothing; kill -9 under load keeps every acknowledged command", async () => {
  const db = tmpDb();
  let s = await start(db);
  await setup(s, "w1");
  // Eight clients, 25 commands each, at once: all 200 are there, each once.
  const clients = 8, each = 25;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < each; i++) await ok(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: `bot_${c}_${i}` } });
    }),
  );
  const exported = await ok(s, "w1", ADMIN, "export");
  for (let c = 0; c < clients; c++) for (let i = 0; i < each; i++) assert.ok(exported.includes(`"bot_${c}_${i}"`), `bot_${c}_${i}`);
  // Load, then SIGKILL mid-load: what was acknowledged is there after a restart.
  const acked = [];
  let killed = false;
  const load = Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; i < 200 && !killed; i++) {
      try {
        const r = await method(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: `load_${c}_${i}` } });
        if (r?.result) acked.push(`load_${c}_${i}`);
      } catch {
        return; // the connection died with the server
      }
    }
  });
  while (acked.length < 50) await new Promise((r) => setTimeout(r, 5));
  killed = true;
  assert.equal(await stop(s, "SIGKILL"), "SIGKILL");
  await Promise.all(load);
  s = await start(db);
  const reopened = await ok(s, "w1", ADMIN, "export");
  for (const id of acked) assert.ok(reopened.includes(`"${id}"`), `${id} was acknowledged, so it is there`);
  // The log reopened whole (the export would have failed otherwise) and takes new commands.
  await ok(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: "after_restart" } });
  await stop(s);
});

function cli(args, input) {
  return new Promise((resolve) => {
    const p = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "", err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => resolve({ code, out, err }));
    p.stdin.on("error", () => {}); // a subcommand that reads no input may exit before we write
    p.stdin.end(input ?? "");
  });
}

test("baton workspace: create, key, export and import through the database; snapshots make reopening read the tail only", async () => {
  const db = tmpDb();
  assert.equal((await cli(["workspace", "create", "ops", "--db", db])).code, 0);
  assert.equal((await cli(["workspace", "create", "ops", "--db", db])).code, 2, "a second create is refused");
  assert.equal((await cli(["workspace", "create", "bad name", "--db", db])).code, 2);
  const key = (await cli(["workspace", "key", "ops", "host", "--db", db])).out.trim();
  assert.match(key, /^bk_[0-9a-f]{64}$/);
  assert.equal((await cli(["workspace", "key", "ops", "root", "--db", db])).code, 2);
  // A snapshot every 5 records: the workspace reopens from its latest snapshot plus the rest.
  let s = await start(db, ["--snapshot-every", "5"]);
  await ok(s, "ops", key, "host", { input: "register_agent", args: { bot_id: "lead" } });
  await ok(s, "ops", key, "host", { input: "register_agent", args: { bot_id: "adam", tools: ["project_manager_tools"] } });
  await ok(s, "ops", key, "host", { input: "open_thread", args: { thread_id: "chat_main", bot_id: "lead" } });
  const made = [];
  for (let i = 0; i < 12; i++) made.push((await ok(s, "ops", key, "call", { tool: "handoff", args: { task: `Part ${i}`, target_bot: "adam" }, as: lead })).handoff_id);
  const live = await ok(s, "ops", key, "export");
  await stop(s);
  const exported = await cli(["workspace", "export", "ops", "--db", db]);
  assert.equal(exported.code, 0);
  assert.equal(exported.out.trim(), live.trim(), "the offline export is the served one");
  s = await start(db, ["--snapshot-every", "5"]);
  assert.equal(await ok(s, "ops", key, "export"), live, "reopened from a snapshot and the records after it");
  // Events still start at record 1: the log keeps every record.
  assert.equal((await readEvents(s, "ops", key, { want: 1 }))[0].id, 1);
  await stop(s);
  // Import: the export into a new workspace, served after a start.
  const imported = await cli(["workspace", "import", "copy", "-", "--db", db, "--seed", "9"], exported.out);
  assert.equal(imported.code, 0, imported.err);
  assert.equal((await cli(["workspace", "import", "copy", "-", "--db", db], exported.out)).code, 2, "an existing name is refused");
  assert.equal((await cli(["workspace", "import", "other", "-", "--db", db], "{not an export}")).code, 2);
  s = await start(db);
  // Import writes the snapshot (and any records after it) into the database; the writer gave
  // the workspace its own records file when it opened it, and its commands go there.
  const records = join(`${db}.records`, "copy.log");
  assert.ok(fs.existsSync(records));
  const st = await ok(s, "copy", ADMIN, "call", { tool: "handoff_status", args: { handoff_id: made[11] }, as: lead });
  assert.equal(st.handoff_id, made[11]);
  assert.equal(await ok(s, "copy", ADMIN, "export"), live);
  await ok(s, "copy", ADMIN, "host", { input: "register_agent", args: { bot_id: "after_import" } });
  assert.ok(fs.statSync(records).size > 0);
  await stop(s);
});

test("each key has its own request rate; browsers call only from allowed origins", async () => {
  const s = await start(tmpDb(), ["--rate-limit", "5", "--cors-origin", "http://127.0.0.1:8080"]);
  await ok(s, "w1", ADMIN, "create_workspace");
  const host = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  const answers = await Promise.all(Array.from({ length: 30 }, () => rpc(s, "w1", host, { jsonrpc: "2.0", id: 1, method: "export" })));
  const limited = answers.filter((a) => a.status === 429);
  assert.ok(limited.length > 0 && limited.length < 30, `some of 30 at once are over 5/s (burst 10): ${limited.length}`);
  assert.equal(limited[0].body.error.code, -32003);
  assert.ok(limited[0].body.error.data.retry_after_ms > 0);
  // Another key is not slowed by this one.
  const other = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  assert.equal((await rpc(s, "w1", other, { jsonrpc: "2.0", id: 1, method: "export" })).status, 200);
  // CORS: the allowed origin gets the headers on a preflight, another origin does not.
  const pre = (origin) => fetch(`${s.url}/w/w1/rpc`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" } });
  const yes = await pre("http://127.0.0.1:8080");
  assert.equal(yes.headers.get("access-control-allow-origin"), "http://127.0.0.1:8080");
  assert.match(yes.headers.get("access-control-allow-headers") ?? "", /authorization/i);
  assert.equal((await pre("http://evil.example")).headers.get("access-control-allow-origin"), null);
  await stop(s);
});

test("effects: stored with their commands, numbered, each key sees its own, resumable, kept across a restart", async () => {
  const db = tmpDb();
  let s = await start(db);
  await setup(s, "w1");
  await ok(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: "eve", tools: ["project_manager_tools"] } });
  const adam = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  const eve = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:eve" })).key;
  const h1 = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "For Adam", target_bot: "adam" }, as: lead });
  const h2 = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "For Eve", target_bot: "eve" }, as: lead });
  // The host sees every effect; each bot only those naming it.
  const all = await ok(s, "w1", ADMIN, "effects", {});
  assert.deepEqual(all.effects.map((e) => [e.effect, e.handoff_id]), [["start_child", h1.handoff_id], ["start_child", h2.handoff_id]]);
  assert.deepEqual(all.effects.map((e) => e.seq), [1, 2]);
  const forAdam = await ok(s, "w1", adam, "effects", {});
  assert.deepEqual(forAdam.effects.map((e) => e.bot_id), ["adam"]);
  assert.deepEqual((await ok(s, "w1", eve, "effects", { after: 1 })).effects.map((e) => e.task), ["For Eve"]);
  assert.equal((await method(s, "w1", ADMIN, "effects", { limit: 0 })).error.data.field, "limit");
  // As a stream: the same, filtered, and resumable after an effect number.
  const streamed = await readEvents(s, "w1", adam, { want: 1, path: "effects" });
  assert.equal(streamed.length, 1);
  assert.equal(JSON.parse(streamed[0].data).task, "For Adam");
  const resumed = await readEvents(s, "w1", ADMIN, { lastEventId: 1, want: 1, path: "effects" });
  assert.deepEqual(resumed.map((e) => e.id), [2]);
  // A live subscriber gets the next effect as it commits.
  const live = readEvents(s, "w1", eve, { lastEventId: 2, want: 1, path: "effects" });
  await new Promise((r) => setTimeout(r, 200));
  const h3 = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Again for Eve", target_bot: "eve" }, as: lead });
  const got = await live;
  assert.equal(JSON.parse(got[0].data).handoff_id, h3.handoff_id);
  assert.equal(got[0].id, 3);
  // Kept across a restart, numbered on from where they were.
  await stop(s);
  s = await start(db);
  assert.deepEqual((await ok(s, "w1", ADMIN, "effects", {})).effects.map((e) => e.seq), [1, 2, 3]);
  await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "After restart", target_bot: "adam" }, as: lead });
  assert.deepEqual((await ok(s, "w1", ADMIN, "effects", { after: 3 })).effects.map((e) => e.seq), [4]);
  await stop(s);
});

test("MCP: the official MCP client lists Baton's tools and calls them as its key's principal", async () => {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const s = await start(tmpDb());
  await setup(s, "w1");
  const adam = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  const connect = async (key) => {
    const client = new Client({ name: "baton-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/w/w1/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
    await client.connect(transport);
    return client;
  };
  const host = await connect(ADMIN);
  assert.equal(host.getServerVersion().name, "baton");
  const { tools } = await host.listTools();
  const names = tools.map((t) => t.name);
  for (const t of ["handoff", "handoff_status", "mailbox_action"]) assert.ok(names.includes(t), `lists ${t}`);
  assert.equal(tools.find((t) => t.name === "handoff").inputSchema.type, "object");
  // Every tool says what it returns and what it does: its result schema (the 2020-12 dialect
  // stated, as for its parameters), a title, and annotations from its declared effect.
  const dialect = "https://json-schema.org/draft/2020-12/schema";
  for (const t of tools) {
    assert.equal(t.outputSchema?.type, "object", `${t.name} has an outputSchema`);
    assert.deepEqual([t.inputSchema.$schema, t.outputSchema.$schema], [dialect, dialect], t.name);
    assert.ok(t.title && t.annotations?.title === t.title, `${t.name} has a title`);
    assert.equal(typeof t.annotations.readOnlyHint, "boolean", t.name);
    assert.equal(t.annotations.openWorldHint, false, t.name);
  }
  const hints = (name) => tools.find((t) => t.name === name).annotations;
  assert.equal(hints("handoff_list").readOnlyHint, true);
  assert.equal(hints("handoff_list").destructiveHint, undefined, "a read says nothing more");
  assert.deepEqual([hints("handoff").readOnlyHint, hints("handoff").destructiveHint, hints("handoff").idempotentHint], [false, false, false]);
  assert.deepEqual([hints("handoff_cancel").destructiveHint, hints("handoff_cancel").idempotentHint], [true, true]);
  // A call with the calling thread in _meta, exactly like `as` in the JSON-RPC API.
  const made = await host.callTool({ name: "handoff", arguments: { task: "Review over MCP", target_bot: "adam" }, _meta: { baton: { as: lead } } });
  assert.notEqual(made.isError, true, JSON.stringify(made));
  assert.match(made.structuredContent.handoff_id, /^handoff_/);
  // A W3C trace context in _meta is kept on the records the call makes; a malformed one is
  // ignored (the call still runs).
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const traced = await host.callTool({ name: "handoff", arguments: { task: "Traced over MCP", target_bot: "adam" }, _meta: { baton: { as: lead }, traceparent, tracestate: "rojo=00f067aa0ba902b7" } });
  assert.notEqual(traced.isError, true, JSON.stringify(traced));
  const untraced = await host.callTool({ name: "handoff", arguments: { task: "Badly traced", target_bot: "adam" }, _meta: { baton: { as: lead }, traceparent: "not-a-trace" } });
  assert.notEqual(untraced.isError, true);
  const records = (await ok(s, "w1", ADMIN, "log", { limit: 10000 })).records;
  const recordOf = (id) => records.find((r) => r.command === "handoff" && JSON.stringify(r.changes).includes(id));
  assert.deepEqual(recordOf(traced.structuredContent.handoff_id).trace, { traceparent, tracestate: "rojo=00f067aa0ba902b7" });
  assert.equal(recordOf(untraced.structuredContent.handoff_id).trace, undefined);
  assert.equal(recordOf(made.structuredContent.handoff_id).trace, undefined, "a call without one keeps none");
  // The client checks each structuredContent against the tool's outputSchema (it throws on a
  // mismatch): a status, a list, a cancel.
  const id = made.structuredContent.handoff_id;
  for (const [name, args] of [["handoff_status", { handoff_id: id }], ["handoff_list", {}], ["handoff_results", { handoff_id: id }], ["handoff_cancel", { handoff_id: id, reason: "checked" }]]) {
    const r = await host.callTool({ name, arguments: args, _meta: { baton: { as: lead } } });
    assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r)}`);
    assert.equal(typeof r.structuredContent, "object", name);
  }
  // Baton's errors come back as tool errors with code, name, field and rule.
  const bad = await host.callTool({ name: "handoff", arguments: { target_bot: "adam" }, _meta: { baton: { as: lead } } });
  assert.equal(bad.isError, true);
  const refusal = JSON.parse(bad.content[0].text).error;
  assert.deepEqual([refusal.name, refusal.field], ["invalid_params", "task"]);
  assert.equal(bad.structuredContent, undefined, "a refusal has no structuredContent: that is the result's");
  // A bot key is its bot: it may name its own thread, not another bot's.
  const bot = await connect(adam);
  const mine = await bot.callTool({ name: "mailbox_action", arguments: { action: "READ_MAIL" }, _meta: { baton: { as: { thread: made.structuredContent.thread_id, bot: "adam" } } } });
  assert.notEqual(mine.isError, true, JSON.stringify(mine));
  const theirs = await bot.callTool({ name: "handoff_list", arguments: {}, _meta: { baton: { as: lead } } });
  assert.equal(theirs.isError, true);
  // Without a key, or with another workspace's, the endpoint refuses before MCP starts.
  await assert.rejects(connect("bk_wrong"));
  // Raw: the current revision statelessly (no session), the previous one with a session, and
  // a browser origin that is not allowed is refused.
  const raw = (headers, body) => fetch(`${s.url}/w/w1/mcp`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
  const current = await raw({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" }, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
  assert.equal(current.status, 200);
  assert.equal(current.headers.get("mcp-session-id"), null);
  assert.match(await current.text(), /"name":"handoff"/);
  const legacy = await raw({}, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  assert.equal(legacy.status, 200);
  assert.ok(legacy.headers.get("mcp-session-id"), "the previous revision gets a session");
  await legacy.text();
  const evil = await raw({ origin: "http://evil.example" }, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  assert.equal(evil.status, 403);
  // A page of the server's own origin is not cross-site; a rebinding attacker's Host is
  // refused whatever Origin it sends.
  const own = await raw({ origin: s.url }, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  assert.equal(own.status, 200);
  await own.text();
  const rebound = await raw({ host: "evil.example", origin: "http://evil.example" }, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  assert.equal(rebound.status, 403);
  await host.close();
  await bot.close();
  await stop(s);
});

test("MCP for stock clients: a connection bound with ?as= or Baton-As lists the thread's tools_for and calls as its agent", async () => {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const s = await start(tmpDb());
  await setup(s, "w1");
  const leadKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:lead" })).key;
  const adamKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  const hostKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "host" })).key;
  const connect = async (key, query = "", headers = {}) => {
    const client = new Client({ name: "stock-client", version: "1.0.0" });
    const url = new URL(`${s.url}/w/w1/mcp${query}`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } } }));
    return client;
  };
  const names = async (client) => (await client.listTools()).tools.map((t) => t.name);
  // Bound by URL: the lead's thread lists exactly what tools_for offers it (no sibling-session
  // tools such as handoff_release), and a call needs no _meta.
  const offered = (await ok(s, "w1", ADMIN, "host", { input: "tools_for", args: { thread_id: "chat_main" } })).tools;
  const lead1 = await connect(leadKey, "?as=chat_main");
  assert.deepEqual(await names(lead1), offered);
  assert.ok(!offered.includes("handoff_release"));
  const made = await lead1.callTool({ name: "handoff", arguments: { task: "Bound by URL", target_bot: "adam" } });
  assert.notEqual(made.isError, true, JSON.stringify(made));
  const child = made.structuredContent.thread_id;
  // Bound by header, with a host key: it acts as the thread's owner (its agent).
  const adam1 = await connect(hostKey, "", { "baton-as": child });
  const childTools = (await ok(s, "w1", ADMIN, "host", { input: "tools_for", args: { thread_id: child } })).tools;
  assert.deepEqual(await names(adam1), childTools);
  const reported = await adam1.callTool({ name: "mailbox_action", arguments: { action: "SEND_MESSAGE", to_thread_id: "chat_main", to_bot_id: "lead", subject: "Done", body: "Reviewed." } });
  assert.notEqual(reported.isError, true, JSON.stringify(reported));
  // The lead is idle, so the report wakes it (M5), the mail in the wake: sent by the child's agent.
  const wake = (await ok(s, "w1", ADMIN, "effects", {})).effects.filter((e) => e.effect === "wake").at(-1);
  assert.deepEqual(wake.messages.map((m) => [m.from_thread_id, m.from_bot_id, m.body]), [[child, "adam", "Reviewed."]]);
  // A bot key bound to another agent's thread is refused: listing and calling alike.
  const wrong = await connect(adamKey, "?as=chat_main");
  await assert.rejects(wrong.listTools(), /belongs to another agent/);
  const refused = await wrong.callTool({ name: "handoff_list", arguments: {} });
  assert.equal(refused.isError, true);
  // Unbound, an agent's key lists only the tools that need no thread (they act as a teammate).
  const unbound = await connect(leadKey);
  assert.deepEqual(await names(unbound), ["handoff_to_teammate", "check_inbox", "accept_handoff", "view_thread", "send_message", "complete_handoff", "cancel_handoff"]);
  // A teammate key takes no thread binding; an empty one is refused before MCP starts.
  const raw = (query, headers) => fetch(`${s.url}/w/w1/mcp${query}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
  const mate = (await ok(s, "w1", ADMIN, "create_key", { principal: "teammate:bob@acme" })).key;
  assert.equal((await raw("?as=chat_main", { authorization: `Bearer ${mate}` })).status, 400);
  assert.equal((await raw("?as=", { authorization: `Bearer ${leadKey}` })).status, 400);
  for (const c of [lead1, adam1, wrong, unbound]) await c.close();
  await stop(s);
});

test("a bot key reports its own threads' activity, and only theirs", async () => {
  const s = await start(tmpDb());
  await setup(s, "w1");
  const adamKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  const h = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Report yourself", target_bot: "adam" }, as: lead });
  const own = { thread_id: h.thread_id };
  for (const [input, args] of [["turn_started", own], ["tool_call", { ...own, tool: "web_search" }], ["response", { ...own, text: "Half way." }], ["tools_for", own], ["turn_ended", own]]) {
    const r = await method(s, "w1", adamKey, "host", { input, args });
    assert.equal(r.error, undefined, `${input}: ${JSON.stringify(r.error)}`);
  }
  assert.equal((await ok(s, "w1", ADMIN, "call", { tool: "handoff_status", args: { handoff_id: h.handoff_id }, as: lead })).last_tool_call?.name, "web_search");
  const theirs = await method(s, "w1", adamKey, "host", { input: "turn_started", args: { thread_id: "chat_main" } });
  assert.deepEqual([theirs.error.code, theirs.error.data.field], [-32002, "thread_id"]);
  const hostOnly = await method(s, "w1", adamKey, "host", { input: "open_thread", args: { thread_id: "chat_x", bot_id: "adam" } });
  assert.equal(hostOnly.error.data.name, "forbidden");
  assert.match(hostOnly.error.message, /turn_started/, "the refusal names what an agent's key may send");
  await stop(s);
});

test("keys have a lifecycle: list, revoke (refused at once, streams end), rotate with or without grace, an expiry; over JSON-RPC and baton workspace key", async () => {
  const db = tmpDb();
  const s = await start(db);
  await setup(s, "w1");
  const made = await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam", expires_in_seconds: 3600 });
  assert.match(made.key_id, /^key_[0-9a-f]{16}$/);
  assert.equal(made.state, "active");
  assert.ok(Date.parse(made.expires_at) > Date.now() + 3500_000);
  const hostKey = await ok(s, "w1", ADMIN, "create_key", { principal: "host" });
  assert.equal((await method(s, "w1", ADMIN, "create_key", { principal: "host", expires_in_seconds: 0 })).error.data.field, "expires_in_seconds");
  // Listing shows ids, principals, states and times, never a key.
  const listed = (await ok(s, "w1", ADMIN, "list_keys", {})).keys;
  const row = (id) => listed.find((k) => k.key_id === id);
  assert.deepEqual([row(made.key_id).principal, row(made.key_id).state, row(hostKey.key_id).principal], ["bot:adam", "active", "host"]);
  assert.equal(listed.length, 2);
  assert.ok(!JSON.stringify(listed).includes(made.key));
  assert.equal((await method(s, "w1", hostKey.key, "list_keys", {})).error.data.name, "forbidden", "key methods are the admin's");
  // A stream opened with a key ends when the key is revoked; the key is refused at once.
  const stream = await fetch(`${s.url}/w/w1/effects`, { headers: { authorization: `Bearer ${made.key}` } });
  assert.equal(stream.status, 200);
  const reading = (async () => { for await (const _ of stream.body) { /* keepalives and effects */ } return "ended"; })();
  const revoked = await ok(s, "w1", ADMIN, "revoke_key", { key_id: made.key_id });
  assert.equal(revoked.state, "revoked");
  assert.equal(await reading, "ended");
  const after = await rpc(s, "w1", made.key, { jsonrpc: "2.0", id: 1, method: "effects", params: {} });
  assert.equal(after.status, 401);
  assert.match(after.body.error.message, /revoked/);
  assert.equal((await method(s, "w1", ADMIN, "revoke_key", { key_id: "key_0000000000000000" })).error.data.name, "not_found");
  assert.equal((await method(s, "w1", ADMIN, "revoke_key", { key_id: "nope" })).error.data.field, "key_id");
  // Rotation: a new key for the same principal; the old one revoked at once, or kept for a grace period.
  const rotated = await ok(s, "w1", ADMIN, "rotate_key", { key_id: hostKey.key_id });
  assert.equal(rotated.principal, "host");
  assert.equal(rotated.replaced.state, "revoked");
  assert.equal((await rpc(s, "w1", hostKey.key, { jsonrpc: "2.0", id: 1, method: "export" })).status, 401);
  assert.equal((await method(s, "w1", rotated.key, "export")).error, undefined);
  const graced = await ok(s, "w1", ADMIN, "rotate_key", { key_id: rotated.key_id, grace_seconds: 3600 });
  assert.equal(graced.replaced.state, "active");
  assert.ok(Date.parse(graced.replaced.expires_at) > Date.now() + 3500_000);
  assert.equal((await method(s, "w1", rotated.key, "export")).error, undefined, "the old key works through its grace period");
  assert.equal((await method(s, "w1", ADMIN, "rotate_key", { key_id: made.key_id })).error.data.field, "key_id", "a revoked key is not rotated");
  // The command line works on the same database, and the running server sees it at once.
  const cli = (...args) => execFileSync(bin, ["workspace", "key", ...args, "--db", db], { encoding: "utf8" });
  const cliKey = cli("create", "w1", "bot:lead").trim();
  assert.match(cliKey, /^bk_/);
  assert.equal((await method(s, "w1", cliKey, "effects", {})).error, undefined);
  const table = cli("list", "w1");
  assert.match(table, /bot:adam\s+revoked/);
  assert.ok(!table.includes(cliKey));
  const cliId = (await ok(s, "w1", ADMIN, "list_keys", {})).keys.find((k) => k.principal === "bot:lead").key_id;
  assert.match(cli("revoke", "w1", cliId), /revoked/);
  assert.equal((await rpc(s, "w1", cliKey, { jsonrpc: "2.0", id: 1, method: "effects", params: {} })).status, 401);
  const next = cli("rotate", "w1", graced.key_id, "--grace", "60").trim();
  assert.equal((await method(s, "w1", next, "export")).error, undefined);
  // --expires-in sets the expiry (what an expired key is refused as is checked in the server's unit tests).
  cli("create", "w1", "teammate:bob@acme", "--expires-in", "120");
  const mateKey = (await ok(s, "w1", ADMIN, "list_keys", {})).keys.find((k) => k.principal === "teammate:bob@acme");
  assert.ok(Math.abs(Date.parse(mateKey.expires_at) - (Date.now() + 120_000)) < 60_000);
  await stop(s);
});

test("a full database refuses commands with a clear error, keeps every acknowledged one, and serves reads", async () => {
  const db = tmpDb();
  let s = await start(db, ["--max-db-mb", "1", "--rate-limit", "100000", "--sync", "normal"]);
  await setup(s, "w1");
  const acked = [];
  let refusal = null;
  const big = "x".repeat(3000);
  for (let i = 0; i < 20000 && !refusal; i++) {
    const r = await method(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: `bot_${i}`, display_name: `Agent ${i} ${big.slice(0, 60)}` } });
    if (r.result) acked.push(`bot_${i}`);
    else refusal = r.error;
  }
  assert.ok(refusal, "the database filled up");
  assert.equal(refusal.code, -32010);
  assert.equal(refusal.data.name, "storage_failed");
  assert.match(refusal.message, /full/i);
  // Reads go on; the refused command left nothing behind.
  const exported = await ok(s, "w1", ADMIN, "export");
  for (const id of acked) assert.ok(exported.includes(`"${id}"`), id);
  assert.ok(!exported.includes(`"bot_${acked.length}"`), "the refused command is not in the state");
  await stop(s);
  // With room again, the log is intact and takes commands.
  s = await start(db);
  assert.equal(await ok(s, "w1", ADMIN, "export"), exported);
  await ok(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: "after_full" } });
  await stop(s);
});

test("a read-only disk: the server says so, serves reads and streams, refuses every command clearly, and the log is intact", async (t) => {
  // A real read-only file system: the database's directory bind-mounted read-only in a mount
  // namespace of the server's own (root ignores file modes, so chmod would prove nothing).
  const { spawnSync } = await import("node:child_process");
  if (spawnSync("unshare", ["-m", "true"]).status !== 0) {
    t.skip("this machine cannot make a mount namespace (unshare -m), so no read-only mount");
    return;
  }
  const db = tmpDb();
  let s = await start(db);
  await setup(s, "w1");
  // A watch that comes due (in 3 s) while the disk is read-only: its tick cannot be stored.
  await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Before read-only", target_bot: "adam", async_mode: false, timeout_seconds: 3 }, as: lead });
  const before = await ok(s, "w1", ADMIN, "export");
  assert.equal(await stop(s), 0);
  const dir = dirname(db);
  const script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"';
  s = await start(db, [], ["unshare", "-m", "sh", "-c", script, dir]);
  assert.match(s.stderr(), /is read-only: reads and streams are served, every command is refused/);
  const refused = await method(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "On a read-only disk", target_bot: "adam" }, as: lead });
  assert.equal(refused.error.data.name, "storage_failed");
  assert.match(refused.error.message, /readonly|read-only/);
  assert.equal((await method(s, "w2", ADMIN, "create_workspace")).error.data.name, "storage_failed");
  assert.equal(await ok(s, "w1", ADMIN, "export"), before, "nothing of the refused command is in the state");
  const events = await readEvents(s, "w1", ADMIN, { want: 4 });
  assert.deepEqual(events.map((e) => e.id), [1, 2, 3, 4]);
  // The due tick fails and waits (1 s, doubling) before it is tried again: no busy loop.
  const failures = () => (s.stderr().match(/a write failed; a due tick waits/g) ?? []).length;
  for (const end = Date.now() + 8000; failures() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  assert.ok(failures() >= 1, "the due tick was tried");
  assert.equal(await ok(s, "w1", ADMIN, "export"), before, "the failed tick changed nothing");
  assert.ok(failures() <= 3, `a failed tick is not retried in a loop (${failures()} attempts)`);
  await stop(s);
  // Writable again: the same log; the due watch closes now, and commands are taken.
  s = await start(db);
  const log = await ok(s, "w1", ADMIN, "log", { limit: 4 });
  assert.deepEqual(log.records, events.map((e) => JSON.parse(e.data)));
  const closed = await readEvents(s, "w1", ADMIN, { lastEventId: 4, want: 1 });
  assert.match(closed[0].data, /watch_expired/);
  await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "After read-only", target_bot: "adam" }, as: lead });
  await stop(s);
});

test("callbacks (G14): the server posts them; private targets are refused unless allowed; five failures make the handoff undeliverable", async () => {
  const { createServer } = await import("node:http");
  const received = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ path: req.url, body: JSON.parse(body), type: req.headers["content-type"] });
      res.writeHead(received.length === 1 ? 503 : 200).end(); // the first attempt fails
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
  const syncHandoff = (s, ws) =>
    ok(s, ws, ADMIN, "call", { tool: "handoff", args: { task: "Review", target_bot: "adam", async_mode: false, timeout_seconds: 600, callback_url: hook }, as: lead });
  const status = async (s, ws, id) => (await ok(s, ws, ADMIN, "call", { tool: "handoff_status", args: { handoff_id: id }, as: lead })).status;
  const until = async (f, ms = 8000) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await f()) return true;
    return false;
  };
  // Allowed: the receiver on loopback gets the payload; a failed first attempt is retried.
  let s = await start(tmpDb(), ["--allow-private-callbacks", "--callback-backoff-ms", "20"]);
  await setup(s, "w1");
  const h = await syncHandoff(s, "w1");
  await ok(s, "w1", ADMIN, "host", { input: "response", args: { thread_id: h.thread_id, text: "Review done: ship it." } });
  assert.ok(await until(() => received.length >= 2), `two attempts arrived (${received.length})`);
  assert.equal(received[1].path, "/hook");
  assert.equal(received[1].type, "application/json");
  assert.equal(received[1].body.handoff_id, h.handoff_id);
  assert.ok(await until(async () => (await status(s, "w1", h.handoff_id)) === "completed"), "completed once a callback arrived");
  await stop(s);
  // Refused by default: a loopback target is never contacted, and after five refusals the
  // handoff is undeliverable.
  const before = received.length;
  s = await start(tmpDb(), ["--callback-backoff-ms", "10"]);
  await setup(s, "w2");
  const g = await syncHandoff(s, "w2");
  await ok(s, "w2", ADMIN, "host", { input: "response", args: { thread_id: g.thread_id, text: "Done." } });
  assert.ok(await until(async () => (await status(s, "w2", g.handoff_id)) === "undeliverable"), "undeliverable after five refusals");
  const st = await ok(s, "w2", ADMIN, "call", { tool: "handoff_status", args: { handoff_id: g.handoff_id }, as: lead });
  assert.match(JSON.stringify(st), /allow-private-callbacks/);
  assert.equal(received.length, before, "the private target was never contacted");
  await stop(s);
  receiver.close();
});

test("callbacks over https: verified against the URL's host with --callback-ca; another name is refused; one in flight at a kill is posted again at start", async () => {
  // tests/server/fixtures: a test-only CA and a certificate for "localhost" it signed.
  const { createServer } = await import("node:https");
  const fx = (f) => fs.readFileSync(join(root, "tests", "server", "fixtures", f));
  const received = [];
  let hold = true; // the first request gets no answer: it is in flight when the server dies
  const receiver = createServer({ key: fx("localhost.key"), cert: fx("localhost.pem") }, (req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push(JSON.parse(body).handoff_id);
      if (hold) hold = false;
      else res.writeHead(200).end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const port = receiver.address().port;
  const args = ["--allow-private-callbacks", "--callback-backoff-ms", "20", "--callback-ca", join(root, "tests", "server", "fixtures", "ca.pem")];
  const db = tmpDb();
  let s = await start(db, args);
  await setup(s, "w1");
  const handoff = (url) =>
    ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Review", target_bot: "adam", async_mode: false, timeout_seconds: 600, callback_url: url }, as: lead });
  const status = async (id) => ok(s, "w1", ADMIN, "call", { tool: "handoff_status", args: { handoff_id: id }, as: lead });
  const until = async (f, ms = 8000) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await f()) return true;
    return false;
  };
  // The certificate names localhost: https://localhost verifies (through the given CA).
  const good = await handoff(`https://localhost:${port}/hook`);
  await ok(s, "w1", ADMIN, "host", { input: "response", args: { thread_id: good.thread_id, text: "Done." } });
  assert.ok(await until(() => received.includes(good.handoff_id)), "the https receiver got the callback");
  // It got no answer; the server dies with the callback in flight, and posts it again at start.
  s.p.kill("SIGKILL");
  await new Promise((r) => s.p.once("exit", r));
  s = await start(db, args);
  assert.ok(await until(async () => (await status(good.handoff_id)).status === "completed"), "completed once the callback was answered");
  assert.deepEqual(received.filter((id) => id === good.handoff_id).length, 2, "posted once before the kill and once after");
  // The same receiver by address: its certificate does not name 127.0.0.1, so TLS refuses it.
  const bad = await handoff(`https://127.0.0.1:${port}/hook`);
  await ok(s, "w1", ADMIN, "host", { input: "response", args: { thread_id: bad.thread_id, text: "Done." } });
  assert.ok(await until(async () => (await status(bad.handoff_id)).status === "undeliverable"), "undeliverable");
  assert.match(JSON.stringify(await status(bad.handoff_id)), /TLS with 127\.0\.0\.1: .*(not valid for name|NotValidForName)/i);
  assert.ok(!received.includes(bad.handoff_id), "nothing was sent over a connection that failed verification");
  await stop(s);
  receiver.close();
});

test("the server owns time: a watch window closes on the wall clock without any request", async () => {
  const s = await start(tmpDb());
  await setup(s, "w1");
  const h = await ok(s, "w1", ADMIN, "call", { tool: "handoff", args: { task: "Review", target_bot: "adam", async_mode: false, timeout_seconds: 1 }, as: lead });
  // Nothing is sent; about a second later the writer's tick closes the watch (G9).
  const got = await readEvents(s, "w1", ADMIN, { want: 2, path: "effects", ms: 6000 });
  const kinds = got.map((e) => JSON.parse(e.data));
  const returned = kinds.find((e) => e.effect === "watch_returned");
  assert.ok(returned, `a watch_returned effect came by itself: ${JSON.stringify(kinds.map((e) => e.effect))}`);
  assert.equal(returned.handoff_id, h.handoff_id);
  await stop(s);
});

test("idempotency_key: a command sent again gets its first answer and runs once; another request under the key is refused; kept across a restart", async () => {
  const db = tmpDb();
  let s = await start(db);
  await setup(s, "w1");
  const send = (task, key) => method(s, "w1", ADMIN, "call", { tool: "handoff", args: { task, target_bot: "adam" }, as: lead, idempotency_key: key });
  const first = (await send("Once", "key-1")).result;
  const again = (await send("Once", "key-1")).result;
  assert.deepEqual(again, first, "the first answer, not a second handoff");
  const other = await send("Something else", "key-1");
  assert.equal(other.error.code, -32602);
  assert.equal(other.error.data.field, "idempotency_key");
  const long = await send("Once", "k".repeat(257));
  assert.equal(long.error.data.field, "idempotency_key");
  // In one batch, the second item with the key gets the first one's answer.
  const batch = await rpc(s, "w1", ADMIN, [
    { jsonrpc: "2.0", id: 1, method: "call", params: { tool: "handoff", args: { task: "Batched", target_bot: "adam" }, as: lead, idempotency_key: "key-2" } },
    { jsonrpc: "2.0", id: 2, method: "call", params: { tool: "handoff", args: { task: "Batched", target_bot: "adam" }, as: lead, idempotency_key: "key-2" } },
  ]);
  assert.deepEqual(batch.body[1].result, batch.body[0].result);
  await stop(s);
  s = await start(db);
  assert.deepEqual((await send("Once", "key-1")).result, first, "kept across a restart");
  const log = await ok(s, "w1", ADMIN, "log", {});
  const tasks = log.records.filter((r) => r.command === "handoff").map((r) => r.changes.find((c) => c.kind === "handoff").spec.task);
  assert.deepEqual(tasks, ["Once", "Batched"]);
  await stop(s);
});

test("MCP tasks (io.modelcontextprotocol/tasks, 2026-07-28): a handoff followed as a task — created, read, its child's question answered through tasks/update, completed with the result; cancelled; failed as a tool error; gated on the extension", async () => {
  const s = await start(tmpDb());
  await setup(s, "w1");
  await ok(s, "w1", ADMIN, "host", { input: "register_agent", args: { bot_id: "eve", tools: ["project_manager_tools", "coordination_tools"] } });
  const leadKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:lead" })).key;
  const adamKey = (await ok(s, "w1", ADMIN, "create_key", { principal: "bot:adam" })).key;
  const TASKS = "io.modelcontextprotocol/tasks";
  let n = 0;
  // One stateless request of the current revision; `tasks`: the client declares the extension.
  const mcp = async (key, method, params = {}, tasks = true) => {
    const caps = tasks ? { extensions: { [TASKS]: {} } } : {};
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method };
    if (method === "tools/call") headers["mcp-name"] = params.name;
    if (params.taskId) headers["mcp-name"] = params.taskId;
    const body = { jsonrpc: "2.0", id: ++n, method, params: { ...params, _meta: { ...(params._meta ?? {}), "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps } } };
    const r = await fetch(`${s.url}/w/w1/mcp?as=chat_main`, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await r.text();
    const json = text.startsWith("{") ? text : text.split("\n").find((l) => l.startsWith("data:") && l.includes('"jsonrpc"')).slice(5);
    return JSON.parse(json);
  };
  const discovered = await mcp(leadKey, "server/discover");
  assert.deepEqual(discovered.result.capabilities.extensions?.[TASKS], {}, JSON.stringify(discovered));
  assert.equal(discovered.result.capabilities.tasks, undefined, "no v1 slot");

  // Without the extension a handoff answers as always; the task methods are refused (-32021).
  const plain = await mcp(leadKey, "tools/call", { name: "handoff", arguments: { task: "Plain", target_bot: "eve" } }, false);
  assert.equal(plain.result.taskId, undefined);
  assert.ok(plain.result.structuredContent.handoff_id, JSON.stringify(plain));
  for (const m of ["tasks/get", "tasks/cancel"]) assert.equal((await mcp(leadKey, m, { taskId: plain.result.structuredContent.handoff_id }, false)).error?.code, -32021, m);

  // With it, the handoff is a task: its id the handoff's, working, created now, kept (ttlMs null).
  const made = (await mcp(leadKey, "tools/call", { name: "handoff", arguments: { task: "Pick a region and deploy", target_bot: "eve" } })).result;
  assert.equal(made.resultType, "task", JSON.stringify(made));
  assert.match(made.taskId, /^handoff_/);
  assert.equal(made.status, "working");
  assert.match(made.createdAt, /^\d{4}-\d{2}-\d{2}T/);
  assert.equal(made.ttlMs, null);
  assert.equal(made.pollIntervalMs, 1000);
  assert.equal(made.task, undefined, "flat, no nested task");
  const get = async (id, key = leadKey) => (await mcp(key, "tasks/get", { taskId: id }));
  assert.equal((await get(made.taskId)).result.status, "working");
  // Another agent's key does not see it; an unknown id is -32602.
  assert.equal((await get(made.taskId, adamKey)).error.code, -32602);
  assert.equal((await get("handoff_nope")).error.code, -32602);

  // The child asks: the task waits on input, its request an elicitation form.
  const log = (await ok(s, "w1", ADMIN, "log", { limit: 1000 })).records;
  const child = log.find((r) => r.command === "handoff" && JSON.stringify(r).includes(made.taskId)).changes.find((c) => c.kind === "handoff").child_thread_id;
  const asked = await ok(s, "w1", ADMIN, "call", { tool: "ask_user", args: { questions: [{ question: "Which region?" }] }, as: { thread: child, bot: "eve" } });
  const waiting = (await get(made.taskId)).result;
  assert.equal(waiting.status, "input_required", JSON.stringify(waiting));
  const [key] = Object.keys(waiting.inputRequests);
  assert.equal(key, asked.question_id);
  const request = waiting.inputRequests[key];
  assert.equal(request.method, "elicitation/create");
  assert.equal(request.params.message, "Which region?");
  assert.deepEqual(request.params.requestedSchema.required, ["answer_1"]);
  // A response to no outstanding request, or without its answer, is refused and changes nothing.
  assert.equal((await mcp(leadKey, "tasks/update", { taskId: made.taskId, inputResponses: { q_nope: { action: "accept", content: { answer_1: "EU" } } } })).error.code, -32602);
  assert.equal((await mcp(leadKey, "tasks/update", { taskId: made.taskId, inputResponses: { [key]: { action: "accept", content: {} } } })).error.code, -32602);
  assert.equal((await get(made.taskId)).result.status, "input_required");
  const ack = await mcp(leadKey, "tasks/update", { taskId: made.taskId, inputResponses: { [key]: { action: "accept", content: { answer_1: "EU" } } } });
  assert.deepEqual(ack.result, { resultType: "complete" }, JSON.stringify(ack));
  assert.equal((await get(made.taskId)).result.status, "working");
  const answered = (await ok(s, "w1", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "answer_user");
  assert.deepEqual(answered.changes.find((c) => c.kind === "ask").answers, ["EU"]);

  // The child reports: completed, the result inlined (the report's text; the handoff as the
  // tool's output schema gives it).
  await ok(s, "w1", ADMIN, "call", { tool: "mailbox_action", args: { action: "SEND_MESSAGE", to_thread_id: "chat_main", to_bot_id: "lead", subject: "Done", body: "Deployed to EU." }, as: { thread: child, bot: "eve" } });
  const done = (await get(made.taskId)).result;
  assert.equal(done.status, "completed", JSON.stringify(done));
  assert.equal(done.result.content[0].text, "Deployed to EU.");
  assert.equal(done.result.isError, false);
  assert.equal(done.result.structuredContent.status, "completed");
  assert.equal(done.result.structuredContent.handoff_id, made.taskId);
  assert.equal(done.result._meta?.["io.modelcontextprotocol/related-task"], undefined);

  // Cancel: an empty ack, the task cancelled; again on the finished task, the same ack.
  const other = (await mcp(leadKey, "tools/call", { name: "handoff", arguments: { task: "Never mind", target_bot: "eve" } })).result;
  for (let i = 0; i < 2; i++) assert.deepEqual((await mcp(leadKey, "tasks/cancel", { taskId: other.taskId })).result, { resultType: "complete" });
  assert.equal((await get(other.taskId)).result.status, "cancelled");
  assert.equal((await ok(s, "w1", ADMIN, "log", { limit: 1000 })).records.filter((r) => r.command === "handoff_cancel").length, 1, "cancelled once");
  // A delegation that fails is a tool error (completed, isError), not a protocol failure.
  const failing = (await mcp(leadKey, "tools/call", { name: "handoff", arguments: { task: "Doomed", target_bot: "eve" } })).result;
  const failingChild = (await ok(s, "w1", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "handoff" && JSON.stringify(r).includes(failing.taskId)).changes.find((c) => c.kind === "handoff").child_thread_id;
  await ok(s, "w1", ADMIN, "host", { input: "child_error", args: { thread_id: failingChild, error: "the disk is full" } });
  const failed = (await get(failing.taskId)).result;
  assert.equal(failed.status, "completed");
  assert.equal(failed.result.isError, true);
  assert.equal(failed.result.content[0].text, "the disk is full");
  assert.equal(failed.result.structuredContent, undefined);
  await stop(s);
});
