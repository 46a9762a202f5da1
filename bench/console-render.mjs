// Console bench: time to first render of a workspace with N handoffs (default 10000) in
// headless Chromium. Builds the workspace once (#/generate/N), then opens its chains view in a
// fresh page R times and reads the console's own mark (`__batonFirstRender`, performance.now()
// when the first non-empty tree is on screen, from navigation start). Prints one BENCH line.
import { generated } from './console-page.mjs';

const [dist, n = '10000', runs = '5'] = process.argv.slice(2);
const { server, base, browser, context, ws } = await generated(dist, n, { width: 1440, height: 900 });
const times = [];
const phases = [];
let rowsInDom = 0;
let openDetail = 0;
let keyStep = 0;
for (let i = 0; i < Number(runs); i++) {
  const p = await context.newPage();
  await p.goto(`${base}#/w/${ws}/chains`);
  const t = await p.waitForFunction(() => globalThis.__batonFirstRender, null, { timeout: 120_000 }).then((h) => h.jsonValue());
  rowsInDom = await p.$$eval('[data-testid=chain-row]', (els) => els.length);
  const marks = await p.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
  phases.push(marks);
  times.push(t);
  if (i === Number(runs) - 1) {
    // Interaction on the same 10k workspace: open a handoff's detail, then move the selection
    // with the keyboard (each step re-renders the tree and the detail panel).
    const t0 = Date.now();
    await p.click('[data-testid=chain-row]:nth-child(3)');
    await p.waitForSelector('[data-testid=handoff-detail]');
    openDetail = Date.now() - t0;
    const k0 = Date.now();
    for (let j = 0; j < 10; j++) {
      const before = p.url();
      await p.keyboard.press('j');
      await p.waitForFunction((u) => location.href !== u && document.querySelector('[data-testid=handoff-detail]'), before);
    }
    keyStep = (Date.now() - k0) / 10;
  }
  await p.close();
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(`BENCH console_first_render handoffs=${n} runs=${runs} median_ms=${median.toFixed(0)} min_ms=${times[0].toFixed(0)} max_ms=${times.at(-1).toFixed(0)} rows_in_dom=${rowsInDom}`);
const med = (k) => { const v = phases.map((m) => m[k]).filter((x) => x !== undefined).sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)].toFixed(0) : 'na'; };
console.log(`BENCH console_first_render_phases wasm_started_ms=${med('baton-start')} open_started_ms=${med('baton-open')} workspace_loaded_ms=${med('baton-opened')} first_render_ms=${median.toFixed(0)}`);
console.log(`BENCH console_interaction handoffs=${n} open_detail_ms=${openDetail} key_step_ms=${keyStep.toFixed(0)} (wall time through playwright)`);
await browser.close();
server.close();
