import { performance } from 'node:perf_hooks';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser } from 'playwright-core';
import { gatherAccessibility } from '../src/engines/functional/accessibility/gather.js';
import { PROFILE_TAGS } from '../src/engines/functional/accessibility/score.js';
import { LAUNCH_ARGS, resolveChromium } from '../src/engines/functional/browser.js';
import { startA11yFixtures } from '../test/fixtures/a11y-server/server.js';

/**
 * axe on a large page, before and after issue 15: the fixture catalogue (500 product cards,
 * about 4,000 elements), each run on a fresh load of the page, alternating, median of ROUNDS.
 *  - before: what the engine ran until then, @axe-core/playwright with its bundled axe-core 4.13,
 *    the profile's tags, every result type detailed, `axe.finishRun` in a second, blank page;
 *  - after: gatherAccessibility: the declared axe-core 4.14 run once in the page, the profile's
 *    tags, only violations and needs-review nodes detailed, results cut in the page.
 * Also the article fixture, a page of ordinary size.
 */
const ROUNDS = 3;
const LARGE_CARDS = 500;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeOn(browser: Browser, url: string, run: (page: import('playwright-core').Page) => Promise<unknown>): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const t0 = performance.now();
    await run(page);
    return performance.now() - t0;
  } finally {
    await context.close();
  }
}

export async function run(): Promise<void> {
  const site = await startA11yFixtures(LARGE_CARDS);
  const browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
  try {
    for (const path of ['/a11y-large/', '/a11y-article/']) {
      const url = site.url + path;
      const elements = await (async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url);
        const n = (await page.evaluate('document.querySelectorAll("*").length')) as number;
        await context.close();
        return n;
      })();
      const before: number[] = [];
      const after: number[] = [];
      // Warm-up of both (compilation of the axe source, Chromium caches).
      await timeOn(browser, url, (page) => new AxeBuilder({ page: page as never }).withTags([...PROFILE_TAGS.wcag21aa]).analyze());
      await timeOn(browser, url, (page) => gatherAccessibility(page, { accessibility_profile: 'wcag21aa' }));
      for (let i = 0; i < ROUNDS; i++) {
        before.push(await timeOn(browser, url, (page) => new AxeBuilder({ page: page as never }).withTags([...PROFILE_TAGS.wcag21aa]).analyze()));
        after.push(await timeOn(browser, url, (page) => gatherAccessibility(page, { accessibility_profile: 'wcag21aa' })));
      }
      const b = median(before);
      const a = median(after);
      console.log(
        `  ${path} (${elements} elements): before ${b.toFixed(0)} ms (axe 4.13 via the wrapper), after ${a.toFixed(0)} ms (axe 4.14, one run, profile rules): ${(b / a).toFixed(1)}x faster`,
      );
    }
  } finally {
    await browser.close();
    await site.close();
  }
}
