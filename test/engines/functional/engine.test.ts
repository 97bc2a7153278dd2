import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanInput } from '../../../src/domain/scan.js';
import type { EngineContext, ProgressDetail } from '../../../src/engines/engine.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startSite } from '../../fixtures/site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

const engine = createFunctionalEngine();
let site: Awaited<ReturnType<typeof startSite>>;
const artifacts = new MemoryArtifacts();
const baselines = new MemoryBaselines();

/** A scan of the fixture site sharing one pair of stores, so baselines carry over between runs. */
function ctx(pages: string[] | undefined, extra: Partial<ScanInput> = {}, options: Partial<ScanInput['options']> = {}): EngineContext {
  return functionalContext({ url: site.url, ...extra, options: { pages, ...options } }, { artifacts, baselines });
}

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await engine.close();
  site.server.close();
});

describe('functional engine', () => {
  it('audits accessibility: violations on the bad page, none on the clean page', async () => {
    const details: ProgressDetail[] = [];
    const out = await engine.run({ ...ctx(['/clean', '/violations']), progress: (_p, detail) => void (detail && details.push(detail)) });
    // While it runs: phase "pages", and the failed tasks of the pages done so far, up to the final count.
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((d) => d.phase === 'pages')).toBe(true);
    expect(details.at(-1)!.findings).toBe(out.tasks.filter((t) => t.status === 'failed').length);
    expect(details.at(-1)!.findings).toBeGreaterThan(0);
    const f = out.functional!;
    const clean = f.accessibility.pages.find((p) => p.page_url.endsWith('/clean'))!;
    const bad = f.accessibility.pages.find((p) => p.page_url.endsWith('/violations'))!;
    expect(clean.violations).toBe(0);
    expect(clean.compliance_score).toBe(100);
    expect(bad.violations).toBeGreaterThanOrEqual(3);
    expect(bad.compliance_score).toBeLessThan(90);
    const rules = f.accessibility.violations.map((v) => v.rule);
    expect(rules).toEqual(expect.arrayContaining(['image-alt', 'html-has-lang', 'color-contrast']));
    expect(f.accessibility.violations.find((v) => v.rule === 'image-alt')!.wcag).toBe('1.1.1');
    expect(
      out.tasks
        .filter((t) => t.name.startsWith('Accessibility'))
        .map((t) => t.status)
        .sort(),
    ).toEqual(['failed', 'passed']);
  }, 60_000);

  it('sets a baseline, then detects a layout change with a diff image, and reset replaces it', async () => {
    site.setLayout(0);
    const first = await engine.run(ctx(['/changing'], { reset_baseline: true }));
    expect(first.functional!.visual[0].baseline_created).toBe(true);
    const same = await engine.run(ctx(['/changing']));
    expect(same.functional!.visual[0].diff_detected).toBe(false);
    expect(same.functional!.visual[0].diff_percent).toBe(0);
    site.setLayout(1);
    const changed = await engine.run(ctx(['/changing']));
    const v = changed.functional!.visual[0];
    expect(v.diff_detected).toBe(true);
    expect(v.diff_percent).toBeGreaterThan(0.5);
    expect(v.diff_artifact).not.toBeNull();
    expect((await artifacts.get('t1', v.diff_artifact!))!.bytes.subarray(1, 4).toString()).toBe('PNG');
    const reset = await engine.run(ctx(['/changing'], { reset_baseline: true }));
    expect(reset.functional!.visual[0].baseline_created).toBe(true);
    const after = await engine.run(ctx(['/changing']));
    expect(after.functional!.visual[0].diff_detected).toBe(false);
  }, 60_000);

  it('measures TTFB, TBT and CLS on the slow page in the expected ranges', async () => {
    const out = await engine.run(ctx(['/slow']));
    const p = out.functional!.performance.pages[0];
    expect(p.ttfb_ms).toBeGreaterThanOrEqual(350);
    expect(p.ttfb_ms).toBeLessThan(1500);
    expect(p.tbt_ms).toBeGreaterThanOrEqual(150);
    expect(p.cls).toBeGreaterThan(0.05);
    expect(p.performance_score).toBeGreaterThan(0);
    expect(p.performance_score).toBeLessThan(100);
  }, 60_000);

  it('observes the load until the main thread is quiet: long tasks after FCP and after the load event all count', async () => {
    // /long-tasks: a 260 ms task right after FCP, then two after load (900 ms later, and 900 ms after
    // that one), the first with a layout shift; page timers guarantee the lower bounds below.
    // The observation itself (throttling none): simulate replaces TTI and TBT with Lighthouse's estimates.
    const out = await engine.run(ctx(['/long-tasks'], {}, { throttling: 'none' }));
    const p = out.functional!.performance.pages[0];
    expect(p.tti_ms).toBeGreaterThanOrEqual(2320);
    expect(p.tbt_ms).toBeGreaterThanOrEqual(3 * (259 - 50));
    expect(p.fid_ms).toBeGreaterThanOrEqual(259);
    expect(p.cls).toBeGreaterThan(0.05);
  }, 60_000);

  it('crawls same-origin links of the rendered DOM and sitemap.xml when no pages are given, honouring exclude', async () => {
    const out = await engine.run(ctx(undefined, { url: `${site.url}/crawl` }, { exclude: ['/crawl/private/*'] }));
    const pages = out.functional!.performance.pages.map((p) => new URL(p.page_url).pathname);
    expect(pages[0]).toBe('/crawl');
    expect(pages.slice().sort()).toEqual(['/crawl', '/crawl/a', '/crawl/b', '/crawl/deep', '/crawl/from-sitemap', '/crawl/scripted']);
    expect(out.functional!.visual).toHaveLength(6);
    expect(out.functional!.accessibility.pages).toHaveLength(6);
    expect(out.tasks).toHaveLength(18);
  }, 90_000);

  it('stops the crawl at max_pages (start page, then the sitemap, then links)', async () => {
    const out = await engine.run(ctx(undefined, { url: `${site.url}/crawl` }, { max_pages: 3 }));
    const pages = out.functional!.performance.pages.map((p) => new URL(p.page_url).pathname);
    expect(pages).toHaveLength(3);
    expect(pages.slice(0, 2)).toEqual(['/crawl', '/crawl/from-sitemap']);
  }, 60_000);

  it('applies exclude to listed pages too, and fails clearly when nothing is left', async () => {
    const out = await engine.run(ctx(['/clean', '/violations'], {}, { exclude: ['/violations'] }));
    expect(out.functional!.performance.pages.map((p) => new URL(p.page_url).pathname)).toEqual(['/clean']);
    await expect(engine.run(ctx(['/clean'], {}, { exclude: ['/cl*'] }))).rejects.toMatchObject({ code: 'NO_PAGES' });
  }, 60_000);

  it('fails the page tasks of an HTTP error page; measures a document that never finishes at options.timeout, with a warning', async () => {
    const out = await engine.run(ctx(['/missing', '/clean']));
    const missing = out.tasks.filter((t) => t.name.endsWith('/missing'));
    expect(missing).toHaveLength(3);
    expect(missing.every((t) => t.status === 'failed' && t.error === 'HTTP 404')).toBe(true);
    expect(out.functional!.performance.pages.map((p) => new URL(p.page_url).pathname)).toEqual(['/clean']);
    // /hang sends its first chunk and never the rest (misbehaving.test.ts covers the whole visit).
    // A timeout that leaves the audits of the half-loaded page room on a loaded 2-core machine (they get as long again).
    const slow = await engine.run(ctx(['/hang'], {}, { timeout: 5 }));
    expect(slow.tasks).toHaveLength(3);
    expect(slow.tasks[0]).toMatchObject({ name: 'Performance: /hang', status: 'passed' });
    expect(slow.functional!.performance.pages[0].fcp_ms).toBeGreaterThan(0);
    // Lighthouse's simulation cannot estimate TTFB when the document never finished (no server response time): that one is observed.
    expect(slow.functional!.warnings).toEqual([
      `${site.url}/hang: the page did not finish loading within 5 s (options.timeout); it was measured and audited as it was then`,
      `${site.url}/hang: Lighthouse's simulation could not compute TTFB (No response time for origin) on this unfinished load; its unthrottled figure is reported for each`,
    ]);
    expect(slow.functional!.performance.pages[0].throttling).toBe('simulate');
  }, 60_000);

  it('captures a page with CSS animations, an animated image, a caret and a late web font identically ten times in a row', async () => {
    const first = await engine.run(ctx(['/stable'], { reset_baseline: true }));
    expect(first.functional!.visual[0].baseline_created).toBe(true);
    for (let i = 0; i < 10; i++) {
      const again = await engine.run(ctx(['/stable']));
      const v = again.functional!.visual[0];
      expect({ run: i, diff: v.diff_percent, detected: v.diff_detected }).toEqual({ run: i, diff: 0, detected: false });
    }
  }, 300_000);

  it('takes the speed index from screencast frames (between first paint and load, not a copy of FCP)', async () => {
    const out = await engine.run(ctx(['/slow', '/stable'], {}, { throttling: 'none' }));
    for (const p of out.functional!.performance.pages) {
      expect(p.si_ms).toBeGreaterThan(0);
      expect(p.si_ms).toBeGreaterThanOrEqual(p.fcp_ms - 100);
      expect(p.si_ms).toBeLessThan(5000);
    }
  }, 60_000);
});
