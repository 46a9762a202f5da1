// Console bench: the pictures at scale in headless Chromium. Builds a workspace of N handoffs
// (default 10000, #/generate/N), then for the swimlanes (canvas), the delegation graph (SVG +
// positioned nodes) and the chains' tree: the time to the first picture from navigation start,
// on a first visit and from what the workspace kept, and the work of each frame while panning —
// an input event dispatched in the page, the console's reaction (signals, effects, the canvas
// drawing or the DOM update) and a forced layout, timed with performance.now() (the frame's own
// work, not the display's 60 Hz wait). Prints BENCH lines with medians and 95th percentiles;
// the target is a median under 16 ms.
import { generated } from './console-page.mjs';

const [dist, n = '10000', steps = '120'] = process.argv.slice(2);
// How long a page may take to open the workspace: two minutes, longer from 200,000 handoffs.
const wait = Math.max(120_000, Number(n) * 0.6);
const { server, base, browser, context, ws } = await generated(dist, n, { width: 1280, height: 800 }, Math.max(300_000, wait));

const stats = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const at = (q) => v[Math.min(v.length - 1, Math.floor(q * v.length))];
  return { median: at(0.5), p95: at(0.95), max: v.at(-1) };
};
const f = (x) => x.toFixed(1);

// In the page: yields to the event loop (a message, not a clamped timer) so queued effects run.
// And notes when each animation frame starts, for the gaps between frames while a workspace opens.
const PAGE_HELPERS = `globalThis.__yield = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
addEventListener('TrunkApplicationStarted', (e) => { globalThis.__batonMemory = e.detail?.wasm?.memory; });
globalThis.__batonRaf = []; const raf = (t) => { if (globalThis.__batonRaf.length < 100000) { globalThis.__batonRaf.push(t); requestAnimationFrame(raf); } }; requestAnimationFrame(raf);`;

// Swimlanes, twice: the first page lays them out from the engine (and keeps them, for a
// workspace this large); the second, opened after, draws the kept ones while the engine reads
// the log, so its first picture comes before `baton-opened`. Its frames are timed once the
// workspace is open, as the first page's are.
const marksOf = (page) => page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name}@${m.startTime.toFixed(0)}`).join(' '));
async function lanesRun(label) {
  const lanes = await context.newPage();
  await lanes.addInitScript(PAGE_HELPERS);
  await lanes.goto(`${base}#/w/${ws}/timeline`);
  const first = await lanes.waitForFunction(() => globalThis.__batonLanesFirstDraw, null, { timeout: wait }).then((h) => h.jsonValue());
  const kept = await lanes.evaluate(() => performance.getEntriesByName('baton-lanes-kept').length > 0);
  const opened = await lanes.waitForFunction(() => performance.getEntriesByName('baton-opened')[0]?.startTime, null, { timeout: wait }).then((h) => h.jsonValue());
  // Once the workspace is open, the live layout replaces a first visit's empty picture; kept
  // swimlanes stand for the live ones (while the log and the clock stay), and their note goes.
  if (kept) await lanes.waitForSelector('[data-testid=lanes-kept]', { state: 'detached', timeout: wait });
  else await lanes.waitForFunction(() => performance.getEntriesByName('baton-lanes-laid-out').length > 0, null, { timeout: wait });
  const marks = await marksOf(lanes);
  // The page's turns while the engine opened after the first picture: the gaps between
  // animation frames from the first picture to baton-opened (none when it drew only after).
  const gaps = await lanes.evaluate(([from, to]) => {
    const t = globalThis.__batonRaf.filter((x) => x >= from && x <= to);
    return t.slice(1).map((x, i) => x - t[i]);
  }, [first, opened]);
  const g = gaps.length ? stats(gaps) : null;
  const work = await lanes.evaluate(async (steps) => {
    globalThis.__batonFrames = [];
    const c = document.querySelector('[data-testid=lanes-canvas]');
    const r = c.getBoundingClientRect();
    const at = (x, y) => ({ clientX: r.x + x, clientY: r.y + y, bubbles: true });
    const out = [];
    c.dispatchEvent(new MouseEvent('mousedown', at(900, 400)));
    for (let i = 1; i <= steps; i++) {
      const t0 = performance.now();
      c.dispatchEvent(new MouseEvent('mousemove', at(900 - i * 6, 400 - i * 3)));
      await globalThis.__yield();
      void c.offsetHeight;
      out.push(performance.now() - t0);
    }
    c.dispatchEvent(new MouseEvent('mouseup', at(900 - steps * 6, 400 - steps * 3)));
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      c.dispatchEvent(new WheelEvent('wheel', { ...at(600, 300), deltaY: i < 10 ? -120 : 120, cancelable: true }));
      await globalThis.__yield();
      void c.offsetHeight;
      out.push(performance.now() - t0);
    }
    return { work: out, draws: [...globalThis.__batonFrames], bars: document.querySelector('[data-testid=lanes-selection]').textContent };
  }, Number(steps));
  const memory = await lanes.evaluate(() => globalThis.__batonMemory?.buffer.byteLength ?? 0);
  const lw = stats(work.work);
  const ld = stats(work.draws);
  console.log(`BENCH ${label} handoffs=${n} first_draw_ms=${first.toFixed(0)} from_kept=${kept} opened_ms=${opened.toFixed(0)} opening_frame_gap_median_ms=${g ? f(g.median) : '-'} opening_frame_gap_max_ms=${g ? f(g.max) : '-'} pan_frame_median_ms=${f(lw.median)} pan_frame_p95_ms=${f(lw.p95)} pan_frame_max_ms=${f(lw.max)} draw_median_ms=${f(ld.median)} draw_p95_ms=${f(ld.p95)} wasm_memory_mb=${(memory / 2 ** 20).toFixed(0)} frames=${work.work.length} (${work.bars})`);
  console.log(`BENCH ${label}_phases ${marks}`);
  // A workspace this large keeps its swimlanes after the layout: the page stays until the
  // kept bytes are stored (about 100 MB at 1,000,000 handoffs); lanes it drew from what it kept
  // are not stored again.
  if (Number(n) >= 2000 && !kept) await lanes.waitForFunction(() => performance.getEntriesByName('baton-lanes-stored').length > 0, null, { timeout: wait });
  await lanes.close();
  return kept;
}
await lanesRun('console_lanes');
const again = await lanesRun('console_lanes_again');
// From 2,000 bars a workspace keeps its swimlanes (web/src/session.rs, KEEP_FROM).
if (Number(n) >= 2000 && !again) {
  console.error('the second swimlanes page did not draw the kept swimlanes');
  process.exit(1);
}

// The delegation graph, twice, then the chains' tree: the first page lays the chain rows out
// from the engine (and keeps them, for a workspace this large); the pages after show the kept
// rows while the engine reads the log. The graph's scroll frames are timed on the first page.
async function chainsRun(label, mode) {
  const page = await context.newPage();
  await page.addInitScript(PAGE_HELPERS);
  await page.goto(`${base}#/w/${ws}/chains${mode === 'graph' ? '?mode=graph' : ''}`);
  const selector = mode === 'graph' ? '[data-testid=graph-node]' : '[data-testid=chain-row]';
  // Read in the first frame where it shows (an upper bound by that frame's poll).
  const first = await page.waitForFunction((selector) => document.querySelector(selector) && {
    at: performance.now(),
    kept: performance.getEntriesByName('baton-rows-kept').length > 0,
  }, selector, { timeout: wait }).then((h) => h.jsonValue());
  const opened = await page.waitForFunction(() => performance.getEntriesByName('baton-opened')[0]?.startTime, null, { timeout: wait }).then((h) => h.jsonValue());
  // A workspace this large keeps its chain rows after the first layout: the frames are timed
  // once they are stored, as the swimlanes' are once the workspace is open.
  const keeps = Number(n) >= 2000 && !first.kept;
  if (keeps) await page.waitForFunction(() => performance.getEntriesByName('baton-rows-stored').length > 0, null, { timeout: wait });
  let scroll = '';
  if (label === 'console_graph') {
    const graphWork = await page.evaluate(async (steps) => {
      const el = document.getElementById('graph-scroll');
      const out = [];
      for (let i = 1; i <= steps; i++) {
        const t0 = performance.now();
        el.scrollTop = i * 240;
        el.scrollLeft = (i % 3) * 40;
        el.dispatchEvent(new Event('scroll'));
        await globalThis.__yield();
        void el.offsetHeight;
        out.push(performance.now() - t0);
      }
      return { work: out, nodes: document.querySelectorAll('[data-testid=graph-node]').length, height: el.scrollHeight };
    }, Number(steps));
    const gw = stats(graphWork.work);
    scroll = ` scroll_frame_median_ms=${f(gw.median)} scroll_frame_p95_ms=${f(gw.p95)} scroll_frame_max_ms=${f(gw.max)} nodes_in_dom=${graphWork.nodes} drawing_height_px=${graphWork.height}`;
  }
  console.log(`BENCH ${label} handoffs=${n} first_render_ms=${first.at.toFixed(0)} from_kept=${first.kept} opened_ms=${opened.toFixed(0)}${scroll}`);
  await page.close();
  return first.kept;
}
await chainsRun('console_graph', 'graph');
const keptGraph = await chainsRun('console_graph_again', 'graph');
const keptTree = await chainsRun('console_chains_again', 'tree');
// From 2,000 rows a workspace keeps its chain rows (web/src/session.rs, KEEP_FROM).
if (Number(n) >= 2000 && !(keptGraph && keptTree)) {
  console.error('a second chains page did not show the kept chain rows');
  process.exit(1);
}
await browser.close();
server.close();
