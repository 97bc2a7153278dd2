import { afterAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../../src/engines/functional/browser.js';
import { chromiumPagesOpen } from '../../../src/observability/metrics.js';

/** vigil_chromium_pages_open follows the pool's leases: one per page borrowed, given back once (a second release changes nothing). */
describe('Chromium pages open (metric)', () => {
  const pool = new BrowserPool({ idleCloseMs: 0 });
  afterAll(() => pool.close());
  const open = async () => (await chromiumPagesOpen.get()).values[0]?.value ?? 0;

  it('counts the pages a pool has lent and not got back', async () => {
    const before = await open();
    const first = await pool.acquire();
    const second = await pool.acquire();
    const context = await first.browser.newContext();
    await (await context.newPage()).goto('about:blank');
    expect(await open()).toBe(before + 2);
    await context.close();
    first.release();
    first.release();
    expect(await open()).toBe(before + 1);
    second.release();
    expect(await open()).toBe(before);
  });
});
