// Console bench: time to first render of a workspace with N handoffs (default 10000) in
// headless Chromium. Builds the workspace once (#/generate/N), then opens its chains view in a
// fresh page R times and reads the console's own mark (`__batonFirstRender`, performance.now()
// when the first non-empty tree is on screen, from navigation start). Prints one BENCH line.
import { chromium } from '../tests/e2e/node_modules/playwright-core/index.mjs';
import { serve, CHROMIUM } from '../tests/e2e/serve.mjs';

const [dist, n = '10000', runs = '5'] = process.argv.slice(2);
const { server, base } = await serve(dist);
const browser = await chromium.launch(CHROMIUM);
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
await page.goto(`${base}#/generate/${n}`);
const ws = await page.waitForFunction(() => globalThis.__batonGenerated, null, { timeout: 300_000 }).then((h) => h.jsonValue());
await page.close();
const times = [];
const phases = [];
let rowsInDom = 0;
for (let i = 0; i < Number(runs); i++) {
  const p = await context.newPage();
  await p.goto(`${base}#/w/${ws}/chains`);
  const t = await p.waitForFunction(() => globalThis.__batonFirstRender, null, { timeout: 120_000 }).then((h) => h.jsonValue());
  rowsInDom = await p.$$eval('[data-testid=chain-row]', (els) => els.length);
  const marks = await p.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
  phases.push(marks);
  times.push(t);
  await p.close();
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(`BENCH console_first_render handoffs=${n} runs=${runs} median_ms=${median.toFixed(0)} min_ms=${times[0].toFixed(0)} max_ms=${times.at(-1).toFixed(0)} rows_in_dom=${rowsInDom}`);
const med = (k) => { const v = phases.map((m) => m[k]).filter((x) => x !== undefined).sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)].toFixed(0) : 'na'; };
console.log(`BENCH console_first_render_phases wasm_started_ms=${med('baton-start')} open_started_ms=${med('baton-open')} workspace_loaded_ms=${med('baton-opened')} first_render_ms=${median.toFixed(0)}`);
await browser.close();
server.close();
