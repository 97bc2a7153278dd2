import { randomUUID } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import type { AccessibilityPage, AccessibilityViolation, PerformancePage, Task, VisualPage } from '../../domain/scan.js';
import type { EngineContext, ScanEngine } from '../engine.js';
import { EngineFailure, targetBlocked } from '../engine.js';
import type { BrowserContext } from 'playwright-core';
import { acquireBrowser, closeBrowser, pageConcurrency, resolveChromium, setRecycleAfterPages } from './browser.js';
import { excludeMatcher, fetchSitemap, Frontier } from './crawl.js';
import { ScreencastRecorder } from './performance/speed-index.js';
import { measure, METRICS_INIT } from './performance/metrics.js';
import { MAX_CAPTURES, stableCapture } from './visual/capture.js';
import { complianceScore, PROFILE_TAGS, wcagCriterion, type Impact } from './accessibility/score.js';
import { pageRating, performanceScore } from './performance/score.js';
import { comparePngsAsync } from './visual/diff.js';
import { firstNonPublicAddress } from '../../net/address-guard.js';
import { TargetCredentials } from '../credentials.js';
import { TargetClient } from '../security/client.js';
import { startGuardedProxy, type GuardedProxy } from '../../net/guarded-proxy.js';

export { browserLaunches, findChromium } from './browser.js';
export { MAX_CAPTURES } from './visual/capture.js';
export * from './performance/score.js';
export * from './accessibility/score.js';

function pathOf(u: string): string {
  const x = new URL(u);
  return x.pathname + x.search;
}

export interface FunctionalEngineOptions {
  chromiumPath?: string;
  /** Upper bound on parallel pages for every scan (else options.concurrency, capped for the machine). */
  maxParallelPages?: number;
  /** The machine's cap on parallel pages (VIGIL_BROWSER_MAX_PAGES); default twice the cores, 2-8. */
  pageCap?: number;
  /** Pages a browser serves before it is replaced (default VIGIL_BROWSER_RECYCLE_PAGES or 200). */
  recycleAfterPages?: number;
}

type Stage = 'perf' | 'a11y' | 'visual';

/** What one page contributed; committed to the scan's results once the page is finished. */
interface PageRecord {
  url: string;
  tasks: Task[];
  perf?: PerformancePage;
  a11y?: AccessibilityPage;
  violations: AccessibilityViolation[];
  rules: Array<{ impact: Impact | null; passed: boolean }>;
  visual?: VisualPage;
  done: Set<Stage>;
}

export function createFunctionalEngine(opts: FunctionalEngineOptions = {}): ScanEngine & {
  close(): Promise<void>;
} {
  if (opts.chromiumPath) process.env.CHROMIUM_PATH = opts.chromiumPath;
  if (opts.recycleAfterPages) setRecycleAfterPages(opts.recycleAfterPages);
  // Hosted scans send every browser request through a proxy that only connects to public addresses.
  let hostedProxy: Promise<GuardedProxy> | undefined;
  return {
    kind: 'functional',
    async close() {
      await closeBrowser();
      if (hostedProxy) await (await hostedProxy).close();
      hostedProxy = undefined;
    },
    async run(ctx) {
      resolveChromium();
      ctx.signal.throwIfAborted();
      let proxy: { server: string } | undefined;
      if (ctx.deployment === 'hosted') {
        const host = new URL(ctx.input.url).hostname;
        const blocked = await firstNonPublicAddress(host).catch(() => undefined);
        if (blocked) throw targetBlocked(`The target ${host}`);
        hostedProxy ??= startGuardedProxy();
        proxy = { server: (await hostedProxy).url };
      }
      // The API normalised the options (http/scan-request.ts): every default is already filled in.
      const o = ctx.input.options;
      const vp = o.viewport;
      const vpKey = `${vp.width}x${vp.height}`;
      const profile = o.accessibility_profile;
      const timeoutMs = o.timeout * 1000;
      const auth = ctx.input.auth;
      // OAuth2 tokens come from the token endpoint through the guarded client (hosted: public addresses only).
      const tokenClient = auth?.type === 'oauth2' ? new TargetClient({ allowPrivate: ctx.deployment !== 'hosted', concurrency: 1, timeoutMs, signal: ctx.signal, maxBodyBytes: 1 << 20 }) : undefined;
      try {
        const credentials = new TargetCredentials((req) => tokenClient!.send(req), ctx.redactor);
        const headers = await credentials.headers(auth);

        // Pages: options.pages, else a same-origin crawl from url (rendered links + sitemap.xml).
        const start = new URL(ctx.input.url).href;
        const explicit = !!o.pages?.length;
        const frontier = new Frontier(start, o.max_pages, excludeMatcher(o.exclude), !explicit);
        if (explicit) for (const p of o.pages!) frontier.offer(p, start, true);
        else {
          frontier.offer(start, start, true);
          if (!frontier.full) {
            const fromSitemap = await fetchSitemap(start, { headers, proxy, timeoutMs, signal: ctx.signal, limit: frontier.max });
            for (const u of fromSitemap) frontier.offer(u, start);
          }
        }
        ctx.signal.throwIfAborted();
        if (frontier.accepted === 0) {
          throw new EngineFailure('NO_PAGES', `Every page was excluded by options.exclude (${frontier.excluded.slice(0, 3).join(', ')}); there is nothing to test.`);
        }

        const records: PageRecord[] = [];
        let done = 0;
        const STAGE_NAMES: Record<Stage, (p: string) => string> = {
          perf: (p) => `Performance: ${p}`,
          a11y: (p) => `Accessibility (${profile}): ${p}`,
          visual: (p) => `Visual regression: ${p}`,
        };
        const taskOf = (name: string, t0: number, error?: string): Task => ({
          task_id: randomUUID(),
          kind: 'functional',
          name,
          status: error ? 'failed' : 'passed',
          duration_ms: Math.round(performance.now() - t0),
          ...(error ? { error } : {}),
        });

        /** Load, metrics, links, axe, screenshot: everything one page needs, in that order. */
        const audit = async (context: BrowserContext, url: string, rec: PageRecord, isStart: boolean) => {
          const p = pathOf(url);
          const page = await context.newPage();
          await page.addInitScript(METRICS_INIT);
          const screencast = await ScreencastRecorder.start(page).catch(() => undefined);
          const t0 = performance.now();
          let navStatus = 0;
          page.on('response', (r) => {
            if (r.frame() === page.mainFrame() && r.request().isNavigationRequest()) navStatus = r.status();
          });
          const resp = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs }).catch((err: Error) => {
            // Chromium refuses to render some error responses (an empty 404): report the status.
            if (navStatus >= 400) return null;
            throw err;
          });
          const status = resp?.status() ?? navStatus;
          if (status >= 400) {
            await screencast?.stop();
            throw new Error(`HTTP ${status}`);
          }
          await page.waitForLoadState('networkidle', { timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
          const timing = resp?.request().timing();
          const ttfb = timing && timing.responseStart >= 0 ? timing.responseStart : 0;
          // Observed until the main thread is quiet, within a quarter of the page's time budget.
          const { metrics: m, capped } = await measure(page, ttfb, screencast, Math.min(5000, timeoutMs / 4));
          if (capped) ctx.logger.warn({ page: url }, 'page not quiet (long tasks, or no contentful paint) when its metrics were read; TTI and TBT cover the load until then');
          rec.perf = { page_url: url, performance_score: performanceScore(m, o.device), ...m, rating: pageRating(m) };
          rec.tasks.push(taskOf(STAGE_NAMES.perf(p), t0));
          rec.done.add('perf');

          if (frontier.crawl && !frontier.full) {
            if (isStart) frontier.addOrigin(page.url());
            const hrefs = (await page.evaluate(
              `Array.from(document.querySelectorAll('a[href],area[href]')).filter((e) => !e.hasAttribute('download')).map((e) => e.href)`,
            )) as string[];
            for (const h of hrefs) frontier.offer(h, page.url());
            wake();
          }

          const t1 = performance.now();
          const ax = await new AxeBuilder({ page: page as never }).withTags([...PROFILE_TAGS[profile]]).analyze();
          for (const r of ax.passes) rec.rules.push({ impact: (r.impact as Impact) ?? null, passed: true });
          for (const v of ax.violations) {
            const impact = (v.impact ?? 'moderate') as Impact;
            rec.rules.push({ impact, passed: false });
            rec.violations.push({
              rule: v.id,
              impact,
              wcag: wcagCriterion(v.tags),
              page_url: url,
              elements_affected: v.nodes.length,
              description: v.description,
              help_url: v.helpUrl,
            });
          }
          rec.a11y = { page_url: url, violations: ax.violations.length, compliance_score: complianceScore(rec.rules) };
          rec.tasks.push(taskOf(STAGE_NAMES.a11y(p), t1, ax.violations.length ? `${ax.violations.length} violation(s)` : undefined));
          rec.done.add('a11y');

          const t2 = performance.now();
          const shot = await stableCapture(page, { mask: o.mask, settleMs: Math.min(5000, timeoutMs) });
          if (!shot.stable) ctx.logger.warn({ page: url, captures: MAX_CAPTURES }, 'page still changing after the last capture; using the last one');
          const current = await ctx.artifacts.put(ctx.tenantId, shot.png, 'image/png');
          const baselineId = ctx.input.reset_baseline ? undefined : await ctx.baselines.get(ctx.tenantId, url, vpKey);
          const base = baselineId ? await ctx.artifacts.get(ctx.tenantId, baselineId) : undefined;
          if (!base || !baselineId) {
            await ctx.baselines.set(ctx.tenantId, url, vpKey, current);
            rec.visual = { page_url: url, viewport: vp, diff_detected: false, diff_percent: 0, baseline_artifact: current, current_artifact: current, diff_artifact: null, baseline_created: true };
            rec.tasks.push(taskOf(STAGE_NAMES.visual(p), t2));
          } else {
            const d = await comparePngsAsync(base.bytes, shot.png, { thresholdPercent: o.diff_threshold_percent });
            const diffId = d.diffImage ? await ctx.artifacts.put(ctx.tenantId, d.diffImage, 'image/png') : null;
            rec.visual = { page_url: url, viewport: vp, diff_detected: d.diffDetected, diff_percent: Math.round(d.diffPercent * 1000) / 1000, baseline_artifact: baselineId, current_artifact: current, diff_artifact: diffId, baseline_created: false };
            rec.tasks.push(taskOf(STAGE_NAMES.visual(p), t2, d.diffDetected ? `${d.diffPercent.toFixed(2)}% of pixels changed` : undefined));
          }
          rec.done.add('visual');
        };

        /** One page in a fresh context, bounded by options.timeout; retried once after a browser crash. */
        const visit = async (url: string, attempt = 0): Promise<void> => {
          const rec: PageRecord = { url, tasks: [], violations: [], rules: [], done: new Set() };
          const t0 = performance.now();
          // Cached; an OAuth2 token is refetched shortly before it expires (a failed fetch fails the scan).
          const pageHeaders = await credentials.headers(auth);
          const lease = await acquireBrowser(); // BROWSER_UNAVAILABLE fails the scan
          let context: BrowserContext | undefined;
          let timedOut = false;
          // Playwright calls can hang when their context is closed under them (newPage does), so the
          // page's work is raced against this: cancellation and timeout end the visit at once.
          let stop: (err: Error) => void = () => undefined;
          const stopped = new Promise<never>((_, reject) => (stop = reject));
          stopped.catch(() => undefined);
          const kill = () => {
            stop(new Error('stopped'));
            void context?.close().catch(() => undefined);
          };
          const timer = setTimeout(() => {
            timedOut = true;
            kill();
          }, timeoutMs);
          ctx.signal.addEventListener('abort', kill, { once: true });
          const onCrash = () => stop(new Error('the browser process exited'));
          lease.browser.on('disconnected', onCrash);
          let failure: string | undefined;
          let crashed = false;
          try {
            if (ctx.signal.aborted) return;
            context = await lease.browser.newContext({ viewport: vp, extraHTTPHeaders: pageHeaders, proxy, reducedMotion: 'reduce' });
            // Cancelled or timed out while the context was being created: nobody else will close it.
            if (ctx.signal.aborted || timedOut) throw new Error('stopped');
            const work = audit(context, url, rec, url === start);
            work.catch(() => undefined);
            await Promise.race([work, stopped]);
          } catch (err) {
            crashed = !lease.browser.isConnected();
            failure = timedOut ? `the page did not finish within ${timeoutMs / 1000} s (options.timeout)` : (err as Error).message.split('\n')[0];
          } finally {
            clearTimeout(timer);
            ctx.signal.removeEventListener('abort', kill);
            lease.browser.off('disconnected', onCrash);
            await Promise.race([context?.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
            lease.release();
          }
          if (ctx.signal.aborted) return;
          if (failure !== undefined && crashed && attempt === 0) {
            ctx.logger.warn({ page: url }, 'browser crashed during the page; retrying it in a new browser');
            return visit(url, 1);
          }
          if (failure !== undefined) {
            const p = pathOf(url);
            for (const st of ['perf', 'a11y', 'visual'] as Stage[]) if (!rec.done.has(st)) rec.tasks.push(taskOf(STAGE_NAMES[st](p), t0, crashed ? `the browser crashed: ${failure}` : failure));
          }
          records.push(rec);
        };

        // Worker pool over the frontier: pages found while crawling join the queue.
        let inFlight = 0;
        let sleepers: Array<() => void> = [];
        const wake = () => {
          const s = sleepers;
          sleepers = [];
          for (const f of s) f();
        };
        ctx.signal.addEventListener('abort', wake, { once: true });
        let fatal: unknown;
        const worker = async () => {
          for (;;) {
            if (ctx.signal.aborted || fatal !== undefined) return;
            const url = frontier.next();
            if (!url) {
              if (inFlight === 0) return;
              await new Promise<void>((r) => sleepers.push(r));
              continue;
            }
            inFlight++;
            try {
              await visit(url);
            } catch (err) {
              fatal ??= err; // the browser could not be started: the scan fails, other workers stop
            } finally {
              inFlight--;
              done++;
              ctx.progress(Math.min(99, Math.round((done / Math.max(done, frontier.accepted)) * 100)));
              wake();
            }
          }
        };
        try {
          await Promise.all(Array.from({ length: pageConcurrency(opts.maxParallelPages ?? o.concurrency, opts.pageCap) }, worker));
        } finally {
          ctx.signal.removeEventListener('abort', wake);
        }
        if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('scan cancelled');
        if (fatal !== undefined) throw fatal;
        ctx.progress(100);
        records.sort((x, y) => frontier.order(x.url) - frontier.order(y.url));

        const tasks = records.flatMap((r) => r.tasks);
        const perf = records.flatMap((r) => (r.perf ? [r.perf] : []));
        const ruleOutcomes = records.flatMap((r) => r.rules);
        const avg = (xs: number[]) => (xs.length ? Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10 : 0);
        return {
          tasks,
          agent_count: 1,
          functional: {
            diff_threshold_percent: o.diff_threshold_percent,
            visual: records.flatMap((r) => (r.visual ? [r.visual] : [])),
            accessibility: {
              wcag_level: profile,
              compliance_score: complianceScore(ruleOutcomes),
              violations: records.flatMap((r) => r.violations),
              pages: records.flatMap((r) => (r.a11y ? [r.a11y] : [])),
            },
            performance: { performance_score: avg(perf.map((x) => x.performance_score)), pages: perf },
          },
        };
      } finally {
        await tokenClient?.close();
      }
    },
  };
}
