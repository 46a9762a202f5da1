// The MCP conformance suite (@modelcontextprotocol/conformance) against `baton serve`'s MCP
// endpoint, on each revision the suite has requirements for. The suite has no option for
// credentials, so it talks to a loopback relay that adds the key to every request and passes
// everything else through as sent (Host and Origin included: the server's own checks see
// them). Writes one JSON document: per revision, each scenario and its checks.
// Usage: node mcp.mjs SUITE_DIR MCP_URL KEY OUT_JSON
import http from "node:http";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [suite, target, key, out] = process.argv.slice(2);
const REVISIONS = ["2025-11-25", "2026-07-28"];
const upstream = new URL(target);

const relay = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${key}` };
  const path = upstream.pathname + upstream.search;
  const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers, agent: false }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on("error", (e) => {
    res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(up);
});
await new Promise((r) => relay.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${relay.address().port}/mcp`;

const node = join(suite, "node_modules", ".bin", "node");
const cli = join(suite, "node_modules", ".bin", "conformance");
const results = {};
for (const revision of REVISIONS) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  // asynchronously: the relay runs in this process meanwhile
  const code = await new Promise((resolve) => {
    const p = spawn(node, [cli, "server", "--url", url, "--requirements", revision, "-o", dir], { stdio: ["ignore", "ignore", "inherit"] });
    p.on("exit", resolve);
  });
  const scenarios = {};
  for (const entry of readdirSync(dir)) {
    // server-<scenario>-<ISO time>
    const name = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    const checks = JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8"));
    scenarios[name] = checks.map((c) => ({ id: c.id, status: c.status, message: c.errorMessage ?? "" }));
  }
  results[revision] = { exit: code, scenarios };
  console.log(`MCP ${revision}: ${Object.keys(scenarios).length} scenarios run`);
}
writeFileSync(out, JSON.stringify(results, null, 2));
// The suite's streams may still hold connections open through the relay: done is done.
process.exit(0);

