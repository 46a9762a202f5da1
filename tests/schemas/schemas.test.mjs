// Baton's schemas checked by an independent validator (ajv, JSON Schema 2020-12), against what
// the engine itself decides:
// - the documents' example calls (seed_examples.json) are valid;
// - every call and host input that the engine accepted anywhere in the conformance suite is
//   valid (a schema never refuses what Baton takes);
// - every call in scenarios/surface_schema_limits.jsonl, each breaking one documented limit and
//   refused by the engine with invalid_params naming a field, is refused by the schema too, and
//   ajv's complaint is about that field;
// - every answer the engine gave in the suite matches the result schema its tool or host input
//   declares (`baton schemas`), so the generated TypeScript types say what hosts really get.
// The schemas come from the native `baton tools` / `baton host-inputs` / `baton schemas`
// (BATON_BIN overrides).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const bin = process.env.BATON_BIN ?? join(root, "target", "debug", "baton");
const scenarios = join(root, "tests", "scenarios");

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map();
for (const t of JSON.parse(execFileSync(bin, ["tools"], { encoding: "utf8" }))) {
  validators.set(`call:${t.function.name}`, ajv.compile(t.function.parameters));
}
for (const h of JSON.parse(execFileSync(bin, ["host-inputs"], { encoding: "utf8" }))) {
  validators.set(`host:${h.name}`, ajv.compile(h.parameters));
}

const answers = new Map();
const declared = JSON.parse(execFileSync(bin, ["schemas"], { encoding: "utf8" }));
for (const t of declared.tools) if (t.result !== null) answers.set(`call:${t.name}`, ajv.compile(t.result));
for (const h of declared.host_inputs) answers.set(`host:${h.name}`, ajv.compile(h.result));

/** Replaces "$name" strings with saved values, as the scenario runner does. */
function subst(vars, v) {
  if (typeof v === "string" && v.startsWith("$")) return v.slice(1) in vars ? vars[v.slice(1)] : v;
  if (Array.isArray(v)) return v.map((x) => subst(vars, x));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(vars, x)]));
  return v;
}

/** Every call / host line of a scenario with its arguments (variables resolved) and outcome. */
function steps(file) {
  const script = readFileSync(join(scenarios, file), "utf8").split("\n");
  const out = new Map(
    readFileSync(join(scenarios, file.replace(/\.jsonl$/, ".out")), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((o) => o.line)
      .map((o) => [o.line, o]),
  );
  const vars = {};
  const found = [];
  script.forEach((text, i) => {
    if (!text.trim().startsWith("{")) return;
    const line = JSON.parse(text);
    const o = out.get(i + 1);
    const kind = line.call ? "call" : line.host ? "host" : null;
    if (kind && o) found.push({ key: `${kind}:${line.call ?? line.host}`, args: subst(vars, line.args ?? {}), o, line: i + 1 });
    for (const [name, path] of Object.entries(line.save ?? {})) {
      vars[name] = path.split(".").reduce((v, k) => (v == null ? null : v[k]), o?.result) ?? null;
    }
  });
  return found;
}

/** ajv's error paths in the engine's field notation (`/a/0/b` → `a[0].b`). */
function fields(errors) {
  return errors.map((e) => {
    let path = e.instancePath.replace(/\/(\d+)/g, "[$1]").replace(/\//g, ".").replace(/^\./, "");
    if (e.keyword === "required") path = path ? `${path}.${e.params.missingProperty}` : e.params.missingProperty;
    return path;
  });
}

test("the documents' example calls are valid", () => {
  for (const ex of JSON.parse(readFileSync(join(here, "seed_examples.json"), "utf8"))) {
    const v = validators.get(`call:${ex.tool}`);
    assert.ok(v, `no schema for ${ex.tool}`);
    assert.ok(v(ex.args), `${ex.tool} (document ${ex.doc}): ${JSON.stringify(v.errors)}`);
  }
});

test("every call and host input the engine accepted in the suite is valid", () => {
  let checked = 0;
  for (const file of readdirSync(scenarios).filter((f) => f.endsWith(".jsonl"))) {
    for (const s of steps(file)) {
      if (!("result" in s.o)) continue;
      const v = validators.get(s.key);
      if (!v) continue; // not a tool or host input of this build's surface (e.g. an unknown name)
      assert.ok(v(s.args), `${file}:${s.line} ${s.key}: ${JSON.stringify(v.errors)}`);
      checked++;
    }
  }
  assert.ok(checked > 500, `${checked} accepted calls checked`);
});

test("every answer the engine gave in the suite matches its declared result schema", () => {
  let checked = 0;
  const wrong = [];
  for (const file of readdirSync(scenarios).filter((f) => f.endsWith(".jsonl"))) {
    for (const s of steps(file)) {
      if (!("result" in s.o)) continue;
      const v = answers.get(s.key);
      if (!v) continue;
      if (!v(s.o.result)) wrong.push(`${file}:${s.line} ${s.key}: ${JSON.stringify(v.errors.slice(0, 2))}`);
      checked++;
    }
  }
  assert.deepEqual(wrong.slice(0, 10), []);
  assert.ok(checked > 500, `${checked} answers checked`);
});

test("every documented limit the engine enforces, the schema states (surface_schema_limits)", () => {
  let refused = 0;
  const misnamed = [];
  for (const s of steps("surface_schema_limits.jsonl")) {
    const v = validators.get(s.key);
    assert.ok(v, `no schema for ${s.key}`);
    if ("result" in s.o) {
      assert.ok(v(s.args), `line ${s.line}: a setup line must be valid: ${JSON.stringify(v.errors)}`);
      continue;
    }
    assert.equal(s.o.error.name, "invalid_params", `line ${s.line}`);
    assert.equal(v(s.args), false, `line ${s.line} ${s.key}: the engine refuses ${s.o.error.field}, the schema accepts`);
    // The same field, or (for a rule between fields, an if/then in the schema) the rule that
    // ties them: the engine names the field given, ajv the one missing.
    const field = s.o.error.field;
    const at = fields(v.errors);
    const named = at.some((p) => p !== "" && (p === field || p.startsWith(`${field}.`) || p.startsWith(`${field}[`) || field.startsWith(p)));
    const between = v.errors.some((e) => e.keyword === "if");
    if (!named && !between) misnamed.push(`line ${s.line}: the engine names ${field}, ajv ${JSON.stringify(at)}`);
    refused++;
  }
  assert.deepEqual(misnamed, []);
  assert.ok(refused >= 60, `${refused} refused calls`);
});
