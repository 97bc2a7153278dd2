/**
 * Pages that misbehave still give results: a page whose image never arrives is measured and audited
 * at options.timeout with a warning; PDF, JSON and image URLs are reported as not HTML and not
 * audited; a scan none of whose pages loads fails with the reasons; a score is null, never 100, when
 * nothing was audited. And the verdicts: a poor rating fails the performance task, task names carry
 * the origin when the pages come from more than one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startMisbehavingSite, type MisbehavingSite } from '../../fixtures/misbehaving-site/server.js';
import { functionalContext } from '../../helpers/functional-engine.js';

const engine = createFunctionalEngine();
let site: MisbehavingSite;

const run = (pages: string[], timeout = 30) => engine.run(functionalContext({ url: site.url, options: { pages, timeout } }));
const pathsOf = (xs: Array<{ page_url: string }>) => xs.map((p) => new URL(p.page_url).pathname);

beforeAll(async () => {
  site = await startMisbehavingSite();
});
afterAll(async () => {
  await engine.close();
  await site.close();
});

describe('pages that misbehave', () => {
  it('a page whose image never finishes loading is measured and audited at options.timeout, with a warning', async () => {
    const t0 = Date.now();
    // 8 s: the page's budget is twice the timeout, and simulating a hung load on a busy 2-core
    // machine takes seconds of it.
    const out = await run(['/hung-image'], 8);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(8000);
    expect(
      out.tasks.map((t) => [t.name, t.status]),
      JSON.stringify(out.tasks.map((t) => t.error)),
    ).toEqual([
      ['Performance: /hung-image', 'passed'],
      ['Accessibility (wcag21aa): /hung-image', 'passed'],
      ['Visual regression: /hung-image', 'passed'],
    ]);
    const f = out.functional!;
    expect(f.performance.pages[0].fcp_ms).toBeGreaterThan(0);
    expect(f.performance.pages[0].performance_score).toBeGreaterThan(0);
    expect(pathsOf(f.accessibility.pages)).toEqual(['/hung-image']);
    expect(f.visual[0].baseline_created).toBe(true);
    expect(f.warnings).toEqual([
      `${site.url}/hung-image: the page did not finish loading within 8 s (options.timeout); it was measured and audited as it was then`,
    ]);
  }, 60_000);

  it('a PDF, a JSON document and an image are reported as not HTML pages and not audited', async () => {
    const out = await run(['/report.pdf', '/api/data.json', '/logo.png', '/ok']);
    const failures = out.tasks.filter((t) => t.status === 'failed').map((t) => [t.name, t.error]);
    expect(failures).toEqual(
      ['/report.pdf application/pdf', '/api/data.json application/json', '/logo.png image/png'].flatMap((x) => {
        const [path, type] = x.split(' ');
        return ['Performance', 'Accessibility (wcag21aa)', 'Visual regression'].map((audit) => [
          `${audit}: ${path}`,
          `not an HTML page (${type}); not audited`,
        ]);
      }),
    );
    const f = out.functional!;
    expect(pathsOf(f.performance.pages)).toEqual(['/ok']);
    expect(pathsOf(f.accessibility.pages)).toEqual(['/ok']);
    expect(pathsOf(f.visual)).toEqual(['/ok']);
  }, 60_000);

  it('a scan none of whose pages could be loaded fails with each reason', async () => {
    const failure = run(['/gone', '/report.pdf', '/missing']);
    await expect(failure).rejects.toMatchObject({ code: 'NO_PAGE_LOADED' });
    const reason = ((await failure.catch((e: Error) => e)) as Error).message;
    expect(reason).toContain(`${site.url}/gone: HTTP 410`);
    expect(reason).toContain(`${site.url}/report.pdf: not an HTML page (application/pdf)`);
    expect(reason).toContain(`${site.url}/missing: HTTP 404`);
  }, 60_000);

  it('a page whose audits cannot finish fails them at twice options.timeout; its metrics stay; no accessibility score (null, not 100)', async () => {
    const out = await run(['/axe-trap'], 3);
    expect(out.tasks.map((t) => [t.name, t.status])).toEqual([
      ['Performance: /axe-trap', 'passed'],
      ['Accessibility (wcag21aa): /axe-trap', 'failed'],
      ['Visual regression: /axe-trap', 'failed'],
    ]);
    expect(out.tasks[1].error).toBe('the page did not finish within 6 s (twice options.timeout: its load, then its audits)');
    const f = out.functional!;
    expect(f.performance.pages).toHaveLength(1);
    expect(f.accessibility.pages).toEqual([]);
    expect(f.accessibility.compliance_score).toBeNull();
    expect(f.visual).toEqual([]);
  }, 60_000);

  it('a page whose main thread never comes back fails its three tasks; the next page is unaffected', async () => {
    // 4 s (a budget of 8): a trivial page's whole visit (load, trace, axe, capture) beside a renderer
    // spinning on a core took over 4 s of work once on a loaded 2-core CI machine with timeout 2.
    const out = await run(['/frozen', '/ok'], 4);
    const frozen = out.tasks.filter((t) => t.name.endsWith('/frozen'));
    expect(frozen).toHaveLength(3);
    expect(frozen.every((t) => t.status === 'failed' && /twice options\.timeout/.test(t.error ?? ''))).toBe(true);
    // The frozen renderer keeps a core busy, so /ok's speed may be rated poor on a 2-core machine:
    // what must hold is that /ok was measured and audited as usual, not caught in /frozen's failure.
    const ok = out.tasks.filter((t) => t.name.endsWith('/ok'));
    expect(ok, JSON.stringify(ok)).toHaveLength(3);
    expect(
      ok.every((t) => t.status === 'passed' || (t.name.startsWith('Performance') && /^rated poor/.test(t.error ?? ''))),
      JSON.stringify(ok),
    ).toBe(true);
    expect(pathsOf(out.functional!.performance.pages)).toEqual(['/ok']);
  }, 60_000);
});

describe('verdicts', () => {
  it('a page rated poor fails its performance task, naming the metric', async () => {
    const out = await run(['/shifty', '/ok']);
    const perf = out.functional!.performance.pages.find((p) => p.page_url.endsWith('/shifty'))!;
    expect(perf.rating).toBe('poor');
    expect(perf.cls).toBeGreaterThan(0.25);
    const task = out.tasks.find((t) => t.name === 'Performance: /shifty')!;
    expect(task.status).toBe('failed');
    expect(task.error).toBe(`rated poor: CLS ${perf.cls} (poor above 0.25)`);
    expect(out.tasks.find((t) => t.name === 'Performance: /ok')!.status).toBe('passed');
  }, 60_000);

  it('task names carry the origin when the pages come from more than one', async () => {
    const other = site.url.replace('127.0.0.1', 'localhost');
    const out = await run(['/ok', `${other}/ok`]);
    expect(out.tasks.map((t) => t.name)).toEqual([
      `Performance: ${site.url}/ok`,
      `Accessibility (wcag21aa): ${site.url}/ok`,
      `Visual regression: ${site.url}/ok`,
      `Performance: ${other}/ok`,
      `Accessibility (wcag21aa): ${other}/ok`,
      `Visual regression: ${other}/ok`,
    ]);
    const single = await run(['/ok']);
    expect(single.tasks[0].name).toBe('Performance: /ok');
  }, 60_000);
});
