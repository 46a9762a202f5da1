// The agent both A2A comparisons run (bench/node-storage.mjs in process, bench/a2a-server.mjs
// over HTTP): an agent card for A2A 1.0 JSON-RPC and an executor that completes each task at
// once with a report and one artifact — the least work an A2A server can do per task.
export const card = {
  name: "bench", description: "bench", version: "1.0.0",
  supportedInterfaces: [{ url: "http://127.0.0.1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  capabilities: { streaming: false, pushNotifications: false, extensions: [] },
  defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [],
};

const text = (value) => ({ content: { $case: "text", value } });

export const executor = {
  async execute(rc, bus) {
    const done = { messageId: `m-${rc.taskId}`, contextId: rc.contextId, taskId: rc.taskId, role: 2, parts: [text("Done: two risks remain.")], metadata: undefined, extensions: [], referenceTaskIds: [] };
    bus.publish({ kind: "task", data: { id: rc.taskId, contextId: rc.contextId, status: { state: 3, message: done, timestamp: new Date().toISOString() }, artifacts: [{ artifactId: "a1", name: "report", description: "", parts: [text("Two risks remain.")], metadata: undefined, extensions: [] }], history: [rc.userMessage], metadata: undefined } });
    bus.finished();
  },
  async cancelTask() {},
};

/** The SDK's content part for `value` (in-process messages use the protobuf shape). */
export { text };
