// End-to-end: the console attached live to a real `baton serve` (target/debug/baton, started
// here on loopback with the console's origin allowed). The console connects with a host key,
// shows the workspace, follows new commits as they happen, acts through the server (an inbox
// accept and reply, a tool call from the act form), keeps hostile sender text as text, rides out
// a server restart (the stream resumes: nothing lost, nothing twice — checked against the
// server's log through the console's export), reopens after a reload and forgets the
// connection. Saves docs/screenshots/server.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

const root = resolve(import.meta.dirname, '../..');
const dist = process.env.BATON_DIST ?? join(root, 'dist');
const bin = join(root, 'target', 'debug', 'baton');
const ADMIN = 'e2e-admin-key';
const WS = 'team';

let web, base, origin, browser, page, user, dir, db, srv, hostKey;

/** Starts `baton serve` on `addr`; resolves once it listens. */
function startServer(addr) {
  return new Promise((ok, fail) => {
    const p = spawn(bin, ['serve', '--db', db, '--addr', addr, '--cors-origin', origin], {
      env: { ...process.env, BATON_ADMIN_KEY: ADMIN, RUST_LOG: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '', err = '';
    p.stderr.on('data', (d) => (err += d));
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[\d.:]+)/);
      if (m) ok({ p, url: m[1] });
    });
    p.on('exit', (code) => fail(new Error(`baton serve exited (${code}) before listening: ${err}`)));
  });
}

function stopServer(s) {
  return new Promise((ok) => {
    if (s.p.exitCode !== null) return ok();
    s.p.once('exit', () => ok());
    s.p.kill('SIGTERM');
  });
}

let nextId = 1;
async function rpc(key, method, params) {
  const r = await fetch(`${srv.url}/w/${WS}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = await r.json();
  assert.ok(body.result !== undefined, `${method}: ${JSON.stringify(body)}`);
  return body.result;
}

/** Every record the server's log holds, by `log` pages. */
async function serverLog() {
  const all = [];
  for (;;) {
    const page = await rpc(hostKey, 'log', { after: all.length ? all.at(-1).seq : 0, limit: 1000 });
    if (!page.records.length) return all;
    all.push(...page.records);
  }
}

const lead = { thread: 'chat_main', bot: 'lead' };

before(async () => {
  ({ server: web, base } = await serve(dist));
  origin = base.replace(/\/$/, '');
  dir = fs.mkdtempSync(join(os.tmpdir(), 'baton-e2e-serve-'));
  db = join(dir, 'baton.db');
  srv = await startServer('127.0.0.1:0');
  await rpc(ADMIN, 'create_workspace');
  hostKey = (await rpc(ADMIN, 'create_key', { principal: 'host' })).key;
  const host = (input, args) => rpc(hostKey, 'host', { input, args });
  await host('register_agent', { bot_id: 'lead', display_name: 'Lead' });
  await host('register_agent', { bot_id: 'adam', display_name: 'Adam', tools: ['project_manager_tools', 'web_search'] });
  await host('open_thread', { thread_id: 'chat_main', bot_id: 'lead', title: 'Main' });
  await host('register_teammate', { handle: 'bob@acme', name: 'Bob', role: 'backend', bot_id: 'adam' });
  await host('register_teammate', { handle: 'alice@acme', name: 'Alice', role: 'frontend' });
  await rpc(hostKey, 'call', { tool: 'handoff', args: { task: 'Review the model', target_bot: 'adam' }, as: lead });
  await rpc(hostKey, 'call', {
    tool: 'handoff_to_teammate',
    as: { handle: 'bob@acme' },
    args: { to: 'alice@acme', summary: 'Check the totals <img src=x onerror=alert(1)>', intent: 'ask_question' },
  });
  ({ browser, page, user } = await launch());
});

after(async () => {
  await browser?.close();
  web?.close();
  if (srv) await stopServer(srv);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const rowLabels = () => page.$$eval('[data-testid=chain-row] .label', (els) => els.map((e) => e.textContent));
const linkState = () => page.getAttribute('[data-testid=link]', 'data-state');

test('a wrong key is refused with the server\'s error, and nothing is saved', async () => {
  await page.goto(base);
  await page.fill('[data-testid=server-url]', srv.url);
  await page.fill('[data-testid=server-workspace]', WS);
  await page.fill('[data-testid=server-key]', 'not-a-key');
  await page.click('[data-testid=server-connect]');
  await page.waitForSelector('.flash');
  assert.match(await page.textContent('.flash'), /forbidden|not_found|key/i);
  assert.equal(await page.evaluate(() => localStorage.getItem('baton-servers')), null);
  await page.click('.flash button');
});

test('the console opens a server workspace and shows it live', async () => {
  await page.fill('[data-testid=server-key]', hostKey);
  await page.click('[data-testid=server-connect]');
  await page.waitForFunction(() => location.hash.startsWith('#/w/%40team/chains') || location.hash.startsWith('#/w/@team/chains'));
  await page.waitForSelector('[data-testid=chain-row]:has-text("Review the model")');
  await page.waitForSelector('[data-testid=link][data-state=live]');
  // Another client commits: the console shows it without being asked.
  await rpc(hostKey, 'call', { tool: 'handoff', args: { task: 'Write the release notes', target_bot: 'adam' }, as: lead });
  await page.waitForSelector('[data-testid=chain-row]:has-text("Write the release notes")');
  await page.click('[data-testid=chain-row]:has-text("Review the model")');
  await page.waitForSelector('[data-testid=handoff-detail]');
  assert.match(await page.textContent('[data-testid=handoff-detail]'), /nudges_sent/);
  await page.screenshot({ path: join(root, 'docs/screenshots/server.png') });
});

test('acting goes through the server: an inbox accept and a reply; sender text stays text', async () => {
  await page.keyboard.press('3');
  await page.click('[data-testid=teammate]:has-text("Alice")');
  await page.click('[data-testid=inbox-item]:has-text("Bob")');
  await page.click('[data-testid=accept]');
  await page.waitForSelector('[data-testid=accepted]', { state: 'attached' });
  assert.equal((await serverLog()).at(-1).command, 'accept_handoff', 'the server committed the accept');
  assert.match(await page.textContent('[data-testid=wrapped-summary]'), /Check the totals <img src=x onerror=alert\(1\)>/);
  await page.fill('[data-testid=reply-body]', 'Looking <script>alert(2)</script>');
  await page.click('[data-testid=reply]');
  await page.waitForFunction(() => document.querySelector('[data-testid=relay-messages]')?.textContent.includes('Looking <script>alert(2)</script>'));
  assert.equal(await page.$$eval('img', (els) => els.length), 0, 'no img element was created');
  assert.deepEqual(user.dialogs, [], 'no script ran');
});

test('the act form calls a tool through the server; errors name the field', async () => {
  await page.keyboard.press('5');
  await page.selectOption('[data-testid=tool-select]', 'handoff');
  await page.selectOption('[data-testid=as-thread]', 'chat_main');
  await page.click('[data-testid=act-submit]');
  await page.waitForSelector('.field-error[data-field=task]');
  await page.fill('textarea[name=task]', 'Draft the rollout plan');
  await page.fill('textarea[name=target_bot]', 'adam');
  await page.click('[data-testid=act-submit]');
  await page.waitForSelector('[data-testid=act-result]');
  const last = (await serverLog()).at(-1);
  assert.equal(last.command, 'handoff');
  assert.match(await page.textContent('[data-testid=act-result]'), /handoff_id/);
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=chain-row]:has-text("Draft the rollout plan")');
});

test('the timeline and mission views read the server workspace; the past is viewable', async () => {
  await page.keyboard.press('4');
  // The swimlanes draw the server workspace; the records are the second view.
  await page.waitForSelector('[data-testid=lanes-canvas]');
  await page.waitForFunction(() => / [1-9]\d* bars/.test(document.querySelector('[data-testid=lanes-selection]')?.textContent ?? ''));
  await page.click('[data-testid=mode-records]');
  await page.waitForSelector('[data-testid=timeline-entry]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=history-loading]'));
  await page.goto(page.url().replace(/#.*$/, '') + '#/w/%40team/chains?at=6');
  await page.waitForSelector('[data-testid=past-banner]');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=chain-row] .label')].some((e) => e.textContent === 'Review the model'));
  assert.ok(!(await rowLabels()).includes('Write the release notes'), 'as of record 6');
  await page.click('[data-testid=past-banner] a');
  await page.waitForFunction(() => !document.querySelector('[data-testid=past-banner]'));
  await page.keyboard.press('2');
  await page.waitForSelector('main section, main p');
});

test('a server restart drops the stream; it resumes with nothing lost or repeated', async () => {
  await page.keyboard.press('1');
  await page.waitForSelector('[data-testid=link][data-state=live]');
  const addr = srv.url.replace('http://', '');
  await stopServer(srv);
  await page.waitForSelector('[data-testid=link][data-state="reconnecting…"]');
  srv = await startServer(addr);
  await rpc(hostKey, 'call', { tool: 'handoff', args: { task: 'After the restart', target_bot: 'adam' }, as: lead });
  await page.waitForSelector('[data-testid=chain-row]:has-text("After the restart")', { timeout: 30_000 });
  await page.waitForSelector('[data-testid=link][data-state=live]');
  // The console's copy of the log is the server's, record for record.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  const doc = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  const mine = doc.log.trim().split('\n').map((l) => JSON.parse(l));
  const theirs = await serverLog();
  assert.deepEqual(mine.map((r) => r.seq), theirs.map((r) => r.seq));
  assert.deepEqual(mine, theirs);
});

test('a reload reopens the server workspace; forgetting it leaves the server as it was', async () => {
  await page.reload();
  await page.waitForSelector('[data-testid=chain-row]:has-text("After the restart")');
  await page.waitForSelector('[data-testid=link][data-state=live]');
  assert.equal(await linkState(), 'live');
  user.answer = '';
  await page.click('[data-testid=delete]');
  await page.waitForFunction(() => location.hash === '#/');
  user.answer = null;
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem('baton-servers'))), []);
  assert.ok((await serverLog()).length > 8, 'the server still has the workspace');
});
