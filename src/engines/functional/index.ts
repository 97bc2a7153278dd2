import { randomUUID } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { AccessibilityPage, AccessibilityViolation, PerformancePage, Task, VisualPage } from '../../domain/scan.js';
import type { EngineContext, ScanEngine } from '../engine.js';
import { EngineFailure } from '../engine.js';
import { acquireBrowser, closeBrowser, findChromium, pageConcurrency, resolveChromium, Semaphore } from './browser.js';
import { complianceScore, PROFILE_TAGS, wcagCriterion, type Impact } from './accessibility/score.js';
import { pageRating, performanceScore } from './performance/score.js';
import { comparePngs } from './visual/diff.js';

export { findChromium } from './browser.js';
export * from './performance/score.js';
export * from './accessibility/score.js';

/** Collects paint, LCP, CLS and long tasks from the page load (installed before any script). */
const METRICS_INIT = `(() => {
  const m = (window.__vigil = { lcp: 0, cls: 0, longtasks: [] });
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) m.lcp = e.startTime; }).observe({ type: 'largest-contentful-paint', buffered: true }); } catch {}
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) m.cls += e.value; }).observe({ type: 'layout-shift', buffered: true }); } catch {}
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) m.longtasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true }); } catch {}
})();`;

const FREEZE_CSS = `*,*::before,*::after{animation-delay:-1ms!important;animation-duration:0s!important;animation-iteration-count:1!important;transition:none!important;caret-color:transparent!important;scroll-behavior:auto!important}`;

function resolvePages(ctx: EngineContext): string[] {
  const base = new URL(ctx.input.url);
  const list = ctx.input.options.pages?.length ? ctx.input.options.pages : [ctx.input.url];
  const urls = [...new Set(list.map((p) => new URL(p, base).toString()))];
  return urls.slice(0, Math.max(1, ctx.input.options.max_pages || 10));
}

function pathOf(u: string): string {
  const x = new URL(u);
  return x.pathname + x.search;
}

async function measure(page: Page, ttfb: number): Promise<Omit<PerformancePage, 'page_url' | 'performance_score' | 'rating'>> {
  await page.waitForTimeout(50);
  const raw = (await page.evaluate(() => {
    const w = window as unknown as { __vigil: { lcp: number; cls: number; longtasks: Array<[number, number]> } };
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0;
    return { ...w.__vigil, fcp };
  })) as { lcp: number; cls: number; longtasks: Array<[number, number]>; fcp: number };
  const after = raw.longtasks.filter(([s]) => s >= raw.fcp);
  const tbt = after.reduce((acc, [, d]) => acc + Math.max(0, d - 50), 0);
  const fid = after.reduce((acc, [, d]) => Math.max(acc, d), 0);
  const lastTaskEnd = raw.longtasks.reduce((acc, [s, d]) => Math.max(acc, s + d), 0);
  const lcp = Math.max(raw.lcp, raw.fcp);
  return {
    fcp_ms: Math.round(raw.fcp),
    lcp_ms: Math.round(lcp),
    cls: Math.round(raw.cls * 1000) / 1000,
    ttfb_ms: Math.round(ttfb),
    tbt_ms: Math.round(tbt),
    fid_ms: Math.round(fid),
    // Speed index stand-in until screencast frames are used: midpoint of FCP and LCP.
    si_ms: Math.round((raw.fcp + lcp) / 2),
    tti_ms: Math.round(Math.max(raw.fcp, lastTaskEnd)),
  };
}

export function createFunctionalEngine(opts: { chromiumPath?: string; maxParallelPages?: number } = {}): ScanEngine & {
  close(): Promise<void>;
} {
  if (opts.chromiumPath) process.env.CHROMIUM_PATH = opts.chromiumPath;
  return {
    kind: 'functional',
    close: () => closeBrowser(),
    async run(ctx) {
      resolveChromium();
      const o = ctx.input.options;
      const urls = resolvePages(ctx);
      const vp = o.viewport ?? { width: 1280, height: 800 };
      const vpKey = `${vp.width}x${vp.height}`;
      const profile = o.accessibility_profile ?? 'wcag21aa';
      const sem = new Semaphore(pageConcurrency(opts.maxParallelPages ?? o.concurrency ?? 5));
      const tasks: Task[] = [];
      const visual: VisualPage[] = [];
      const a11yPages: AccessibilityPage[] = [];
      const violations: AccessibilityViolation[] = [];
      const perf: PerformancePage[] = [];
      const ruleOutcomes: Array<{ impact: Impact | null; passed: boolean }> = [];
      let done = 0;
      const headers: Record<string, string> = {};
      const a = ctx.input.auth;
      if (a?.type === 'bearer' && a.token) headers.authorization = `Bearer ${a.token}`;
      if (a?.type === 'header' && a.header_name) headers[a.header_name] = a.header_value ?? '';
      const httpCredentials = a?.type === 'basic' ? { username: a.username ?? '', password: a.password ?? '' } : undefined;

      const task = (name: string, t0: number, error?: string) =>
        tasks.push({
          task_id: randomUUID(),
          kind: 'functional',
          name,
          status: error ? 'failed' : 'passed',
          duration_ms: Math.round(performance.now() - t0),
          ...(error ? { error } : {}),
        });

      await Promise.all(
        urls.map(async (url) => {
          const release = await sem.acquire(ctx.signal);
          const { browser, release: releaseBrowser } = await acquireBrowser();
          const context = await browser.newContext({ viewport: vp, extraHTTPHeaders: headers, httpCredentials, reducedMotion: 'reduce' });
          const onAbort = () => void context.close().catch(() => undefined);
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          const p = pathOf(url);
          try {
            const page = await context.newPage();
            await page.addInitScript(METRICS_INIT);
            const t0 = performance.now();
            let resp;
            try {
              resp = await page.goto(url, { waitUntil: 'load', timeout: (o.timeout ?? 30) * 1000 });
              await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
            } catch (err) {
              const msg = (err as Error).message.split('\n')[0];
              for (const n of [`Performance: ${p}`, `Accessibility (${profile}): ${p}`, `Visual regression: ${p}`]) task(n, t0, msg);
              return;
            }
            const timing = await resp?.request().timing();
            const ttfb = timing && timing.responseStart >= 0 ? timing.responseStart : 0;
            const m = await measure(page, ttfb);
            const score = performanceScore(m, o.device ?? 'desktop');
            perf.push({ page_url: url, performance_score: score, ...m, rating: pageRating(m) });
            task(`Performance: ${p}`, t0);

            const t1 = performance.now();
            const ax = await new AxeBuilder({ page: page as never }).withTags([...PROFILE_TAGS[profile]]).analyze();
            for (const r of ax.passes) ruleOutcomes.push({ impact: (r.impact as Impact) ?? null, passed: true });
            const pageRules: Array<{ impact: Impact | null; passed: boolean }> = ax.passes.map((r) => ({ impact: (r.impact as Impact) ?? null, passed: true }));
            for (const v of ax.violations) {
              const impact = (v.impact ?? 'moderate') as Impact;
              ruleOutcomes.push({ impact, passed: false });
              pageRules.push({ impact, passed: false });
              violations.push({
                rule: v.id,
                impact,
                wcag: wcagCriterion(v.tags),
                page_url: url,
                elements_affected: v.nodes.length,
                description: v.description,
                help_url: v.helpUrl,
              });
            }
            a11yPages.push({ page_url: url, violations: ax.violations.length, compliance_score: complianceScore(pageRules) });
            task(`Accessibility (${profile}): ${p}`, t1, ax.violations.length ? `${ax.violations.length} violation(s)` : undefined);

            const t2 = performance.now();
            await page.addStyleTag({ content: FREEZE_CSS });
            await page.evaluate(() => document.fonts.ready);
            const shot = await page.screenshot({
              fullPage: true,
              animations: 'disabled',
              caret: 'hide',
              mask: (o.mask ?? []).map((s) => page.locator(s)),
            });
            const current = await ctx.artifacts.put(ctx.tenantId, shot, 'image/png');
            const baselineId = ctx.input.reset_baseline ? undefined : await ctx.baselines.get(ctx.tenantId, url, vpKey);
            const base = baselineId ? await ctx.artifacts.get(ctx.tenantId, baselineId) : undefined;
            if (!base || !baselineId) {
              await ctx.baselines.set(ctx.tenantId, url, vpKey, current);
              visual.push({ page_url: url, viewport: vp, diff_detected: false, diff_percent: 0, baseline_artifact: current, current_artifact: current, diff_artifact: null, baseline_created: true });
              task(`Visual regression: ${p}`, t2);
            } else {
              const d = comparePngs(base.bytes, shot, { thresholdPercent: o.diff_threshold_percent ?? 0.5 });
              const diffId = d.diffImage ? await ctx.artifacts.put(ctx.tenantId, d.diffImage, 'image/png') : null;
              visual.push({ page_url: url, viewport: vp, diff_detected: d.diffDetected, diff_percent: Math.round(d.diffPercent * 1000) / 1000, baseline_artifact: baselineId, current_artifact: current, diff_artifact: diffId, baseline_created: false });
              task(`Visual regression: ${p}`, t2, d.diffDetected ? `${d.diffPercent.toFixed(2)}% of pixels changed` : undefined);
            }
          } finally {
            ctx.signal.removeEventListener('abort', onAbort);
            await context.close().catch(() => undefined);
            releaseBrowser();
            release();
            ctx.progress(Math.round((++done / urls.length) * 100));
          }
        }),
      );
      if (ctx.signal.aborted) throw new EngineFailure('CANCELLED', 'scan cancelled');
      const avg = (xs: number[]) => (xs.length ? Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10 : 0);
      return {
        tasks,
        agent_count: 1,
        functional: {
          diff_threshold_percent: o.diff_threshold_percent ?? 0.5,
          visual,
          accessibility: { wcag_level: profile, compliance_score: complianceScore(ruleOutcomes), violations, pages: a11yPages },
          performance: { performance_score: avg(perf.map((x) => x.performance_score)), pages: perf },
        },
      };
    },
  };
}
void findChromium;
