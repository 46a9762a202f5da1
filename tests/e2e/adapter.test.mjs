// End-to-end: the console opens workspaces the adapters produced. The AI SDK example
// (examples/ai-sdk/delegation.mjs) and the OpenAI Agents SDK one (examples/openai-agents-js/),
// each on its scripted models, run their delegation against a real `baton serve`
// (target/debug/baton, loopback, the console's origin allowed), one workspace each; the console
// then attaches to each with a host key and shows the delegation: the lead's three handoffs,
// zed's cancel, eve's synchronous watch and adam's result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';
import { start, stop, tmpDb, ok, ADMIN } from '../server/helpers.mjs';
import { main as aiSdk } from '../../examples/ai-sdk/delegation.mjs';
import { main as openaiAgents } from '../../examples/openai-agents-js/delegation.mjs';

// The adapters, their example, and adam's report in it (the AI SDK's carries the follow-up's
// item, which reached adam's live turn through its steering).
const RUNS = [
  { adapter: 'AI SDK', workspace: 'ai-sdk', main: aiSdk, report: 'Risks: cache, migration, backup job' },
  { adapter: 'OpenAI Agents SDK', workspace: 'openai-agents', main: openaiAgents, report: 'Risks: cache, migration' },
];

const root = resolve(import.meta.dirname, '../..');
const dist = process.env.BATON_DIST ?? join(root, 'dist');
let web, base, browser, page, srv;

before(async () => {
  ({ server: web, base } = await serve(dist));
  srv = await start(tmpDb(), ['--cors-origin', base.replace(/\/$/, '')]);
  for (const run of RUNS) {
    await ok(srv, run.workspace, ADMIN, 'create_workspace');
    run.key = (await ok(srv, run.workspace, ADMIN, 'create_key', { principal: 'host' })).key;
    await run.main({ url: srv.url, workspace: run.workspace, key: run.key });
  }
  ({ browser, page } = await launch());
});

after(async () => {
  await browser?.close();
  web?.close();
  if (srv) await stop(srv);
});

for (const run of RUNS) {
  test(`the console shows the delegation an ${run.adapter} agent ran through baton serve`, async () => {
    await page.goto(base);
    await page.fill('[data-testid=server-url]', srv.url);
    await page.fill('[data-testid=server-workspace]', run.workspace);
    await page.fill('[data-testid=server-key]', run.key);
    await page.click('[data-testid=server-connect]');
    await page.waitForSelector('[data-testid=link][data-state=live]');
    for (const task of ['List the release risks', 'Benchmark everything', 'Check the data']) {
      await page.waitForSelector(`[data-testid=chain-row]:has-text("${task}")`);
    }
    const row = (task) => page.textContent(`[data-testid=chain-row]:has-text("${task}")`);
    assert.match(await row('Benchmark everything'), /cancelled/);
    assert.match(await row('Check the data'), /completed/);
    await page.click('[data-testid=chain-row]:has-text("List the release risks")');
    await page.waitForSelector('[data-testid=handoff-detail]');
    const detail = await page.textContent('[data-testid=handoff-detail]');
    assert.match(detail, /adam/);
    assert.ok(detail.includes(run.report), `adam's report: ${run.report}`);
  });
}
