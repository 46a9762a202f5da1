// End-to-end: the console's release build (dist/) served on localhost, driven in Debian's
// Chromium by playwright-core. Opens the console, loads and plays the demo, opens a chain, the
// mission strip, accepts and completes an inbox thread, checks hostile markup shows as text,
// zooms, pans, scrubs, hovers and clicks through the swimlanes (mouse and keys), scrubs the
// timeline's records, gets a field error from the act form, reloads and finds the same state,
// and follows a deep link. Saves a screenshot of each main view to docs/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

const root = resolve(import.meta.dirname, '../..');
const dist = process.env.BATON_DIST ?? join(root, 'dist');
const shots = join(root, 'docs/screenshots');

let server, base, browser, page, user;

before(async () => {
  ({ server, base } = await serve(dist));
  await mkdir(shots, { recursive: true });
  ({ browser, page, user } = await launch());
});

after(async () => {
  await browser?.close();
  server?.close();
});

const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`) });
const rowLabels = () => page.$$eval('[data-testid=chain-row] .label', (els) => els.map((e) => e.textContent));

test('the console opens and offers the demo workspace', async () => {
  await page.goto(base);
  await page.waitForSelector('[data-testid=load-demo]');
  assert.match(await page.textContent('body'), /No workspace yet/);
  await shot('home');
});

test('the demo loads and plays out on its clock', async () => {
  await page.click('[data-testid=load-demo]');
  // It opens on its picture: the swimlanes, fitted to the whole mission and following it.
  const canvas = await page.waitForSelector('[data-testid=lanes-canvas]');
  assert.match(page.url(), /#\/w\/demo\/timeline/);
  await page.click('[data-testid=run-to-end]');
  await page.waitForSelector('[data-testid=demo-progress][data-done=true]', { timeout: 60_000 });
  await page.waitForFunction(() => /10 bars/.test(document.querySelector('[data-testid=lanes-selection]')?.textContent ?? ''));
  const span = Number(await canvas.getAttribute('data-span-ms'));
  assert.ok(span > 100 * 60_000 && span < 120 * 60_000, `the view spans the whole mission (${span} ms)`);
  await shot('demo-opened');
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=chain-row]');
  await page.click('[data-testid=run-to-end]');
  await page.waitForSelector('[data-testid=demo-progress][data-done=true]', { timeout: 60_000 });
  assert.doesNotMatch(await page.textContent('[data-testid=demo-progress]'), /failed/);
  await page.click('[data-testid=run]'); // pause the clock for stable views
  const labels = await rowLabels();
  for (const l of ['Q4 data platform', 'Model review', 'Release notes', 'Discovery', 'Schema migration', 'Validation', 'Error-budget watch']) {
    assert.ok(labels.includes(l), `row ${l} in ${labels}`);
  }
  const nested = await page.$eval('[data-testid=chain-row]:has-text("Validation")', (e) => e.className);
  assert.match(nested, /depth-3/, 'the chain is three stages deep under the lead');
  await shot('chains');
});

test('a chain opens: handoff_status fields, result, actions', async () => {
  await page.click('[data-testid=chain-row]:has-text("Model review")');
  await page.waitForSelector('[data-testid=handoff-detail]');
  const text = await page.textContent('[data-testid=handoff-detail]');
  for (const f of ['nudges_sent', 'status', 'handoff_id', 'context_data', 'Allowed tools', 'web_search', 'Model review complete']) {
    assert.ok(text.includes(f), `${f} in the detail panel`);
  }
  assert.match(page.url(), /#\/w\/demo\/chains\/handoff_/);
  // Completed: a follow-up still reaches the idle child (H1), a cancel would be refused — so
  // only the follow-up is offered, and the panel says why the cancel is not.
  assert.ok(await page.$('[data-testid=send-follow-up]'));
  assert.equal(await page.$('[data-testid=cancel-handoff]'), null);
  assert.match(await page.textContent('[data-testid=parent-not-offered]'), /^Not offered now — cancel: .*terminal/);
  await shot('handoff');
  // Cancelled: neither (H2 refuses the follow-up).
  await page.click('[data-testid=chain-row]:has-text("Old-schema benchmark")');
  await page.waitForFunction(() => /follow-up: .*cancel: /.test(document.querySelector('[data-testid=parent-not-offered]')?.textContent ?? ''));
  assert.equal(await page.$('[data-testid=send-follow-up]'), null);
  // Live: both.
  await page.click('[data-testid=chain-row]:has-text("Error-budget watch")');
  await page.waitForSelector('[data-testid=cancel-handoff]');
  assert.ok(await page.$('[data-testid=send-follow-up]'));
  assert.equal(await page.textContent('[data-testid=parent-not-offered]'), '');
  await page.click('[data-testid=chain-row]:has-text("Model review")');
  // Collapse and expand the blueprint chain.
  const before = (await rowLabels()).length;
  await page.click('[data-testid=chain-row]:has-text("Discovery") .twisty');
  assert.equal((await rowLabels()).length, before - 2);
  await page.click('[data-testid=chain-row]:has-text("Discovery") .twisty');
  assert.equal((await rowLabels()).length, before);
  // Filters: by target agent, and by status; ancestors of matches stay, dimmed.
  await page.selectOption('[data-testid=agent-filter]', 'scribe');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=chain-row]').length === 3);
  assert.deepEqual(await rowLabels(), ['Q4 data platform', 'Release notes', 'Old-schema benchmark']);
  await page.selectOption('[data-testid=agent-filter]', '');
  await page.click('.chip:has-text("cancelled")');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=chain-row]').length === 2);
  assert.deepEqual(await rowLabels(), ['Q4 data platform', 'Old-schema benchmark']);
  await page.click('.chip:has-text("cancelled")');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=chain-row]').length === n, before);
});


test('issue 27: a handoff reads for a person — status meaning, times and durations in words, what comes next; the raw answers only when asked', async () => {
  await page.click('[data-testid=chain-row]:has-text("Model review")');
  await page.waitForSelector('[data-testid=handoff-person]');
  // innerText: what is on screen (the closed "As the model sees it" block is not).
  const seen = await page.innerText('[data-testid=handoff-detail]');
  assert.match(seen, /✓ completed/, 'the status as a badge');
  assert.match(seen, /The child finished and its result is in\./, 'what the status means');
  assert.match(seen, /Took\s+(\d+ (s|min|h)|\d+ h \d+ min|less than a second)/, 'the duration in words');
  assert.match(seen, /Started\s+\d+ (s|min|h)[^\n]* ago/, 'a relative time');
  assert.match(seen, /Model review complete/, 'the result as the main text');
  assert.match(seen, /handed this to/);
  for (const wire of ['nudges_sent', 'elapsed_time', 'stored_status', 'not_notified_reason', 'handoff_id', 'success']) {
    assert.ok(!seen.includes(wire), `no wire field name (${wire}) in the person's view`);
  }
  assert.doesNotMatch(seen, /\{"|null/, 'no JSON in the person\'s view');
  // The absolute time is on hover.
  const title = await page.getAttribute('[data-testid=handoff-person] dd span[title]', 'title');
  assert.match(title, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  // One click away: the answers exactly as the model gets them.
  await page.click('[data-testid=as-model] summary');
  const raw = await page.innerText('[data-testid=as-model]');
  for (const f of ['nudges_sent', 'elapsed_time', 'stored_status', 'handoff_results']) assert.ok(raw.includes(f), `${f} as the model sees it`);
  await page.click('[data-testid=as-model] summary');
  // A live handoff: how long it has been running, and what comes next and when.
  await page.click('[data-testid=chain-row]:has-text("Error-budget watch")');
  await page.waitForFunction(() => /Running for/.test(document.querySelector('[data-testid=handoff-person]')?.innerText ?? ''));
  const live = await page.innerText('[data-testid=handoff-person]');
  assert.match(live, /Running for\s+\S+/);
  assert.match(live, /Next\s+(A reminder goes to the child|The parent's watch window closes|It is given up as abandoned) in \d/, live);
  await shot('handoff-person');
  // Context data as a collapsible tree, not JSON.
  await page.click('[data-testid=chain-row]:has-text("Release notes")');
  await page.waitForSelector('[data-testid=context-tree]', { state: 'attached' });
  await page.click('[data-testid=context-tree] summary');
  const tree = await page.innerText('[data-testid=context-tree]');
  assert.match(tree, /audience: customers/);
  assert.match(tree, /tone: plain/);
  assert.ok(!tree.includes('{'), 'no JSON braces in the tree');
  await page.click('[data-testid=chain-row]:has-text("Model review")');
});
test('the chains as a graph: layered left to right, badges, stalled at a glance, click and keys open a node', async () => {
  await page.click('[data-testid=mode-graph]');
  await page.waitForSelector('[data-testid=graph-node]');
  const nodes = await page.$$eval('[data-testid=graph-node]', (els) => els.map((e) => [e.textContent, e.style.left, e.className]));
  assert.equal(nodes.length, 8, 'every row is a node');
  const find = (label) => nodes.find(([t]) => t.includes(label));
  // Layers are depth: the chain Discovery → Schema migration → Validation steps right.
  const left = (label) => parseFloat(find(label)[1]);
  assert.ok(left('Q4 data platform') < left('Discovery') && left('Discovery') < left('Schema migration') && left('Schema migration') < left('Validation'));
  assert.match(find('Validation')[0], /cocoa/, 'the coding-agent badge');
  assert.match(find('Discovery')[0], /discovery/, 'the blueprint badge');
  assert.match(find('Error-budget watch')[0], /stalled.*▲1/s, 'stalled and nudged, at a glance');
  assert.match(find('Error-budget watch')[2], /stalled/);
  assert.equal(await page.$$eval('[data-testid=chain-graph] path.edge.chained', (els) => els.length), 3, 'the blueprint chain');
  await shot('graph');
  // A click opens the node; the keyboard reaches nodes (Tab) and opens them (Enter).
  await page.click('[data-testid=graph-node]:has-text("Validation")');
  await page.waitForSelector('[data-testid=handoff-detail]');
  assert.match(await page.textContent('[data-testid=handoff-detail]'), /Validate row counts/);
  assert.match(page.url(), /mode=graph/, 'the graph stays');
  await page.focus('[data-testid=graph-node]:has-text("Release notes")');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /Release notes|release notes/i.test(document.querySelector('[data-testid=handoff-detail]')?.textContent ?? ''));
  // Zoom: the drawing scales; the nodes in view follow.
  const w0 = (await (await page.$('[data-testid=graph-node]')).boundingBox()).width;
  await page.click('[data-testid=graph-zoom-out]');
  await page.click('[data-testid=graph-zoom-out]');
  assert.equal(await page.textContent('[data-testid=graph-zoom]'), '64%');
  const w1 = (await (await page.$('[data-testid=graph-node]')).boundingBox()).width;
  assert.ok(Math.abs(w1 - w0 * 0.64) < 2, `${w0} → ${w1}`);
  await page.click('[data-testid=graph-zoom-in]');
  await page.click('[data-testid=graph-zoom-in]');
  // A view keeps its mode across tab switches: to the missions and back, by tab and by key.
  await page.click('nav.tabs a:has-text("Missions")');
  await page.waitForSelector('[data-testid=missions]');
  await page.click('nav.tabs a:has-text("Chains")');
  await page.waitForSelector('[data-testid=graph-node]');
  assert.match(page.url(), /mode=graph/, 'back on the chains: still the graph');
  await page.keyboard.press('4');
  await page.waitForSelector('[data-testid=mode-lanes]');
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=graph-node]');
  // The scrub: the graph as it was at record 14 — the chain not yet started.
  const ws = page.url().match(/#\/w\/([^/?]+)/)[1];
  await page.goto(`${base}#/w/${ws}/chains?at=14&mode=graph`);
  await page.waitForSelector('[data-testid=past-banner]');
  await page.waitForSelector('[data-testid=graph-node]');
  const early = await page.$$eval('[data-testid=graph-node]', (els) => els.map((e) => e.textContent));
  assert.ok(early.some((t) => t.includes('Model review')) && !early.some((t) => t.includes('Validation')), early.join(' | '));
  await page.click('[data-testid=past-banner] a');
  await page.waitForFunction(() => !document.querySelector('[data-testid=past-banner]'));
  await page.click('[data-testid=mode-tree]');
  await page.click('[data-testid=chain-row]:has-text("Model review")');
  await page.waitForSelector('[data-testid=handoff-detail]');
});

test('it fits a laptop: one-line top bar at 1280×800, nothing overflows at 1024', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const bar = await page.$eval('header.bar', (e) => e.getBoundingClientRect().height);
  assert.ok(bar < 50, `the top bar is ${bar}px high: one line`);
  for (const key of ['1', '2', '3', '4']) {
    await page.keyboard.press(key);
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, `view ${key} fits 1280`);
  }
  await shot('lanes-1280');
  await page.setViewportSize({ width: 1024, height: 768 });
  for (const key of ['1', '2', '3', '4']) {
    await page.keyboard.press(key);
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1024, `view ${key} fits 1024`);
  }
  const items = await page.$$eval('header.bar > *, header.bar .workspace > *, header.bar .clock > *', (els) => els.filter((e) => e.offsetParent).map((e) => e.getBoundingClientRect()).map((r) => [r.left, r.right, r.top]));
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
    const [a, b] = [items[i], items[j]];
    const overlap = a[2] === b[2] && a[0] < b[1] - 1 && b[0] < a[1] - 1 && !(a[0] <= b[0] && a[1] >= b[1]) && !(b[0] <= a[0] && b[1] >= a[1]);
    assert.ok(!overlap, `top-bar items overlap at 1024: ${JSON.stringify([a, b])}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.keyboard.press('1');
  await page.click('[data-testid=chain-row]:has-text("Model review")');
  await page.waitForSelector('[data-testid=handoff-detail]');
});

test('keyboard: j/k move the selection, 2 opens the mission strip', async () => {
  const first = page.url();
  await page.keyboard.press('j');
  await page.waitForFunction((u) => location.href !== u, first);
  await page.keyboard.press('k');
  await page.waitForFunction((u) => location.href === u, first);
  await page.keyboard.press('2');
  await page.waitForSelector('[data-testid=stage]');
  const stages = await page.$$eval('[data-testid=stage]', (els) => els.map((e) => e.textContent));
  assert.equal(stages.length, 3);
  assert.match(stages[0], /discovery.*spawned/s);
  assert.match(stages[1], /schema_migration.*spawned.*claude_code/s);
  assert.match(stages[2], /validation.*spawned.*cocoa/s);
  assert.equal(await page.textContent('[data-testid=journey-progress]'), '3 of 3 stages done');
  await shot('missions');
  // Earlier, the journey was under way: one stage done, one running, one expected — each told
  // by its glyph and label as well as its colour.
  const ws = page.url().match(/#\/w\/([^/?]+)/)[1];
  await page.goto(`${base}#/w/${ws}/missions?at=26`);
  await page.waitForFunction(() => /1 of 3/.test(document.querySelector('[data-testid=journey-progress]')?.textContent ?? ''));
  assert.equal(await page.textContent('[data-testid=journey-progress]'), '1 of 3 stages done · 1 running · 1 expected');
  const steps = await page.$$eval('[data-testid=stage]', (els) => els.map((e) => [e.className, e.querySelector('.marker').textContent]));
  assert.deepEqual(steps, [['step spawned done', '✓'], ['step spawned live', '▸'], ['step expected expected', '○']]);
  await shot('missions-journey');
  // Click through: a step's handoff link opens it in the graph, as of the same record.
  await page.click('[data-testid=stage]:nth-child(2) a:has-text("handoff")');
  await page.waitForSelector('[data-testid=handoff-detail]');
  assert.match(page.url(), /chains\/handoff_[0-9a-f]+\?at=26&mode=graph/);
  assert.ok(await page.$('[data-testid=graph-node].selected'));
  await page.goto(`${base}#/w/${ws}/chains`);
  await page.waitForSelector('[data-testid=chain-row]');
});

test('an inbox thread is accepted (trust overlay, wrapped content) and completed', async () => {
  await page.keyboard.press('3');
  await page.click('[data-testid=teammate]:has-text("Alice")');
  await page.click('[data-testid=inbox-item]:has-text("Bob")');
  await page.click('[data-testid=accept]');
  await page.waitForSelector('[data-testid=accepted]', { state: 'attached' });
  assert.match(await page.textContent('[data-testid=accepted]'), /auto_write_paths[\s\S]*docs\//);
  assert.match(await page.textContent('[data-testid=wrapped-summary]'), /^\[BATON-UNTRUSTED from=bob@acme/);
  // Issue 27: for a person, the sender's text is framed and named, never in the engine's
  // wrapper: no marker line, no nonce, no sentence written for a model — until asked for.
  const person = await page.innerText('[data-testid=relay-person]');
  assert.match(person, /accepted — being worked on/, 'the status as a badge in words');
  assert.match(person, /From Bob bob@acme · backend/, 'the sender as a name card');
  assert.match(person, /untrusted — written by the sender/, 'the frame marks the text untrusted');
  assert.match(person, /sent \d+ (s|min|h)[^,]* ago/, 'relative times');
  assert.match(await page.innerText('[data-testid=sender-trust]'), /edit under docs\/ without asking/, 'the trust rules in words');
  for (const wire of ['BATON-UNTRUSTED', 'nonce=', 'It is untrusted data', '{"']) {
    assert.ok(!person.includes(wire), `no ${wire} in the person's view`);
  }
  assert.ok(!(await page.innerText('[data-testid=relay-thread]')).includes('nonce='), 'the wrapped form is folded away');
  const item = await page.innerText('[data-testid=inbox-item]:has-text("Bob")');
  assert.match(item, /The orders API now returns amounts in cents/, 'the inbox line is the text as written');
  assert.ok(!item.includes('BATON-UNTRUSTED') && !item.includes('nonce='), 'no wrapper in the inbox list');
  assert.match(item, /updated (just now|\d+ (s|min|h)[^\n]* ago)/, 'a relative time in the list');
  await page.click('[data-testid=relay-as-model] summary');
  assert.match(await page.innerText('[data-testid=wrapped-summary]'), /^\[BATON-UNTRUSTED from=bob@acme name="Bob" role="backend" nonce=\S+\]\nThe text below was written by teammate bob@acme\./, 'one click shows the model-facing form exactly');
  await page.click('[data-testid=relay-as-model] summary');
  // Accepted: the engine would refuse a second accept, so it is no longer offered (and says why).
  await page.waitForFunction(() => !document.querySelector('[data-testid=accept]'));
  assert.match(await page.textContent('[data-testid=not-offered]'), /^Not offered now — accept: /);
  await shot('inbox');
  await page.fill('[data-testid=result-summary]', 'Removed the second division; totals fixed.');
  await page.click('[data-testid=complete]');
  await page.waitForFunction(() => document.querySelector('[data-testid=relay-thread]')?.textContent.includes('Removed the second division'));
  assert.match(await page.textContent('[data-testid=relay-thread]'), /completed/);
  // Completed: nothing is offered but what the engine takes.
  await page.waitForFunction(() => !document.querySelector('[data-testid=complete]') && !document.querySelector('[data-testid=reply]'));
  assert.match(await page.textContent('[data-testid=not-offered]'), /complete: .*cancel: /);
});

test('sender markup shows as text, never as HTML', async () => {
  await page.click('[data-testid=teammate]:has-text("Carol")');
  await page.click('[data-testid=inbox-item]:has-text("refund suite")');
  await page.click('[data-testid=accept]');
  await page.waitForSelector('[data-testid=accepted]', { state: 'attached' });
  await page.fill('[data-testid=reply-body]', '<img src=x onerror=alert(1)>');
  await page.click('[data-testid=reply]');
  await page.waitForFunction(() => document.querySelector('[data-testid=relay-messages]')?.textContent.includes('<img src=x onerror=alert(1)>'));
  const body = await page.textContent('body');
  assert.ok(body.includes('re-run the refund suite? <img src=x onerror=alert(1)>'), 'the sender summary is text');
  await page.waitForFunction(() => document.querySelector('[data-testid=relay-person]')?.innerText.includes('<img src=x onerror=alert(1)>'));
  assert.match(await page.innerText('[data-testid=relay-person]'), /re-run the refund suite\? <img src=x onerror=alert\(1\)>/, 'framed for a person, still text');
  assert.equal(await page.$$eval('img', (els) => els.length), 0, 'no img element was created');
  assert.deepEqual(user.dialogs, [], 'no script ran');
  // The sender cancels it (cancel_handoff is the sender's tool).
  await page.click('text=Cancel (as the sender)');
  await page.waitForFunction(() => /status\s*cancelled/.test(document.querySelector('[data-testid=relay-thread]')?.textContent ?? ''));
});

test('issue 27: an agent\'s mailbox reads for a person — names, relative times, where each message stands; the host\'s raw answer folded', async () => {
  await page.keyboard.press('3');
  await page.click('[data-testid=mailboxes] a:has-text("Lead")');
  await page.waitForSelector('[data-testid=thread-view] [data-testid=mailbox]');
  const seen = await page.innerText('[data-testid=thread-view]');
  assert.match(seen, /Lead's thread/);
  assert.match(seen, /Adam → Lead · \d+ (s|min|h)[^\n]* ago/, 'names and a relative time');
  assert.match(seen, /received · (delivered|read|waiting for the thread's next turn)/, 'where the message stands, in words');
  assert.match(seen, /Handoffs it started[\s\S]*Model review · to Adam · ✓ completed/i);
  // Baton's notice of a finished handoff reads as what ended and how, read from the handoff;
  // the notice's text for the model (with its JSON) is folded.
  assert.match(seen, /Baton told the thread that “Discovery” is completed/);
  assert.match(seen, /Outputs[\s\S]*tables: orders, order_items, refunds/);
  for (const wire of ['bot_id', 'thread_id', 'created_at', 'Queued', 'Delivered', '{"']) {
    assert.ok(!seen.includes(wire), `no ${wire} in the person's view`);
  }
  await shot('mailbox');
  await page.click('[data-testid=thread-as-host] summary');
  assert.match(await page.innerText('[data-testid=thread-as-host]'), /bot_id/, 'the host\'s answer one click away');
});

test('the swimlanes: a lane per agent and teammate, zoom, pan, scrub, hover and click through', async () => {
  await page.keyboard.press('4');
  const canvas = await page.waitForSelector('[data-testid=lanes-canvas]');
  assert.match(await page.textContent('[data-testid=lanes-selection]'), /8 lanes · 10 bars · \d+ marks/);
  await shot('lanes');
  const box = await canvas.boundingBox();
  const span = async () => Number(await canvas.getAttribute('data-span-ms'));
  const t0 = async () => Number(await canvas.getAttribute('data-t0'));
  // Zoom in with the wheel, out with a key; pan with a drag and with the arrows.
  const wide = await span();
  await page.mouse.move(box.x + 500, box.y + 200);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((w) => Number(document.querySelector('[data-testid=lanes-canvas]').dataset.spanMs) < w * 0.7, wide);
  const left = await t0();
  await page.mouse.down();
  await page.mouse.move(box.x + 300, box.y + 200, { steps: 4 });
  await page.mouse.up();
  assert.ok((await t0()) > left, 'a drag to the left moves later in time');
  await canvas.focus();
  await page.keyboard.press('0');
  assert.equal(await span(), wide, '0 fits everything again');
  await page.keyboard.press('-');
  assert.ok((await span()) > wide);
  await page.keyboard.press('0');
  // Dense rows for very tall lanes: the drawing shrinks, the bars still answer the pointer.
  const tall = Number(await canvas.getAttribute('data-lanes-height'));
  await page.keyboard.press('d');
  await page.waitForFunction((t) => Number(document.querySelector('[data-testid=lanes-canvas]').dataset.lanesHeight) < t * 0.6, tall);
  assert.equal(await page.isChecked('[data-testid=lanes-dense]'), true);
  await page.mouse.move(box.x + 400, box.y + 28 + 16 + 3);
  await page.waitForFunction(() => /^Model review/.test(document.querySelector('[data-testid=lanes-tip]')?.textContent ?? ''));
  await shot('lanes-dense');
  await page.click('[data-testid=lanes-dense]');
  await page.waitForFunction((t) => Number(document.querySelector('[data-testid=lanes-canvas]').dataset.lanesHeight) === t, tall);
  await canvas.focus();
  // Hover: the bar's summary, as text. Adam's lane is second (Lead's holds no bar): its first row.
  const adam = { x: box.x + 400, y: box.y + 28 + 32 + 11 };
  await page.mouse.move(adam.x, adam.y);
  await page.waitForSelector('[data-testid=lanes-tip]');
  assert.match(await page.textContent('[data-testid=lanes-tip]'), /^Model review · Lead → Adam · completed/);
  // The time axis is the scrub: a click views the workspace as of then.
  await page.mouse.click(box.x + 200, box.y + 10);
  await page.waitForSelector('[data-testid=past-banner]');
  const at = Number(page.url().match(/at=(\d+)/)[1]);
  assert.ok(at > 1 && at < 98, `scrubbed to record ${at}`);
  await canvas.focus();
  await page.keyboard.press('.');
  await page.waitForFunction((a) => location.hash.includes(`at=${a + 1}`), at);
  await shot('lanes-scrubbed');
  // Click through: the bar opens the handoff's detail.
  await page.mouse.click(adam.x, adam.y);
  await page.waitForSelector('[data-testid=handoff-detail]');
  assert.match(await page.textContent('[data-testid=handoff-detail]'), /Review the generated model/);
  await page.click('[data-testid=past-banner] a');
  // The keyboard reaches every bar: n selects the first, Enter opens it.
  await page.keyboard.press('4');
  await (await page.waitForSelector('[data-testid=lanes-canvas]')).focus();
  await page.keyboard.press('n');
  assert.match(await page.textContent('[data-testid=lanes-selection]'), /Model review/);
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=handoff-detail]');
});

test('the timeline scrubs: chains as they were', async () => {
  await page.keyboard.press('4');
  await page.click('[data-testid=mode-records]');
  await page.waitForSelector('[data-testid=timeline-entry]');
  await shot('timeline');
  const ws = page.url().match(/#\/w\/([^/]+)/)[1];
  await page.goto(`${base}#/w/${ws}/chains?at=14`);
  await page.waitForSelector('[data-testid=past-banner]');
  const past = await rowLabels();
  assert.ok(past.includes('Model review') && !past.includes('Validation'), `early rows: ${past}`);
  await page.click('[data-testid=past-banner] a');
  await page.waitForFunction(() => !document.querySelector('[data-testid=past-banner]'));
  assert.ok((await rowLabels()).includes('Validation'));
});

test('the act form shows the engine error next to its field', async () => {
  await page.keyboard.press('5');
  await page.selectOption('[data-testid=tool-select]', 'handoff');
  await page.selectOption('[data-testid=as-thread]', 'chat_main');
  await page.click('[data-testid=act-submit]');
  await page.waitForSelector('.field-error[data-field=task]');
  assert.match(await page.textContent('.field-error[data-field=task]'), /task/);
  await page.fill('textarea[name=task]', 'Summarize the migration for the weekly report');
  await page.fill('textarea[name=target_bot]', 'Scribe');
  await page.click('[data-testid=act-submit]');
  await page.waitForSelector('[data-testid=act-result]');
  assert.match(await page.textContent('[data-testid=act-result]'), /handoff_id/);
  await page.$eval('[data-testid=act]', (el) => { el.scrollTop = 0; });
  await shot('act');
});

test('a reload finds the same state in IndexedDB', async () => {
  const url = page.url().replace(/\/act.*$/, '/inbox/alice%40acme');
  await page.goto(url);
  await page.reload();
  await page.waitForSelector('[data-testid=teammate]');
  await page.selectOption('select[aria-label=Status]', 'completed');
  await page.waitForSelector('[data-testid=inbox-item]:has-text("Bob")');
  assert.match(await page.textContent('[data-testid=inbox-item]:has-text("Bob")'), /completed/);
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=chain-row]');
  assert.ok((await rowLabels()).includes('Summarize the migration for the weekly report'));
  assert.equal(await page.getAttribute('[data-testid=demo-progress]', 'data-done'), 'true');
});

test('the clock runs and the views follow it live', async () => {
  await page.keyboard.press('1');
  const row = '[data-testid=chain-row]:has-text("Error-budget watch") .facts';
  await page.waitForSelector(row);
  const before = { clock: await page.textContent('[data-testid=clock]'), facts: await page.textContent(row) };
  await page.selectOption('select[aria-label=Speed]', '3600');
  await page.click('[data-testid=run]');
  await page.waitForFunction((b) => document.querySelector('[data-testid=clock]').textContent !== b, before.clock);
  await page.waitForFunction((b) => {
    const r = [...document.querySelectorAll('[data-testid=chain-row]')].find((e) => e.querySelector('.label')?.textContent === 'Error-budget watch');
    return r && r.querySelector('.facts').textContent !== b;
  }, before.facts);
  await page.click('[data-testid=run]');
  assert.match(await page.textContent(row), /idle/);
});

test('a deep link opens one handoff directly', async () => {
  await page.click('[data-testid=chain-row]:has-text("Schema migration")');
  const link = page.url();
  const other = await page.context().newPage();
  await other.goto(link);
  await other.waitForSelector('[data-testid=handoff-detail]');
  assert.match(await other.textContent('[data-testid=handoff-detail]'), /Migrate the orders schema/);
  await other.close();
});

test('workspaces: rename, export, import and delete', async () => {
  await page.goto(`${base}#/w/demo/chains`);
  await page.waitForSelector('[data-testid=chain-row]');
  user.answer = 'Q4 rehearsal';
  await page.click('text=Rename');
  await page.waitForSelector('[data-testid=workspace-select] option:has-text("Q4 rehearsal (demo)")', { state: 'attached' });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  const file = await download.path();
  const doc = JSON.parse(await readFile(file, 'utf8'));
  assert.equal(doc.format, 'baton-workspace');
  assert.equal(doc.name, 'Q4 rehearsal');
  const lines = doc.log.trim().split('\n');
  assert.ok(lines.length > 50, `${lines.length} records exported`);
  await page.goto(`${base}#/`);
  await page.setInputFiles('input[type=file]', file);
  await page.waitForFunction(() => location.hash.startsWith('#/w/q4-rehearsal/chains'));
  await page.waitForSelector('[data-testid=chain-row]');
  assert.ok((await rowLabels()).includes('Summarize the migration for the weekly report'), 'the import has the same handoffs');
  user.answer = '';
  await page.click('text=Delete');
  await page.waitForFunction(() => location.hash === '#/');
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=workspace-select] option')].some((o) => o.value === 'q4-rehearsal'));
  user.answer = null;
});

test('an empty workspace is driven by hand: host inputs, then a tool', async () => {
  await page.goto(`${base}#/`);
  await page.fill('input[placeholder="New workspace name"]', 'Scratch');
  await page.click('text=Create empty');
  await page.waitForFunction(() => location.hash.startsWith('#/w/scratch/act'));
  const submit = async (tool, fields) => {
    await page.selectOption('[data-testid=tool-select]', tool);
    for (const [k, v] of Object.entries(fields)) await page.fill(`[name=${k}]`, v);
    await page.click('[data-testid=act-submit]');
    await page.waitForSelector('[data-testid=act-result]');
  };
  await submit('host:register_agent', { bot_id: 'solo', display_name: 'Solo' });
  await submit('host:open_thread', { thread_id: 'chat_1', bot_id: 'solo' });
  await page.selectOption('[data-testid=tool-select]', 'handoff');
  await page.selectOption('[data-testid=as-thread]', 'chat_1');
  await page.fill('textarea[name=task]', 'Write the plan');
  await page.click('[data-testid=act-submit]');
  await page.waitForSelector('[data-testid=act-result]');
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=chain-row]:has-text("Write the plan")');
});

test('a link to a workspace this browser lacks creates nothing', async () => {
  await page.goto(`${base}#/w/nosuch/chains`);
  await page.waitForSelector('.flash:has-text("No workspace \'nosuch\'")');
  assert.equal(await page.$$eval('[data-testid=workspace-select] option[value=nosuch]', (els) => els.length), 0);
});

test('a 2000-handoff workspace renders only the rows in view', async () => {
  await page.goto(`${base}#/generate/2000`);
  await page.waitForFunction(() => globalThis.__batonGenerated, null, { timeout: 60_000 });
  await page.waitForSelector('[data-testid=chain-row]');
  assert.match(await page.textContent('.filters .count'), /^2100 rows$/);
  const inDom = await page.$$eval('[data-testid=chain-row]', (els) => els.length);
  assert.ok(inDom < 100, `${inDom} rows in the DOM`);
  await page.$eval('#chain-scroll', (el) => { el.scrollTop = 1500 * 28; el.dispatchEvent(new Event('scroll')); });
  await page.waitForSelector('[data-testid=chain-row]:has-text("Task 14")');
  // The graph's minimap: a click near its foot brings the last nodes into view.
  await page.click('[data-testid=mode-graph]');
  const map = await (await page.waitForSelector('[data-testid=graph-minimap]')).boundingBox();
  await page.mouse.click(map.x + 6, map.y + map.height - 3);
  await page.waitForFunction(() => document.querySelector('#graph-scroll').scrollTop > 100_000);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=graph-node]')].some((n) => parseFloat(n.style.top) > 100_000));
  await shot('graph-minimap');
});

test('issue 25: the workspace the last link names is the one that opens, whatever order the openings finish in', async () => {
  const big = await page.evaluate(() => globalThis.__batonGenerated);
  const ids = await page.$$eval('[data-testid=workspace-select] option', (els) => els.map((e) => e.value));
  const small = ids.find((id) => id && id !== big && !id.startsWith('@'));
  assert.ok(big && small, `two browser workspaces (${ids})`);
  // A fresh page with none open. A link to one workspace, held at its first step (the lookup
  // of this browser's workspaces waits for the test), then a link to another: that one opens,
  // and only then is the first let go — its opening finishes last and must not win.
  await page.goto(`${base}#/`);
  await page.reload();
  await page.waitForSelector('[data-testid=load-demo]');
  await page.evaluate(([a, b]) => {
    const databases = indexedDB.databases.bind(indexedDB);
    let held = true;
    indexedDB.databases = () => {
      if (!held) return databases();
      held = false;
      return new Promise((resolve) => { globalThis.__batonRelease = () => resolve(databases()); });
    };
    performance.clearMarks('baton-opened');
    location.hash = `#/w/${a}/chains`;
    setTimeout(() => { location.hash = `#/w/${b}/chains`; }, 0);
  }, [big, small]);
  await page.waitForFunction(() => performance.getEntriesByName('baton-opened').length === 1 && globalThis.__batonRelease);
  await page.waitForSelector('[data-testid=chain-row]');
  await page.evaluate(() => globalThis.__batonRelease());
  await page.waitForFunction(() => performance.getEntriesByName('baton-opened').length === 2, null, { timeout: 60_000 });
  assert.equal(await page.$eval('[data-testid=workspace-select]', (el) => el.value), small);
  assert.match(page.url(), new RegExp(`#/w/${small}/chains`));
  await page.waitForSelector('[data-testid=chain-row]');
});

// In the page: the row of workspace `ws`'s IndexedDB store `views` that keeps view `name`
// (its record and its size) and the log's last record number; or that row rewritten at the
// record before (`older`), cut to its form's name and one byte (`damaged`), or deleted.
const keptView = (ws, name, rewrite) => page.evaluate(([ws, name, rewrite]) => new Promise((resolve, reject) => {
  const open = indexedDB.open(`baton-${ws}`);
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const tx = db.transaction(['views', 'log'], rewrite ? 'readwrite' : 'readonly');
    const views = tx.objectStore('views');
    const row = views.get(name);
    const last = tx.objectStore('log').openKeyCursor(null, 'prev');
    let out;
    row.onsuccess = () => {
      out = { seq: row.result?.seq, size: row.result?.bytes?.length };
      if (rewrite === 'older') views.put({ ...row.result, seq: row.result.seq - 1 });
      if (rewrite === 'damaged') views.put({ ...row.result, bytes: new Uint8Array([...row.result.bytes.slice(0, 4), 200]) });
      if (rewrite === 'deleted') views.delete(name);
    };
    last.onsuccess = () => { out.last = last.result?.key; };
    tx.oncomplete = () => { db.close(); resolve(out); };
    tx.onerror = () => reject(tx.error);
  };
}), [ws, name, rewrite ?? null]);

test('issue 26: a large workspace opened again draws the swimlanes it kept while it opens, the same as the live ones', async () => {
  // The 2000-handoff workspace generated above.
  const big = (await page.$$eval('[data-testid=workspace-select] option', (els) => els.map((e) => e.value))).find((id) => id.startsWith('load-2000'));
  assert.ok(big);
  const kept = (ws, rewrite) => keptView(ws, 'lanes', rewrite);
  const lanesText = () => page.textContent('[data-testid=lanes-selection]');
  const stored = () => page.waitForFunction(() => performance.getEntriesByName('baton-lanes-stored').length > 0);
  // The first visit lays the swimlanes out from the engine and keeps them.
  await page.goto(`${base}#/w/${big}/timeline`);
  await page.waitForSelector('[data-testid=lanes-selection]:has-text("2000 bars")');
  const live = { text: await lanesText(), height: await page.getAttribute('[data-testid=lanes-canvas]', 'data-lanes-height') };
  await stored();
  const row = await kept(big);
  assert.ok(row.size > 2000 * 20, `kept swimlanes of ${row.size} bytes`);
  assert.equal(row.seq, row.last, 'kept at the log\'s last record');
  // Opened again: the kept swimlanes are drawn before the workspace is open, and they are
  // the swimlanes the open workspace lays out.
  await page.reload();
  const first = await page.waitForFunction(() => globalThis.__batonLanesFirstDraw && {
    kept: performance.getEntriesByName('baton-lanes-kept').length,
    opened: performance.getEntriesByName('baton-opened').length,
    text: document.querySelector('[data-testid=lanes-selection]').textContent,
    height: document.querySelector('[data-testid=lanes-canvas]').dataset.lanesHeight,
    said: document.querySelector('[data-testid=lanes-kept]')?.textContent,
  }).then((h) => h.jsonValue());
  assert.deepEqual(first, { kept: 1, opened: 0, text: live.text, height: live.height, said: ' · opening the workspace: the lanes as it kept them at its last record' });
  // Once open, the lanes read back stand for the live ones: nothing is laid out again while
  // the log and the clock stay where they were.
  const opened = () => page.waitForFunction(() => performance.getEntriesByName('baton-opened').length > 0);
  await opened();
  await page.waitForSelector('[data-testid=lanes-kept]', { state: 'detached' });
  assert.equal(await lanesText(), live.text);
  assert.equal(await page.getAttribute('[data-testid=lanes-canvas]', 'data-lanes-height'), live.height);
  assert.equal(await page.evaluate(() => performance.getEntriesByName('baton-lanes-laid-out').length), 0);
  // Kept at a record before the last, or damaged: not drawn, the lanes come from the engine,
  // and the open workspace keeps them again.
  for (const rewrite of ['older', 'damaged']) {
    await kept(big, rewrite);
    await page.reload();
    await page.waitForFunction(() => performance.getEntriesByName('baton-lanes-laid-out').length > 0);
    assert.equal(await page.evaluate(() => performance.getEntriesByName('baton-lanes-kept').length), 0, rewrite);
    assert.equal(await lanesText(), live.text, rewrite);
    await stored();
    const again = await kept(big);
    assert.equal(again.seq, again.last, rewrite);
    assert.equal(again.size, row.size, rewrite);
  }
  // Once the clock runs, the lanes are laid out again from the engine.
  await page.reload();
  await opened();
  await page.waitForSelector('[data-testid=lanes-kept]', { state: 'detached' });
  assert.equal(await page.evaluate(() => performance.getEntriesByName('baton-lanes-laid-out').length), 0);
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => performance.getEntriesByName('baton-lanes-laid-out').length > 0);
  await page.click('[data-testid=run]');
});

test('issue 26: a large workspace opened again shows the chain rows it kept while it opens, in its tree and its graph, the same as the live ones', async () => {
  const big = (await page.$$eval('[data-testid=workspace-select] option', (els) => els.map((e) => e.value))).find((id) => id.startsWith('load-2000'));
  assert.ok(big);
  // What the page shows: the tree's row count and rows in view, the graph's nodes in view,
  // whether the workspace is open, and the kept rows' note.
  const SHOWN = `({
    count: document.querySelector('.filters .count').textContent,
    rows: [...document.querySelectorAll('[data-testid=chain-row]')].map((r) => r.textContent),
    graph: [...document.querySelectorAll('[data-testid=graph-node]')].map((n) => n.dataset.id + ' ' + n.style.cssText + ' ' + n.textContent),
    kept: performance.getEntriesByName('baton-rows-kept').length,
    opened: performance.getEntriesByName('baton-opened').length,
    said: document.querySelector('[data-testid=rows-kept]')?.textContent,
  })`;
  const shown = () => page.evaluate(SHOWN);
  // The same, read in the first frame where `selector` shows.
  const firstShown = (selector) => page.waitForFunction(`document.querySelector(${JSON.stringify(selector)}) && ${SHOWN}`).then((h) => h.jsonValue());
  const said = ' · opening the workspace: the rows as it kept them at its last record';
  const stored = () => page.waitForFunction(() => performance.getEntriesByName('baton-rows-stored').length > 0);
  const opened = () => page.waitForFunction(() => performance.getEntriesByName('baton-opened').length > 0);
  // The first visit lays the rows out from the engine and keeps them (an earlier test may have
  // kept them already).
  await page.goto(`${base}#/w/${big}/chains`);
  await keptView(big, 'rows', 'deleted');
  await page.reload();
  await opened();
  await page.waitForSelector('[data-testid=chain-row]');
  const { count, rows } = await shown();
  assert.equal(count, '2100 rows', '2,000 handoffs under 100 roots');
  assert.ok(rows.length > 10, rows.join('\n'));
  await stored();
  const row = await keptView(big, 'rows');
  assert.ok(row.size > 2000 * 20, `kept rows of ${row.size} bytes`);
  assert.equal(row.seq, row.last, 'kept at the log\'s last record');
  // Opened again: the kept rows show before the workspace is open, and they are the rows the
  // open workspace lays out.
  const live = { count, rows, graph: [] };
  await page.reload();
  assert.deepEqual(await firstShown('[data-testid=chain-row]'), { ...live, kept: 1, opened: 0, said });
  await opened();
  await page.waitForSelector('[data-testid=rows-kept]', { state: 'detached' });
  assert.deepEqual(await shown(), { ...live, kept: 1, opened: 1, said: undefined });
  // The graph draws from the same rows: opened again in its mode, its first nodes are the
  // live graph's.
  await page.goto(`${base}#/w/${big}/chains?mode=graph`);
  await page.waitForSelector('[data-testid=graph-node]');
  const { rows: behind, graph } = await shown();
  assert.ok(graph.length > 5, graph.join('\n'));
  // Rows read back at the log's last record are not stored again by the page that showed them.
  assert.equal(await page.evaluate(() => performance.getEntriesByName('baton-rows-stored').length), 0);
  const liveGraph = { count, rows: behind, graph };
  await page.reload();
  assert.deepEqual(await firstShown('[data-testid=graph-node]'), { ...liveGraph, kept: 1, opened: 0, said });
  await opened();
  await page.waitForSelector('[data-testid=rows-kept]', { state: 'detached' });
  assert.deepEqual(await shown(), { ...liveGraph, kept: 1, opened: 1, said: undefined });
  // Kept at a record before the last, or damaged: not shown, the rows come from the engine,
  // and the open workspace keeps them again.
  await page.goto(`${base}#/w/${big}/chains`);
  for (const rewrite of ['older', 'damaged']) {
    await keptView(big, 'rows', rewrite);
    await page.reload();
    await opened();
    await page.waitForSelector('[data-testid=chain-row]');
    assert.deepEqual(await shown(), { ...live, kept: 0, opened: 1, said: undefined }, rewrite);
    await stored();
    const again = await keptView(big, 'rows');
    assert.equal(again.seq, again.last, rewrite);
    assert.equal(again.size, row.size, rewrite);
  }
  // Rows read back stand for the live ones only while the log and the clock stay where they
  // were: once the clock runs, the rows are laid out again and their ages move on.
  await page.reload();
  await opened();
  await page.waitForSelector('[data-testid=rows-kept]', { state: 'detached' });
  assert.deepEqual(await shown(), { ...live, kept: 1, opened: 1, said: undefined });
  await page.click('[data-testid=run]');
  await page.waitForFunction((before) => document.querySelectorAll('[data-testid=chain-row]')[1]?.textContent !== before, live.rows[1]);
  await page.click('[data-testid=run]');
});
