// Bench script: the whole scenario suite through the wasm build in Node — median of 21 runs,
// in ms. Compare with `cargo bench -p baton-core --bench cycles` (its "scenario suite" line).
// Run: node bench/scenarios-node.mjs   (after the test command has built pkg/node)
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const baton = await import(join(root, "pkg", "node.js"));
const dir = join(root, "tests", "scenarios");
const scripts = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort().map((f) => readFileSync(join(dir, f), "utf8"));
const runs = [];
for (let i = 0; i < 21; i++) {
  const t = process.hrtime.bigint();
  for (const s of scripts) baton.runScript(s);
  runs.push(Number(process.hrtime.bigint() - t) / 1e6);
}
runs.sort((a, b) => a - b);
console.log(`scenario suite (${scripts.length} scripts) in Node/wasm: median ${runs[10].toFixed(2)} ms`);
