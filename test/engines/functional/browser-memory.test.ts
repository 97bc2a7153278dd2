import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../../src/engines/functional/browser.js';
import { chromiumMemoryBytes } from '../../../src/engines/functional/browser-memory.js';

/** VIGIL_BROWSER_MEMORY_MB: Chromium's memory is measured from its own process list, and new pages wait while it is over the budget. */
describe('browser memory budget', () => {
  let pool: BrowserPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it("measures a browser's memory as the PSS of the processes it lists", async () => {
    pool = new BrowserPool({ idleCloseMs: 0 });
    const lease = await pool.acquire();
    const context = await lease.browser.newContext();
    await (await context.newPage()).setContent('<h1>Memory</h1><p>A page with a renderer of its own.</p>');
    const used = await chromiumMemoryBytes(lease.browser);
    // A browser process, a renderer and its services: tens of MB at least, far from the machine's memory.
    expect(used).toBeGreaterThan(30 * 2 ** 20);
    expect(used).toBeLessThan(8 * 2 ** 30);
    await context.close();
    lease.release();
  });

  it('over the budget, a new page waits for an open one to end, then starts in a fresh browser', async () => {
    pool = new BrowserPool({ idleCloseMs: 60_000, memoryBudgetBytes: 1 });
    const first = await pool.acquire();
    const context = await first.browser.newContext();
    await (await context.newPage()).setContent('<p>first</p>');
    expect(pool.launches).toBe(1);

    let started = false;
    const second = pool.acquire().then((lease) => {
      started = true;
      return lease;
    });
    // However long it is given, the second page cannot start while the first holds the browser over its budget.
    await Promise.race([second, sleep(1_500)]);
    expect(started).toBe(false);

    await context.close();
    first.release();
    const lease = await second;
    expect(started).toBe(true);
    expect(lease.browser).not.toBe(first.browser);
    expect(pool.launches).toBe(2);
    lease.release();
  });

  it('under the budget, pages start side by side in one browser', async () => {
    pool = new BrowserPool({ idleCloseMs: 60_000, memoryBudgetBytes: 64 * 2 ** 30 });
    const first = await pool.acquire();
    const second = await pool.acquire();
    const third = await pool.acquire();
    expect(new Set([first.browser, second.browser, third.browser]).size).toBe(1);
    expect(pool.launches).toBe(1);
    for (const l of [first, second, third]) l.release();
  });
});
