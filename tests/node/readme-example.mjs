// Runs the JS example of pkg/README.md in a fresh project (argv[2]) where the packed package
// is installed, and checks that it routed a tool call and turned a bad one into an error code.
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const project = process.argv[2];
const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "pkg", "README.md"), "utf8");
const example = readme.match(/```js\n([\s\S]*?)```/)?.[1];
if (!example) throw new Error("pkg/README.md has no js example");
const check = `
const ok = onToolCall("handoff", { task: "Review the generated model" });
const bad = onToolCall("handoff", {});
if (ok.status !== "started" || bad.code !== -32602 || toolDefs.length < 9) { console.error(ok, bad); process.exit(1); }
console.log("README example: ok", ok.status, bad.code, toolDefs.length, "tools");
`;
writeFileSync(join(project, "example.mjs"), example + check);
process.stdout.write(execFileSync("node", ["example.mjs"], { cwd: project, encoding: "utf8" }));
