// Where opening a large workspace goes in the console: generates N handoffs (#/generate/N) in
// headless Chromium, opens the workspace in a fresh page under the V8 sampling profiler (CDP,
// 200 µs) until the console marks it opened, and prints the marks, the functions with the most
// self time and, for Baton's own frames, the inclusive time, and what ran in the longest
// stretch without a turn for the page. With a route and a selector (or `opened`), it first
// visits that route (so the workspace keeps that view), then profiles a fresh page of it until
// the selector shows (or the workspace is open): where a picture from a kept view goes.
// Function names need a build that keeps them (wasm-opt -g); from the repository root:
//   sed 's/data-wasm-opt="z"/data-wasm-opt="z" data-wasm-opt-params="-g"/' index.html > index-prof.html
//   trunk build --release=true --dist /tmp/dist-prof index-prof.html && rm index-prof.html
//   node bench/console-open-profile.mjs /tmp/dist-prof 100000
//   node bench/console-open-profile.mjs /tmp/dist-prof 100000 'chains?mode=graph' '[data-testid=graph-node]'
//   node bench/console-open-profile.mjs /tmp/dist-prof 1000000 timeline opened
import { generated } from './console-page.mjs';
const [dist, n = '100000', route = 'chains', shown] = process.argv.slice(2);
const { server, base, browser, context, ws } = await generated(dist, n, { width: 1280, height: 800 }, 600_000);
if (shown) {
  const first = await context.newPage();
  await first.goto(`${base}#/w/${ws}/${route}`);
  await first.waitForFunction(() => performance.getEntriesByType('mark').some((m) => m.name.endsWith('-stored')), null, { timeout: 600_000 });
  await first.close();
}
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.goto(`${base}#/w/${ws}/${route}`);
if (shown && shown !== 'opened') await page.waitForSelector(shown, { timeout: 600_000 });
else await page.waitForFunction(() => performance.getEntriesByName('baton-opened').length > 0, null, { timeout: 600_000 });
const { profile } = await cdp.send('Profiler.stop');
const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name}@${m.startTime.toFixed(0)}`).join(' '));
console.log(marks);
// Self time per function.
const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
const self = new Map();
const dt = profile.timeDeltas; const samples = profile.samples;
for (let i = 0; i < samples.length; i++) {
  const nd = byId.get(samples[i]); const name = nd.callFrame.functionName || `(${nd.callFrame.url.split('/').pop()})`;
  self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0) / 1000);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`total sampled ${total.toFixed(0)} ms`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${v.toFixed(0).padStart(7)} ms ${(100 * v / total).toFixed(1).padStart(5)} %  ${k.slice(0, 140)}`);
// inclusive: for each sample, every distinct function on its stack
const parent = new Map();
for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
const incl = new Map();
for (let i = 0; i < samples.length; i++) {
  const seen = new Set();
  for (let id = samples[i]; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, '');
    if (f && !seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) ?? 0) + (dt[i] ?? 0) / 1000); }
  }
}
console.log('--- inclusive');
for (const [k, v] of [...incl].filter(([k]) => /baton|persist|idb|open|snapshot|Snapshot|catch_up|restore|from_lines|passString|JsFuture|graph|chain|draw|decode/i.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k.slice(0, 150)}`);
// With CALLERS=<regex>: where the functions whose self time matches were called from (the
// two frames above each sample's own), for a self time spread over many callers (hashing,
// the allocator).
if (process.env.CALLERS) {
  const match = new RegExp(process.env.CALLERS);
  const name = (id) => (byId.get(id)?.callFrame.functionName ?? '').replace(/::h[0-9a-f]{16}$/, '');
  const from = new Map();
  for (let i = 0; i < samples.length; i++) {
    if (!match.test(name(samples[i]))) continue;
    const up = parent.get(samples[i]);
    const key = `${name(up)}  <-  ${name(parent.get(up))}`;
    from.set(key, (from.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  }
  console.log(`--- callers of ${process.env.CALLERS}`);
  for (const [k, v] of [...from].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k.slice(0, 220)}`);
}
// The longest stretch of work without a turn for the page (samples with no idle between them):
// where the page stood still, and what ran then.
let best = { ms: 0, from: 0, to: 0 }; let from = 0; let ms = 0;
for (let i = 0; i < samples.length; i++) {
  const name = byId.get(samples[i]).callFrame.functionName;
  if (name === '(idle)') { if (ms > best.ms) best = { ms, from, to: i }; from = i + 1; ms = 0; } else ms += (dt[i] ?? 0) / 1000;
}
if (ms > best.ms) best = { ms, from, to: samples.length };
const inStretch = new Map();
for (let i = best.from; i < best.to; i++) {
  const seen = new Set();
  for (let id = samples[i]; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, '');
    if (f && !seen.has(f)) { seen.add(f); inStretch.set(f, (inStretch.get(f) ?? 0) + (dt[i] ?? 0) / 1000); }
  }
}
console.log(`--- the longest stretch without a turn for the page: ${best.ms.toFixed(0)} ms (inclusive)`);
for (const [k, v] of [...inStretch].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k.slice(0, 150)}`);
await browser.close(); server.close();
