/**
 * options.budgets judged by the engine: each measured page lists the budgets that apply to it, and
 * an `error` budget it misses fails its performance task, naming the metric and the limit.
 * Limits are chosen so the verdict cannot depend on the machine's speed (an LCP over 1 ms, a CLS
 * under 1, a score of at least 0).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startSite } from '../../fixtures/site/server.js';
import { functionalContext } from '../../helpers/functional-engine.js';

const engine = createFunctionalEngine();
let site: Awaited<ReturnType<typeof startSite>>;

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await engine.close();
  site.server.close();
});

describe('performance budgets in the engine', () => {
  it('lists the budgets per page and fails the performance task on a missed error budget only', async () => {
    const pages = [`${site.url}/clean`, `${site.url}/clean?2`];
    const out = await engine.run(
      functionalContext({
        url: site.url,
        options: {
          pages,
          throttling: 'none',
          budgets: [
            { metric: 'lcp', max: 1, page: '/clean', level: 'error' },
            { metric: 'cls', max: 1, level: 'error' },
            { metric: 'fcp', max: 1, level: 'warn' },
            { metric: 'performance', min: 0, level: 'error' },
          ],
        },
      }),
    );
    const perf = out.functional!.performance.pages;
    expect(perf).toHaveLength(2);
    for (const p of perf) {
      const byMetric = Object.fromEntries((p.budgets ?? []).map((b) => [b.metric, b]));
      expect(byMetric.cls).toMatchObject({ limit: 1, kind: 'max', level: 'error', passed: true });
      expect(byMetric.fcp).toMatchObject({ limit: 1, kind: 'max', level: 'warn', passed: false });
      expect(byMetric.performance).toMatchObject({ limit: 0, kind: 'min', passed: true });
      expect(byMetric.fcp!.actual).toBe(p.fcp_ms);
    }
    // "/clean" without a star is the path and below: both pages (the query is not part of the path).
    const tasks = out.tasks.filter((t) => t.name.startsWith('Performance'));
    expect(tasks).toHaveLength(2);
    for (const t of tasks) {
      expect(t.status).toBe('failed');
      expect(t.error).toMatch(/over budget: lcp \d+(\.\d+)? \(limit <= 1\)/);
      expect(t.error).not.toMatch(/fcp/);
    }
  }, 120_000);

  it('a page no error budget catches passes, its warn budget shown', async () => {
    const out = await engine.run(
      functionalContext({
        url: site.url,
        options: {
          pages: [`${site.url}/clean`],
          throttling: 'none',
          budgets: [
            { metric: 'tbt', max: 1_000_000, level: 'error' },
            { metric: 'fcp', max: 1, level: 'warn' },
          ],
        },
      }),
    );
    const page = out.functional!.performance.pages[0]!;
    expect(page.budgets?.map((b) => [b.metric, b.passed])).toEqual([
      ['tbt', true],
      ['fcp', false],
    ]);
    const task = out.tasks.find((t) => t.name.startsWith('Performance'))!;
    expect(task.status, task.error).toBe(page.rating === 'poor' ? 'failed' : 'passed');
    expect(task.error ?? '').not.toMatch(/over budget/);
  }, 120_000);
});
