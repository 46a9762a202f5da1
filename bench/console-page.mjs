// The console benches' common start: the release build (`dist`) served on localhost, headless
// Chromium at `viewport`, and a workspace of `n` handoffs generated in a page of its own
// (#/generate/N), which is closed again. The caller closes the browser and the server.
import { chromium } from '../tests/e2e/node_modules/playwright-core/index.mjs';
import { serve, CHROMIUM } from '../tests/e2e/serve.mjs';

export async function generated(dist, n, viewport, timeout = 300_000) {
  const { server, base } = await serve(dist);
  const browser = await chromium.launch(CHROMIUM);
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${base}#/generate/${n}`);
  const ws = await page.waitForFunction(() => globalThis.__batonGenerated, null, { timeout }).then((h) => h.jsonValue());
  await page.close();
  return { server, base, browser, context, ws };
}
