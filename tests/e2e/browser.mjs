// Chromium with one page for the end-to-end tests: alerts are recorded in `dialogs` (one would
// mean a script ran), prompts and confirms get `answer` (null: dismissed), and an error in the
// page fails the test.
import { chromium } from 'playwright-core';
import { CHROMIUM } from './serve.mjs';

export async function launch() {
  const browser = await chromium.launch(CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const user = { dialogs: [], answer: null };
  page.on('dialog', (d) => {
    if (d.type() === 'alert') {
      user.dialogs.push(d.message());
      return d.dismiss();
    }
    return user.answer === null ? d.dismiss() : d.accept(user.answer);
  });
  page.on('pageerror', (e) => { throw e; });
  return { browser, page, user };
}
