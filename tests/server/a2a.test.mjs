// A2A v1.0 against a running `baton serve`, driven by the official A2A JS SDK client
// (@a2a-js/sdk): the Agent Card, a whole delegation to a fixture agent (--fixture-agent), a
// question and its answer, a failure, a cancel, a paged list, and what is refused — another
// caller's task, a client without the A2A-Version header; a streamed delegation whose events
// carry the log's sequence numbers as SSE ids. Every
// task is a real handoff in the workspace's log. Then the official Python client (a2a-sdk, in
// the virtual environment scripts/setup.sh makes: $BATON_A2A_PYTHON) does a delegation, a
// question, a cancel and a list (tests/server/python/a2a_client.py).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as os from "node:os";
import { join } from "node:path";
import { root, ADMIN, tmpDb, start, stop, ok } from "./helpers.mjs";

const sdk = await import("@a2a-js/sdk/client");
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, DefaultAgentCardResolver } = sdk;

let server;
after(async () => {
  if (server) await stop(server);
});

/** An SDK client of `agent` that sends `key`, over JSON-RPC or (`rest`) HTTP+JSON. */
async function client(s, key, agent = "echo", rest = false) {
  const authed = (url, init = {}) => fetch(url, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${key}` } });
  const Transport = rest ? RestTransportFactory : JsonRpcTransportFactory;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new Transport({ fetchImpl: authed })],
      preferredTransports: [rest ? "HTTP+JSON" : "JSONRPC"],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
    }),
  );
  return factory.createFromUrl(`${s.url}/w/a2a/a2a/${agent}/`);
}

const say = (text, more = {}) => ({
  message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 1, parts: [{ content: { $case: "text", value: text } }], ...more },
});
const textOf = (parts) => parts.map((p) => p.content.value).join("");
// The SDK's TaskState numbers.
const COMPLETED = 3, FAILED = 4, CANCELED = 5, INPUT_REQUIRED = 6, REJECTED = 7;

async function raw(s, key, body, headers = {}) {
  const r = await fetch(`${s.url}/w/a2a/a2a/echo`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return r.json();
}

test("A2A: the official JS client delegates to a Baton agent — complete, ask and answer, fail, cancel, list", async () => {
  server = await start(tmpDb(), ["--fixture-agent", "echo"]);
  const s = server;
  await ok(s, "a2a", ADMIN, "create_workspace");
  await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", tools: ["project_manager_tools", "coordination_tools"] } });
  const { key } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:planner" });
  const { key: other } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:intruder" });

  // The card: a key is needed; it names the JSON-RPC interface, the tenant and the version.
  assert.equal((await fetch(`${s.url}/w/a2a/a2a/echo/.well-known/agent-card.json`)).status, 401);
  const card = await (await fetch(`${s.url}/w/a2a/a2a/echo/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${key}` } })).json();
  assert.deepEqual(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.tenant]), [["JSONRPC", "1.0", "echo"], ["HTTP+JSON", "1.0", "echo"], ["GRPC", "1.0", "a2a/echo"]]);
  // gRPC is at the server's address (its path is the service's; the tenant is the route).
  assert.equal(card.supportedInterfaces[2].url, new URL(s.url).host);
  assert.equal(card.capabilities.streaming, true);
  assert.equal((await fetch(`${s.url}/w/a2a/a2a/nobody/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${key}` } })).status, 404);

  // The card can be cached (A2A 1.0 §8.6): max-age, an ETag that If-None-Match revalidates
  // (304, no body), Last-Modified that If-Modified-Since revalidates; a changed card is served
  // whole again with another ETag.
  const cardUrl = `${s.url}/w/a2a/a2a/echo/.well-known/agent-card.json`;
  const fresh = await fetch(cardUrl, { headers: { authorization: `Bearer ${key}` } });
  assert.match(fresh.headers.get("cache-control"), /max-age=\d+/);
  const etag = fresh.headers.get("etag");
  const modified = fresh.headers.get("last-modified");
  assert.match(etag, /^"[0-9a-f]{32}"$/);
  assert.ok(!Number.isNaN(Date.parse(modified)), modified);
  const same = await fetch(cardUrl, { headers: { authorization: `Bearer ${key}`, "if-none-match": `"x", W/${etag}` } });
  assert.equal(same.status, 304);
  assert.equal(same.headers.get("etag"), etag);
  assert.equal(await same.text(), "");
  assert.equal((await fetch(cardUrl, { headers: { authorization: `Bearer ${key}`, "if-modified-since": modified } })).status, 304);
  assert.equal((await fetch(cardUrl, { headers: { authorization: `Bearer ${key}`, "if-none-match": '"stale"' } })).status, 200);
  const older = new Date(Date.parse(modified) - 1000).toUTCString();
  assert.equal((await fetch(cardUrl, { headers: { authorization: `Bearer ${key}`, "if-modified-since": older } })).status, 200);
  await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", display_name: "Echo v2", tools: ["project_manager_tools", "coordination_tools"] } });
  const changed = await fetch(cardUrl, { headers: { authorization: `Bearer ${key}`, "if-none-match": etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get("etag"), etag);
  assert.equal((await changed.json()).name, "Echo v2");

  const c = await client(s, key);
  // A whole delegation: the fixture completes it; the result is the status message and an artifact.
  const done = await c.sendMessage(say("complete: two risks remain"));
  assert.equal(done.status.state, COMPLETED);
  assert.equal(textOf(done.artifacts[0].parts), "two risks remain");
  const got = await c.getTask({ id: done.id });
  assert.equal(got.id, done.id);
  assert.equal(textOf(got.status.message.parts), "two risks remain");
  // Baton's own facts in metadata.baton, keys in camelCase as A2A's fields are.
  assert.equal(got.metadata.baton.handoffId, done.id);
  assert.match(got.metadata.baton.childThreadId, /\S/);

  // A question: INPUT_REQUIRED with the question; the next message on the task answers it.
  const asking = await c.sendMessage(say("ask: which region?"));
  assert.equal(asking.status.state, INPUT_REQUIRED);
  assert.equal(textOf(asking.status.message.parts), "which region?");
  assert.match(asking.metadata.baton.pendingQuestion, /\S/);
  const answered = await c.sendMessage(say("eu-west-1", { taskId: asking.id, contextId: asking.contextId }));
  assert.equal(answered.status.state, COMPLETED);
  assert.match(textOf(answered.artifacts[0].parts), /eu-west-1/);

  // A task in a terminal state is immutable (spec §3.1.1): a message to it changes nothing;
  // a taskId with another task's contextId is refused (§3.4.3).
  const logLength = async () => (await ok(s, "a2a", ADMIN, "log", { limit: 10000 })).records.length;
  let before = await logLength();
  await assert.rejects(c.sendMessage(say("one more thing", { taskId: done.id, contextId: done.contextId })), /terminal state/);
  const pending = await c.sendMessage(say("ask: which zone?"));
  await assert.rejects(c.sendMessage(say("eu-west-1a", { taskId: pending.id, contextId: done.contextId })), /contextId/);
  assert.equal((await c.getTask({ id: pending.id })).status.state, INPUT_REQUIRED);
  // A subscription (§3.1.6) lives through INPUT_REQUIRED until the task ends; a task already
  // ended cannot be subscribed to.
  const subscribeTo = (taskId) =>
    fetch(`${s.url}/w/a2a/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 11, method: "SubscribeToTask", params: { id: taskId } }),
    });
  const following = sse(await subscribeTo(pending.id), Infinity);
  await c.sendMessage(say("eu-west-1a", { taskId: pending.id, contextId: pending.contextId }));
  const seen = await following;
  assert.equal(seen[0].result.task.status.state, "TASK_STATE_INPUT_REQUIRED");
  assert.equal(seen.at(-1).result.statusUpdate?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(seen));
  const ended = await (await subscribeTo(done.id)).json();
  assert.equal(ended.error.code, -32004);
  assert.equal(ended.error.data[0].reason, "UNSUPPORTED_OPERATION");
  before = await logLength();
  await raw(s, key, { jsonrpc: "2.0", id: 12, method: "SubscribeToTask", params: { id: done.id } }, { "a2a-version": "1.0" });
  assert.equal(await logLength(), before, "a refused subscription changed nothing");

  // A failure, and a cancel (a terminal task cannot be cancelled).
  const failed = await c.sendMessage(say("fail: no access to the warehouse"));
  assert.equal(failed.status.state, FAILED);
  assert.match(textOf(failed.status.message.parts), /no access/);
  const waiting = await c.sendMessage(say("ask: shall I wait?"));
  assert.equal((await c.cancelTask({ id: waiting.id })).status.state, CANCELED);
  await assert.rejects(c.cancelTask({ id: failed.id }), (e) => e.constructor.name === "JsonRpcTaskNotCancelableError");

  // The list: the caller's tasks on this agent, newest first, in pages.
  const first = await c.listTasks({ pageSize: 3 });
  assert.equal(first.totalSize, 5);
  assert.deepEqual(first.tasks.map((t) => t.id), [waiting.id, failed.id, pending.id]);
  const rest = await c.listTasks({ pageSize: 3, pageToken: first.nextPageToken });
  assert.deepEqual(rest.tasks.map((t) => t.id), [asking.id, done.id]);
  assert.equal(rest.nextPageToken, "");
  // ProtoJSON input: a field by its original proto name reads as by its JSON name (a
  // context_id filter filters); one field under both names is refused, naming it.
  const v1h = { "a2a-version": "1.0" };
  const byContext = await raw(s, key, { jsonrpc: "2.0", id: 4, method: "ListTasks", params: { context_id: asking.contextId, page_size: 10 } }, v1h);
  assert.deepEqual(byContext.result.tasks.map((t) => t.id), [asking.id]);
  const both = await raw(s, key, { jsonrpc: "2.0", id: 5, method: "ListTasks", params: { contextId: asking.contextId, context_id: done.contextId } }, v1h);
  assert.equal(both.error.code, -32602);
  assert.match(both.error.message, /context_id|contextId/);
  // historyLength (§3.2.4): 0 leaves history out, n keeps the last n, a negative one is refused
  // by name and a refused SendMessage makes nothing.
  const getTask = (params) => raw(s, key, { jsonrpc: "2.0", id: 6, method: "GetTask", params }, v1h);
  // The history is the task's conversation (issue 24): the caller's text, the agent's
  // question and the answer, the agent's result; historyLength keeps the last n.
  const roleText = (m) => [m.role, m.parts.map((p) => p.text).join("")];
  assert.deepEqual((await getTask({ id: done.id })).result.history.map(roleText), [["ROLE_USER", "complete: two risks remain"], ["ROLE_AGENT", "two risks remain"]]);
  assert.deepEqual((await getTask({ id: asking.id })).result.history.map(roleText), [
    ["ROLE_USER", "ask: which region?"],
    ["ROLE_AGENT", "which region?"],
    ["ROLE_USER", "eu-west-1"],
    ["ROLE_AGENT", "Thanks — noted: eu-west-1"],
  ]);
  assert.deepEqual((await getTask({ id: asking.id, historyLength: 2 })).result.history.map(roleText), [["ROLE_USER", "eu-west-1"], ["ROLE_AGENT", "Thanks — noted: eu-west-1"]]);
  assert.equal((await getTask({ id: done.id, historyLength: 0 })).result.history, undefined);
  assert.equal((await getTask({ id: done.id, history_length: 1 })).result.history.length, 1);
  assert.match((await getTask({ id: done.id, historyLength: -1 })).error.message, /^historyLength:/);
  const listed = await raw(s, key, { jsonrpc: "2.0", id: 7, method: "ListTasks", params: { historyLength: 0 } }, v1h);
  assert.ok(listed.result.tasks.every((t) => t.history === undefined));
  const logBefore = await logLength();
  const refused = await raw(s, key, { jsonrpc: "2.0", id: 8, method: "SendMessage", params: { message: { messageId: "h1", role: "ROLE_USER", parts: [{ text: "complete: x" }] }, configuration: { historyLength: -2 } } }, v1h);
  assert.match(refused.error.message, /^configuration\.historyLength:/);
  assert.equal(await logLength(), logBefore, "a refused SendMessage made nothing");

  // Not found and not yours look the same.
  await assert.rejects(c.getTask({ id: "handoff_nope" }), (e) => e.constructor.name === "JsonRpcTaskNotFoundError");
  const intruder = await client(s, other);
  await assert.rejects(intruder.getTask({ id: done.id }), (e) => e.constructor.name === "JsonRpcTaskNotFoundError");
  assert.equal((await intruder.listTasks({ pageSize: 10 })).totalSize, 0);

  // Without A2A-Version the client speaks 0.3, which is not served.
  const old = await raw(s, key, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: done.id } });
  assert.equal(old.error.code, -32009);
  // Every A2A-specific error carries its google.rpc.ErrorInfo (spec §9.5); the protocol's own
  // codes (an unknown method) do not.
  const info = (reason) => [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" }];
  assert.deepEqual(old.error.data, info("VERSION_NOT_SUPPORTED"));
  const v1 = { "a2a-version": "1.0" };
  const missing = await raw(s, key, { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "handoff_nope" } }, v1);
  assert.equal(missing.error.code, -32001);
  assert.deepEqual(missing.error.data, info("TASK_NOT_FOUND"));
  const unknown = await raw(s, key, { jsonrpc: "2.0", id: 3, method: "NoSuchMethod", params: {} }, v1);
  assert.equal(unknown.error.code, -32601);
  assert.equal(unknown.error.data, undefined);

  // A streamed delegation to an agent that is not scripted: the task first (SUBMITTED), then —
  // as its child reports back — the result artifact and the COMPLETED status; the stream ends.
  await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "worker" } });
  const w = await client(s, key, "worker");
  const events = [];
  const streaming = (async () => {
    for await (const e of w.sendMessageStream(say("Review the model"))) events.push(e);
  })();
  while (events.length === 0) await new Promise((r) => setTimeout(r, 10));
  const started = events[0].payload.value;
  assert.equal(events[0].payload.$case, "task");
  assert.equal(started.status.state, 1, "SUBMITTED");
  const rec = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "handoff" && JSON.stringify(r).includes(started.id));
  const child = rec.changes.find((x) => x.kind === "handoff").child_thread_id;
  await ok(s, "a2a", ADMIN, "call", {
    tool: "mailbox_action",
    args: { action: "SEND_MESSAGE", to_thread_id: `a2a-${started.contextId}`, to_bot_id: "planner", body: "Reviewed: fine." },
    as: { thread: child, bot: "worker" },
  });
  await streaming;
  assert.deepEqual(events.map((e) => e.payload.$case), ["task", "artifactUpdate", "statusUpdate"], JSON.stringify(events));
  assert.equal(textOf(events[1].payload.value.artifact.parts), "Reviewed: fine.");
  assert.equal(events[2].payload.value.status.state, COMPLETED);
  // Every event of the stream carries the log's sequence number as its SSE id.
  const streamed = await (await fetch(`${s.url}/w/a2a/a2a/echo`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params: { message: { messageId: "raw", role: "ROLE_USER", parts: [{ text: "complete: streamed" }] } } }),
  })).text();
  const ids = [...streamed.matchAll(/^id: ?(\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(ids.length, 1, streamed);
  assert.match(streamed, /"TASK_STATE_COMPLETED"/);
  const streamedId = streamed.match(/"id":"(handoff_[0-9a-f]+)"/)[1];
  const [atId] = (await ok(s, "a2a", ADMIN, "log", { after: ids[0] - 1, limit: 1 })).records;
  assert.equal(atId.seq, ids[0]);
  assert.ok(JSON.stringify(atId).includes(streamedId), "the event's id is the record that finished the task");

  // Every task is a handoff in Baton's log, from the caller's context thread to the agent.
  const log = await ok(s, "a2a", ADMIN, "log", { limit: 1000 });
  const handoffs = log.records.filter((r) => r.command === "handoff").map((r) => r.changes.find((x) => x.kind === "handoff"));
  assert.equal(handoffs.length, 7, "five tasks, the streamed one and the raw stream's");
  for (const h of handoffs) {
    assert.equal(h.parent_bot_id, "planner");
    assert.ok(["echo", "worker"].includes(h.child_bot_id));
    assert.match(h.parent_thread_id, /^a2a-ctx-/);
  }
  assert.equal(handoffs.find((h) => h.handoff_id === done.id).parent_thread_id, `a2a-${done.contextId}`);
});

/** Reads a raw A2A SSE answer until `count` events came (or `done` says so): [{id, result}]
 * (JSON-RPC's events carry the StreamResponse as `result`, HTTP+JSON's are it). */
async function sse(response, count) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events = () =>
    text
      .split("\n\n")
      .filter((b) => /^data:/m.test(b))
      .map((b) => ({ id: Number(b.match(/^id: ?(\d+)$/m)?.[1]), data: JSON.parse(b.match(/^data: ?(.*)$/m)[1]) }))
      .map(({ id, data }) => ({ id, result: data.jsonrpc ? data.result : data }));
  while (events().length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return events();
}

test("A2A: the fixture rejects and streams a plan; every event is its record's, and SubscribeToTask resumes after Last-Event-ID", async () => {
  const s = await start(tmpDb(), ["--fixture-agent", "echo"]);
  try {
    await ok(s, "a2a", ADMIN, "create_workspace");
    await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", tools: ["project_manager_tools", "coordination_tools"] } });
    await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "worker", tools: ["project_manager_tools", "coordination_tools"] } });
    const { key } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:planner" });
    const c = await client(s, key);

    // reject: the host could not start the child (start_failed, G18) — REJECTED with the reason.
    const rejected = await c.sendMessage(say("reject: not my area"));
    assert.equal(rejected.status.state, REJECTED);
    assert.equal(textOf(rejected.status.message.parts), "not my area");
    assert.equal(rejected.metadata.baton.status, "materialize_failed");
    // A finished task takes no script (it takes nothing); a malformed script makes nothing.
    const done = await c.sendMessage(say("complete: fine"));
    await assert.rejects(c.sendMessage(say("reject: changed my mind", { taskId: done.id, contextId: done.contextId })), /terminal state/);
    const before = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.length;
    await assert.rejects(c.sendMessage(say("stream: a | a")), /twice/);
    assert.equal((await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.length, before, "a refused script changed nothing");

    // stream: the plan moves one step per commit, then the result and COMPLETED.
    const events = [];
    for await (const e of c.sendMessageStream(say("stream: gather | draft | check"))) events.push(e);
    assert.deepEqual(events.map((e) => e.payload.$case), ["task", "artifactUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"], JSON.stringify(events));
    const steps = events.slice(1, 4).map((e) => e.payload.value.artifact.parts[0].content.value.steps.map((x) => x.status).join(","));
    assert.deepEqual(steps, ["completed,in_progress,pending", "completed,completed,in_progress", "completed,completed,completed"]);
    assert.equal(events[0].payload.value.artifacts[0].artifactId, "plan", "the first step is in the task");
    assert.equal(textOf(events[4].payload.value.artifact.parts), "gather\ndraft\ncheck");
    assert.equal(events[5].payload.value.status.state, COMPLETED);

    // The same stream raw: each event's id is the sequence number of the record it reflects.
    const raw = await fetch(`${s.url}/w/a2a/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "SendStreamingMessage", params: { message: { messageId: "raw-stream", role: "ROLE_USER", parts: [{ text: "stream: one | two" }] } } }),
    });
    const got = await sse(raw, 5);
    assert.deepEqual(got.map((e) => Object.keys(e.result)[0]), ["task", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const ids = got.map((e) => e.id);
    assert.ok(ids[0] < ids[1] && ids[1] < ids[2] && ids[2] < ids[3], ids.join(","));
    assert.equal(ids[3], ids[4], "the report is one record: its artifact and its status");
    for (const e of got.slice(1)) {
      const [rec] = (await ok(s, "a2a", ADMIN, "log", { after: e.id - 1, limit: 1 })).records;
      const kind = Object.keys(e.result)[0];
      const id = kind === "artifactUpdate" && e.result.artifactUpdate.artifact.artifactId === "plan" ? "write_todo" : "mailbox_action";
      assert.equal(rec.command, id, `event ${e.id} is the record ${rec.seq} (${rec.command})`);
    }

    // SubscribeToTask on a real agent's live task; resumed with Last-Event-ID.
    const w = await client(s, key, "worker");
    const live = await w.sendMessage({ ...say("Plan the release"), configuration: { returnImmediately: true, acceptedOutputModes: [] } });
    const subscribe = (lastId) =>
      fetch(`${s.url}/w/a2a/a2a/worker`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...(lastId ? { "last-event-id": String(lastId) } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 10, method: "SubscribeToTask", params: { id: live.id } }),
      });
    const [snapshot] = await sse(await subscribe(), 1);
    assert.equal(snapshot.result.task.id, live.id);
    const rec = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "handoff" && JSON.stringify(r).includes(live.id));
    const child = rec.changes.find((x) => x.kind === "handoff").child_thread_id;
    // The child's turn as a host reports it: the tool call (its first activity: WORKING), then the call itself.
    const todo = async (status) => {
      await ok(s, "a2a", ADMIN, "host", { input: "tool_call", args: { thread_id: child, tool: "write_todo" } });
      await ok(s, "a2a", ADMIN, "call", { tool: "write_todo", args: { steps: [{ title: "cut the branch", status }] }, as: { thread: child, bot: "worker" } });
    };
    // Nothing new since the client's last id: the resumed stream sends no task again, only what follows.
    const resumed = await subscribe(snapshot.id);
    const reading = sse(resumed, 2);
    await todo("in_progress");
    const next = await reading;
    assert.deepEqual(next.map((e) => Object.keys(e.result)[0]), ["statusUpdate", "artifactUpdate"], JSON.stringify(next));
    assert.ok(snapshot.id < next[0].id && next[0].id < next[1].id, "each event is its own record's");
    assert.equal(next[0].result.statusUpdate.status.state, "TASK_STATE_WORKING");
    // Records after the client's id: exactly the events it missed, replayed from the log.
    await todo("completed");
    const [again] = await sse(await subscribe(next[1].id), 1);
    assert.ok(again.id > next[1].id);
    assert.equal(again.result.artifactUpdate.artifact.parts[0].data.steps[0].status, "completed", JSON.stringify(again));
  } finally {
    await stop(s);
  }
});

test("A2A: push-notification configs are the task's callback (G14): set with the message or later, read, listed, deleted; the push is the task, with the token", async () => {
  const { createServer } = await import("node:http");
  // A receiver on loopback: answers 503 to the first push of a task named "flaky", 200 otherwise.
  const pushes = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      pushes.push({ path: req.url, headers: req.headers, body: JSON.parse(body) });
      const flaky = req.url.includes("flaky") && pushes.filter((p) => p.path === req.url).length === 1;
      res.writeHead(flaky ? 503 : 200).end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${receiver.address().port}`;
  const s = await start(tmpDb(), ["--fixture-agent", "echo", "--allow-private-callbacks", "--callback-backoff-ms", "20"]);
  try {
    await ok(s, "a2a", ADMIN, "create_workspace");
    await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", tools: ["project_manager_tools", "coordination_tools"] } });
    await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "worker" } });
    const { key } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:planner" });
    const card = await (await fetch(`${s.url}/w/a2a/a2a/echo/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${key}` } })).json();
    assert.equal(card.capabilities.pushNotifications, true);
    const c = await client(s, key);
    const until = async (n) => {
      for (let i = 0; i < 500 && pushes.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(pushes.length, n, JSON.stringify(pushes));
    };

    // With the message: the fixture completes at once; the push carries the finished task and the token.
    const withPush = { taskPushNotificationConfig: { url: `${hook}/done`, token: "tok-1", id: "cfg-1", tenant: "", taskId: "", authentication: undefined } };
    // Blocking (spec §3.2.2): the answer waits while the task is WORKING (its completion waits
    // on the push) and comes once the push has landed.
    const done = await c.sendMessage({ ...say("complete: pushed"), configuration: withPush });
    assert.equal(done.status.state, COMPLETED, "answered once the push landed");
    await until(1);
    assert.equal(pushes[0].path, "/done");
    assert.equal(pushes[0].headers["x-a2a-notification-token"], "tok-1");
    assert.equal(pushes[0].headers["content-type"], "application/a2a+json");
    assert.equal(pushes[0].body.task.id, done.id);
    assert.equal(pushes[0].body.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(pushes[0].body.task.artifacts[0].parts[0].text, "pushed");
    for (let i = 0; i < 100 && (await c.getTask({ id: done.id })).status.state !== COMPLETED; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await c.getTask({ id: done.id })).status.state, COMPLETED, "the post landed: completed");
    const kept = await c.getTaskPushNotificationConfig({ taskId: done.id, id: "cfg-1", tenant: "" });
    assert.deepEqual([kept.id, kept.taskId, kept.url, kept.token], ["cfg-1", done.id, `${hook}/done`, "tok-1"]);

    // Later, on a live task (a real agent's, still running): create, read, list, replace, delete, create again.
    const w = await client(s, key, "worker");
    // A blocking message to a real agent is held until the task settles (here: until its child
    // reports, below); meanwhile the task is listed, and configs are set on it.
    let answered = null;
    const blocked = w.sendMessage(say("Review the model")).then((t) => (answered = t));
    let live;
    for (let i = 0; i < 500 && !live; i++) {
      live = (await w.listTasks({ pageSize: 1 })).tasks[0];
      if (!live) await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(live.status.state, 1, "SUBMITTED");
    const cfg = { taskId: live.id, id: "cfg-2", url: `${hook}/flaky`, token: "", tenant: "", authentication: { scheme: "Bearer", credentials: "secret" } };
    const made = await w.createTaskPushNotificationConfig(cfg);
    assert.deepEqual([made.id, made.url, made.authentication.scheme, made.authentication.credentials], ["cfg-2", `${hook}/flaky`, "Bearer", "secret"]);
    assert.deepEqual((await w.listTaskPushNotificationConfig({ taskId: live.id, tenant: "", pageSize: 10, pageToken: "" })).configs.map((x) => x.id), ["cfg-2"]);
    // One per task: another id is refused (naming the one kept); bad input names the field.
    await assert.rejects(w.createTaskPushNotificationConfig({ ...cfg, id: "cfg-3" }), /cfg-2/);
    await assert.rejects(w.createTaskPushNotificationConfig({ ...cfg, url: "ftp://nowhere" }), /url/);
    await w.deleteTaskPushNotificationConfig({ taskId: live.id, id: "cfg-2", tenant: "" });
    assert.deepEqual((await w.listTaskPushNotificationConfig({ taskId: live.id, tenant: "", pageSize: 10, pageToken: "" })).configs, []);
    await assert.rejects(w.getTaskPushNotificationConfig({ taskId: live.id, id: "cfg-2", tenant: "" }), (e) => e.constructor.name === "JsonRpcTaskNotFoundError");
    await w.createTaskPushNotificationConfig(cfg);
    // A follow-up on the live task (not waited on): it is kept, and the history shows it.
    const followed = await w.sendMessage({ ...say("Also check the currency columns.", { taskId: live.id, contextId: live.contextId }), configuration: { returnImmediately: true, acceptedOutputModes: [] } });
    assert.equal(followed.id, live.id);
    // The child reports back: the first post fails (503) and is retried; the second lands.
    const rec = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "handoff" && JSON.stringify(r).includes(live.id));
    const child = rec.changes.find((x) => x.kind === "handoff").child_thread_id;
    await ok(s, "a2a", ADMIN, "call", {
      tool: "mailbox_action",
      args: { action: "SEND_MESSAGE", to_thread_id: `a2a-${live.contextId}`, to_bot_id: "planner", body: "Reviewed: fine." },
      as: { thread: child, bot: "worker" },
    });
    // S5: the report is held until the turn that answered the follow-up ends.
    await ok(s, "a2a", ADMIN, "host", { input: "turn_ended", args: { thread_id: child } });
    await until(3);
    assert.deepEqual(pushes.slice(1).map((p) => [p.path, p.headers.authorization, p.body.task.status.state]), [
      ["/flaky", "Bearer secret", "TASK_STATE_COMPLETED"],
      ["/flaky", "Bearer secret", "TASK_STATE_COMPLETED"],
    ]);
    for (let i = 0; i < 100 && (await w.getTask({ id: live.id })).status.state !== COMPLETED; i++) await new Promise((r) => setTimeout(r, 10));
    const finished = await w.getTask({ id: live.id });
    assert.equal(finished.status.state, COMPLETED);
    await blocked;
    assert.equal(answered.id, live.id);
    assert.equal(answered.status.state, COMPLETED, "the blocked message was answered with the finished task");
    assert.equal(textOf(answered.artifacts[0].parts), "Reviewed: fine.");
    assert.deepEqual(answered.history.map((m) => [m.role, textOf(m.parts)]), [
      [1, "Review the model"],
      [1, "Also check the currency columns."],
      [2, "Reviewed: fine."],
    ]);
    // A finished task's config is still readable.
    assert.equal((await w.getTaskPushNotificationConfig({ taskId: live.id, id: "cfg-2", tenant: "" })).url, `${hook}/flaky`);
    // It can be deleted, and one created on a finished task is kept, never posted (A2A allows
    // configs on any task; nothing more happens to a finished one).
    await w.deleteTaskPushNotificationConfig({ taskId: live.id, id: "cfg-2", tenant: "" });
    await w.deleteTaskPushNotificationConfig({ taskId: live.id, id: "cfg-2", tenant: "" }); // again: idempotent (§3.1.10)
    assert.equal((await w.createTaskPushNotificationConfig({ ...cfg, id: "cfg-late" })).id, "cfg-late");
    assert.equal((await w.getTask({ id: live.id })).status.state, COMPLETED, "the finished task did not move");

    // A task sent with returnImmediately is not watched: no push config, with the message or later.
    const quick = await w.sendMessage({ ...say("Quick look"), configuration: { returnImmediately: true, acceptedOutputModes: [] } });
    await assert.rejects(w.createTaskPushNotificationConfig({ ...cfg, taskId: quick.id }), /async_mode=true/);
    await assert.rejects(
      w.sendMessage({ ...say("Quick look"), configuration: { returnImmediately: true, acceptedOutputModes: [], ...withPush } }),
      /returnImmediately/,
    );
    const log = await ok(s, "a2a", ADMIN, "log", { limit: 1000 });
    assert.equal(log.records.filter((r) => r.command === "handoff").length, 3, "the refused message made no task");
  } finally {
    await stop(s);
    receiver.close();
  }
});

test("A2A over HTTP+JSON (spec §11): the official JS client's REST transport delegates; paths, verbs, query, AIP-193 errors, SSE; both bindings see the same tasks", async () => {
  const s = await start(tmpDb(), ["--fixture-agent", "echo"]);
  try {
    await ok(s, "a2a", ADMIN, "create_workspace");
    await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", tools: ["project_manager_tools", "coordination_tools"] } });
    const { key } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:planner" });
    const c = await client(s, key, "echo", true);
    assert.equal(c.transport.protocolName ?? "HTTP+JSON", "HTTP+JSON");

    // A whole delegation, a question and its answer, a list, a cancel — through the SDK's
    // REST transport (which puts the card's tenant before each path).
    const done = await c.sendMessage(say("complete: over REST"));
    assert.equal(done.status.state, COMPLETED);
    assert.equal(textOf(done.artifacts[0].parts), "over REST");
    assert.equal((await c.getTask({ id: done.id })).id, done.id);
    const asking = await c.sendMessage(say("ask: which bucket?"));
    assert.equal(asking.status.state, INPUT_REQUIRED);
    const answered = await c.sendMessage(say("logs-eu", { taskId: asking.id, contextId: asking.contextId }));
    assert.equal(answered.status.state, COMPLETED);
    await assert.rejects(c.sendMessage(say("more", { taskId: done.id, contextId: done.contextId })), (e) => e.constructor.name === "RestUnsupportedOperationError");
    const waiting = await c.sendMessage(say("ask: shall I wait?"));
    const config = { taskId: waiting.id, id: "rest-cfg", url: "https://hooks.example.com/rest", token: "t0k", tenant: "" };
    assert.equal((await c.createTaskPushNotificationConfig(config)).id, "rest-cfg");
    assert.equal((await c.getTaskPushNotificationConfig({ taskId: waiting.id, id: "rest-cfg", tenant: "" })).token, "t0k");
    assert.deepEqual((await c.listTaskPushNotificationConfig({ taskId: waiting.id, tenant: "" })).configs.map((x) => x.id), ["rest-cfg"]);
    await c.deleteTaskPushNotificationConfig({ taskId: waiting.id, id: "rest-cfg", tenant: "" });
    assert.equal((await c.listTaskPushNotificationConfig({ taskId: waiting.id, tenant: "" })).configs.length, 0);
    assert.equal((await c.cancelTask({ id: waiting.id })).status.state, CANCELED);
    await assert.rejects(c.cancelTask({ id: done.id }), (e) => e.constructor.name === "RestTaskNotCancelableError");
    await assert.rejects(c.getTask({ id: "handoff_nope" }), (e) => e.constructor.name === "RestTaskNotFoundError");
    const listed = await c.listTasks({ pageSize: 2 });
    assert.equal(listed.totalSize, 3);
    assert.deepEqual(listed.tasks.map((t) => t.id), [waiting.id, asking.id]);
    const events = [];
    for await (const e of c.sendMessageStream(say("stream: gather | check"))) events.push(e.payload.$case);
    assert.deepEqual(events, ["task", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    // The extended card (§3.1.11) for an authenticated caller.
    const extended = await c.getAgentCard();
    assert.deepEqual(extended.supportedInterfaces.map((i) => i.protocolBinding), ["JSONRPC", "HTTP+JSON", "GRPC"]);

    // The same tasks on the other binding: one engine, one writer, the same key.
    const rpc = await client(s, key);
    assert.equal((await rpc.getTask({ id: done.id })).status.state, COMPLETED);

    // Raw: what the binding says at each path and verb.
    const base = `${s.url}/w/a2a/a2a/echo`;
    const auth = { authorization: `Bearer ${key}`, "a2a-version": "1.0" };
    const get = (path, headers = auth) => fetch(`${base}${path}`, { headers });
    const logLength = async () => (await ok(s, "a2a", ADMIN, "log", { limit: 10000 })).records.length;
    const before = await logLength();
    let r = await get(`/tasks/${done.id}?historyLength=0`);
    assert.equal(r.status, 200);
    const got = await r.json();
    assert.equal(got.id, done.id);
    assert.equal(got.history, undefined);
    assert.equal((await (await get(`/echo/tasks/${done.id}`)).json()).id, done.id, "the tenant may come first");
    assert.deepEqual((await (await get(`/tasks?status=completed&pageSize=10`)).json()).tasks.map((t) => t.status.state).sort(), ["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"]);
    assert.deepEqual((await (await get(`/tasks?context_id=${asking.contextId}`)).json()).tasks.map((t) => t.id), [asking.id]);
    // AIP-193 errors under the spec's statuses (§5.4, §11.6), ErrorInfo in details.
    r = await get("/tasks/handoff_nope");
    assert.equal(r.status, 404);
    const missing = await r.json();
    assert.equal(missing.error.code, 404);
    assert.equal(missing.error.status, "NOT_FOUND");
    assert.deepEqual(missing.error.details, [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }]);
    r = await fetch(`${base}/tasks/${done.id}:cancel`, { method: "POST", headers: auth });
    assert.equal(r.status, 409);
    assert.equal((await r.json()).error.details[0].reason, "TASK_NOT_CANCELABLE");
    r = await fetch(`${base}/tasks/${done.id}:subscribe`, { method: "POST", headers: auth });
    assert.equal(r.status, 400, "a terminal task cannot be subscribed to");
    assert.equal((await r.json()).error.details[0].reason, "UNSUPPORTED_OPERATION");
    r = await get("/tasks?colour=red");
    assert.equal(r.status, 400);
    assert.match((await r.json()).error.message, /^colour:/);
    r = await get("/tasks?pageSize=ten");
    assert.match((await r.json()).error.message, /^pageSize:/);
    r = await fetch(`${base}/tasks/${done.id}`, { method: "DELETE", headers: auth });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get("allow"), "GET");
    assert.equal((await get("/nothing/here/at/all")).status, 404);
    r = await get(`/tasks/${done.id}`, { authorization: `Bearer ${key}` });
    assert.equal(r.status, 400, "a client without A2A-Version is 0.3, not served");
    assert.equal((await r.json()).error.details[0].reason, "VERSION_NOT_SUPPORTED");
    assert.equal((await get(`/tasks/${done.id}`, { "a2a-version": "1.0" })).status, 401);
    const post = (path, body) => fetch(`${base}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    // Both bindings carry JSON only: another Content-Type is 415 at the HTTP level.
    r = await fetch(`${base}/message:send`, { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "hello" });
    assert.equal(r.status, 415);
    r = await fetch(base, { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "{'jsonrpc': '2.0'}" });
    assert.equal(r.status, 415);
    r = await post("/message:send", "{not json");
    assert.equal(r.status, 400);
    r = await post("/message:send", JSON.stringify({ message: { messageId: "r1", role: "ROLE_USER", parts: [{ url: "https://x/y.png" }] } }));
    assert.equal(r.status, 415);
    assert.equal((await r.json()).error.details[0].reason, "CONTENT_TYPE_NOT_SUPPORTED");
    r = await post(`/tasks/${asking.id}/pushNotificationConfigs`, JSON.stringify({ taskId: done.id, url: "https://hooks.example.com/x" }));
    assert.equal(r.status, 400, "a body that names another task than the path is refused");
    assert.match((await r.json()).error.message, /^taskId:/);
    assert.equal(await logLength(), before, "reads and refusals changed nothing");
    // A streamed message over REST: SSE whose data is the StreamResponse itself, ids the log's.
    r = await post("/message:stream", JSON.stringify({ message: { messageId: "r2", role: "ROLE_USER", parts: [{ text: "complete: streamed" }] } }));
    assert.match(r.headers.get("content-type"), /^text\/event-stream/);
    const streamed = await sse(r, Infinity);
    assert.ok(streamed[0].result.task, JSON.stringify(streamed));
    assert.equal(streamed.at(-1).result.task?.status.state ?? streamed.at(-1).result.statusUpdate?.status.state, "TASK_STATE_COMPLETED");
    assert.ok(streamed.every((e) => Number.isInteger(e.id)));
  } finally {
    await stop(s);
  }
});

test("A2A: the official Python client (a2a-sdk) delegates to a Baton agent over JSON-RPC, HTTP+JSON and gRPC", async () => {
  const python = process.env.BATON_A2A_PYTHON ?? join(os.homedir(), ".cache", "baton-tools", "a2a-py", "bin", "python");
  const s = await start(tmpDb(), ["--fixture-agent", "echo", "--a2a-default", "py/echo"]);
  await ok(s, "py", ADMIN, "create_workspace");
  await ok(s, "py", ADMIN, "host", { input: "register_agent", args: { bot_id: "echo", tools: ["project_manager_tools", "coordination_tools"] } });
  const script = join(root, "tests", "server", "python", "a2a_client.py");
  // On each binding the card offers, the Python client finds the agent from the server's
  // root card (--a2a-default).
  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
    // a caller of its own per binding: each run's list is its own tasks
    const { key } = await ok(s, "py", ADMIN, "create_key", { principal: `bot:py-${{ JSONRPC: "rpc", "HTTP+JSON": "rest", GRPC: "grpc" }[binding]}` });
    const { code, out } = await new Promise((resolve) => {
      const p = spawn(python, [script, `${s.url}/`, key, binding], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      p.stdout.on("data", (d) => (out += d));
      p.stderr.on("data", (d) => (out += d));
      p.on("exit", (code) => resolve({ code, out }));
    });
    assert.equal(code, 0, `${binding}: ${out}`);
    assert.equal(out.trim().split("\n").filter((l) => l.startsWith("ok ")).length, 11, out);
  }
  const log = await ok(s, "py", ADMIN, "log", { limit: 1000 });
  assert.equal(log.records.filter((r) => r.command === "handoff").length, 18, "six tasks, six handoffs, on each binding");
  // Without --a2a-default the root has no card.
  const plain = await start(tmpDb());
  assert.equal((await fetch(`${plain.url}/.well-known/agent-card.json`)).status, 404);
  await stop(plain);
  await stop(s);
});

test("A2A v1.1 draft generations (extension): a raw client counts mutations, detects a missed event by a gap, long-polls to the next mutation, and a stale ifGenerationMatch is refused with nothing changed", async () => {
  const s = await start(tmpDb(), ["--fixture-agent", "echo"]);
  try {
    await ok(s, "a2a", ADMIN, "create_workspace");
    for (const bot of ["echo", "worker"]) {
      await ok(s, "a2a", ADMIN, "host", { input: "register_agent", args: { bot_id: bot, tools: ["project_manager_tools", "coordination_tools"] } });
    }
    const { key } = await ok(s, "a2a", ADMIN, "create_key", { principal: "bot:planner" });
    const card = await (await fetch(`${s.url}/w/a2a/a2a/worker/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${key}` } })).json();
    const [ext] = card.capabilities.extensions;
    assert.match(ext.uri, /a2aproject\/A2A\/blob\/[0-9a-f]{40}\/docs\/specification\.md#327-task-generation-semantics$/);
    assert.equal(ext.required, false);
    const EXT = { "a2a-extensions": ext.uri };
    const rpc = async (agent, method, params, headers = EXT) => {
      const r = await fetch(`${s.url}/w/a2a/a2a/${agent}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      return { headers: r.headers, body: await r.json() };
    };
    const message = (text, more = {}) => ({ message: { messageId: `g-${Math.random().toString(36).slice(2)}`, role: "ROLE_USER", parts: [{ text }], ...more } });

    // A 1.0 client (no A2A-Extensions) sees no generation; one that names the extension does,
    // and the answer says the extension was used. A new task starts at generation 1.
    const plain = await rpc("worker", "SendMessage", { ...message("Plan the release"), configuration: { returnImmediately: true } }, {});
    assert.equal(plain.body.result.task.generation, undefined);
    assert.equal(plain.headers.get("a2a-extensions"), null);
    const made = await rpc("worker", "SendMessage", { ...message("Cut the branch"), configuration: { returnImmediately: true } });
    assert.equal(made.headers.get("a2a-extensions"), ext.uri);
    const task = made.body.result.task;
    assert.equal(task.generation, "1", JSON.stringify(task));
    assert.equal(task.status.state, "TASK_STATE_SUBMITTED");
    const get = async (params) => (await rpc("worker", "GetTask", { id: task.id, ...params })).body.result;

    // The child works as a host reports it: each mutation is one event, one generation more.
    const rec = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.find((r) => r.command === "handoff" && JSON.stringify(r).includes(task.id));
    const child = rec.changes.find((x) => x.kind === "handoff").child_thread_id;
    const todo = async (status) => {
      await ok(s, "a2a", ADMIN, "host", { input: "tool_call", args: { thread_id: child, tool: "write_todo" } });
      await ok(s, "a2a", ADMIN, "call", { tool: "write_todo", args: { steps: [{ title: "cut the branch", status }] }, as: { thread: child, bot: "worker" } });
    };
    const subscribe = (lastId) =>
      fetch(`${s.url}/w/a2a/a2a/worker`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...EXT, ...(lastId ? { "last-event-id": String(lastId) } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SubscribeToTask", params: { id: task.id } }),
      });
    const reading = sse(await subscribe(), 3);
    await todo("in_progress");
    const seen = await reading;
    assert.deepEqual(seen.map((e) => Object.keys(e.result)[0]), ["task", "statusUpdate", "artifactUpdate"]);
    const gens = seen.map((e) => Number(Object.values(e.result)[0].generation));
    assert.deepEqual(gens, [1, 2, 3], "every event carries the generation after its mutation, one apart");
    assert.equal((await get({})).generation, "3", "a read agrees with the stream");

    // The client is away while the plan changes (the tool call moves nothing: already
    // WORKING). Resumed after its last event id, it gets exactly the missed event: generation 4.
    await todo("completed");
    const [back] = await sse(await subscribe(seen[2].id), 1);
    assert.equal(back.result.artifactUpdate.generation, "4", JSON.stringify(back));
    // Away again for two changes: both replayed, in order, no gap.
    await todo("in_progress");
    await todo("completed");
    const replayed = await sse(await subscribe(back.id), 2);
    assert.deepEqual(replayed.map((e) => e.result.artifactUpdate.generation), ["5", "6"]);
    // A client that does not resume (no Last-Event-ID) gets the task as it stands: having seen
    // generation 4, it finds 6 — a gap, so events were missed, and the task in hand is whole.
    const [fresh] = await sse(await subscribe(), 1);
    assert.equal(fresh.result.task.generation, "6");
    assert.ok(Number(fresh.result.task.generation) > Number(back.result.artifactUpdate.generation) + 1, "the gap shows a missed event");
    assert.equal(fresh.result.task.artifacts.find((a) => a.artifactId === "plan").parts[0].data.steps[0].status, "completed");

    // Long poll: a generation already passed is answered at once; the current one is held
    // (a read of the task meanwhile comes back first) until the next mutation, then answered
    // with the task past it.
    assert.equal((await get({ currentGeneration: "2" })).generation, "6");
    let answered = false;
    const poll = get({ currentGeneration: 6, historyLength: 0 }).then((t) => ((answered = true), t));
    assert.equal((await get({})).generation, "6");
    assert.equal(answered, false, "the long poll is held while nothing changes");
    await todo("in_progress");
    const polled = await poll;
    assert.equal(polled.generation, "7");
    assert.equal(polled.history, undefined, "the held read keeps its historyLength");
    // Over HTTP+JSON too (currentGeneration in the query).
    const restGet = await fetch(`${s.url}/w/a2a/a2a/worker/tasks/${task.id}?currentGeneration=3`, { headers: { authorization: `Bearer ${key}`, "a2a-version": "1.0", ...EXT } });
    assert.equal((await restGet.json()).generation, "7");

    // Optimistic concurrency: a follow-up with a stale ifGenerationMatch is refused
    // (TaskGenerationMismatchError, -32010, its ErrorInfo naming both generations) and changes
    // nothing; with the current one it is taken.
    const logBefore = (await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.length;
    const stale = await rpc("worker", "SendMessage", { ...message("also tag it", { taskId: task.id, contextId: task.contextId }), configuration: { returnImmediately: true, ifGenerationMatch: "6" } });
    assert.equal(stale.body.error.code, -32010, JSON.stringify(stale.body));
    const info = stale.body.error.data[0];
    assert.equal(info.reason, "TASK_GENERATION_MISMATCH");
    assert.equal(info.domain, "a2a-protocol.org");
    assert.deepEqual(info.metadata, { taskId: task.id, expectedGeneration: "6", currentGeneration: "7" });
    const restStale = await fetch(`${s.url}/w/a2a/a2a/worker/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...EXT },
      body: JSON.stringify({ ...message("also tag it", { taskId: task.id }), configuration: { returnImmediately: true, ifGenerationMatch: 5 } }),
    });
    assert.equal(restStale.status, 409);
    const restError = (await restStale.json()).error;
    assert.equal(restError.status, "ABORTED");
    assert.equal(restError.details[0].metadata.currentGeneration, "7");
    assert.equal((await ok(s, "a2a", ADMIN, "log", { limit: 1000 })).records.length, logBefore, "a refused send wrote nothing");
    const unchanged = await get({});
    assert.equal(unchanged.generation, "7");
    assert.equal(unchanged.history.length, 1, "no follow-up was kept");
    const taken = await rpc("worker", "SendMessage", { ...message("also tag it", { taskId: task.id }), configuration: { returnImmediately: true, ifGenerationMatch: 7 } });
    assert.equal(taken.body.result.task.history.length, 2, JSON.stringify(taken.body));
    // The field is ignored for a message that makes a new task (spec: MUST be ignored).
    const other = await rpc("worker", "SendMessage", { ...message("Write the notes"), configuration: { returnImmediately: true, ifGenerationMatch: 42 } });
    assert.equal(other.body.result.task.generation, "1");

    // A streamed delegation to the fixture agent: consecutive generations to its completion,
    // and the finished task reads at the last one.
    const streamed = await fetch(`${s.url}/w/a2a/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...EXT },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "SendStreamingMessage", params: message("stream: one | two") }),
    });
    const events = await sse(streamed, 5);
    const numbers = events.map((e) => Number(Object.values(e.result)[0].generation));
    for (let i = 1; i < numbers.length; i++) assert.equal(numbers[i], numbers[i - 1] + 1, numbers.join(","));
    const id = events[0].result.task.id;
    const final = (await rpc("echo", "GetTask", { id })).body.result;
    assert.equal(final.status.state, "TASK_STATE_COMPLETED");
    assert.equal(Number(final.generation), numbers.at(-1));
    // Resumed after its end, the subscription replays what the client missed — the same events,
    // the same generations — and closes (the task is terminal).
    const resumedEnd = await fetch(`${s.url}/w/a2a/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "a2a-version": "1.0", ...EXT, "last-event-id": String(events[2].id) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "SubscribeToTask", params: { id } }),
    });
    const tail = await sse(resumedEnd, 99);
    assert.deepEqual(tail.map((e) => [e.id, e.result]), events.slice(3).map((e) => [e.id, e.result]));
    // A finished task's long poll is answered at once: its generation will not move.
    assert.equal((await rpc("echo", "GetTask", { id, currentGeneration: numbers.at(-1) })).body.result.generation, final.generation);
  } finally {
    await stop(s);
  }
});
