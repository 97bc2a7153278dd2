/**
 * The functional engine: which pages (crawl.ts), each visited once in a fresh browser context
 * (page-runner.ts) where the registered gatherers collect and the audits judge (pipeline.ts,
 * registry.ts), and the scan's outcome summed up by each audit.
 */
import { randomUUID } from 'node:crypto';
import { pagePathKey } from '../../domain/artifacts.js';
import type { FunctionalOutcome, Task } from '../../domain/scan.js';
import { firstNonPublicAddress } from '../../net/address-guard.js';
import { startGuardedProxy, type GuardedProxy } from '../../net/guarded-proxy.js';
import { TargetCredentials } from '../credentials.js';
import type { EngineContext, ScanEngine } from '../engine.js';
import { EngineFailure, targetBlocked } from '../engine.js';
import { TargetClient } from '../security/client.js';
import { BrowserPool, pageConcurrency } from './browser.js';
import { CpuLock } from './cpu-lock.js';
import { PagePauser } from './page-pauser.js';
import { excludeMatcher, fetchSitemap, Frontier } from './crawl.js';
import { PageQueue, PageRunner } from './page-runner.js';
import { auditPage, failRemaining, newPageRecord, type PageRecord } from './pipeline.js';
import { accessibilityAudit, withAccessibilityBudgetLines, type AccessibilityResult } from './audits/accessibility.js';
import { AUDITS } from './registry.js';
import { contextEmulation } from './throttling/emulation.js';
import { LanternWorker } from './throttling/lantern-worker.js';
import type { ScanEnv } from './types.js';

export { findChromium } from './browser.js';
export { MAX_CAPTURES } from './visual/capture.js';
export * from './performance/score.js';
export * from './accessibility/score.js';

export interface FunctionalEngineOptions {
  /** The Chromium to launch (else CHROMIUM_PATH or the usual paths). */
  chromiumPath?: string;
  /** Upper bound on parallel pages for every scan (else options.concurrency, capped for the machine). */
  maxParallelPages?: number;
  /** The machine's cap on parallel pages (VIGIL_BROWSER_MAX_PAGES); default twice the cores, 2-8. */
  pageCap?: number;
  /** Pages a browser serves before it is replaced (default VIGIL_BROWSER_RECYCLE_PAGES or 200). */
  recycleAfterPages?: number;
  /** A browser serving no page for this long is closed (default 15 s): no Chromium memory held between scans. */
  browserIdleCloseMs?: number;
  /** Chromium memory at or over which new pages wait (VIGIL_BROWSER_MEMORY_MB); unset or 0: no budget. */
  browserMemoryBudgetBytes?: number;
}

export interface FunctionalEngine extends ScanEngine {
  /** Closes the browser and the hosted proxy (worker shutdown). */
  close(): Promise<void>;
  /** Browsers this engine has launched (restarts after a crash or recycling included). */
  browserLaunches(): number;
  /** Whether the engine's Chromium is running now (it is closed once idle after a scan). */
  browserRunning(): boolean;
  /** `ok`, or why pages cannot be served now (no Chromium found, not connected, its last launch failed): GET /health/ready. */
  browserReadiness(): string;
}

/** A page's path and query (and hash route), as task names show it. */
function pathOf(u: string): string {
  return pagePathKey(u);
}

export function createFunctionalEngine(opts: FunctionalEngineOptions = {}): FunctionalEngine {
  const pool = new BrowserPool({
    chromiumPath: opts.chromiumPath,
    recycleAfterPages: opts.recycleAfterPages,
    idleCloseMs: opts.browserIdleCloseMs,
    memoryBudgetBytes: opts.browserMemoryBudgetBytes,
  });
  // One per engine (one engine per worker process): every scan's metric loads take turns.
  const lock = new CpuLock();
  const pauser = new PagePauser();
  // Lighthouse's simulations run on this thread, while the pages are audited.
  const lantern = new LanternWorker();
  // Hosted scans send every browser request through a proxy that only connects to public addresses.
  let hostedProxy: Promise<GuardedProxy> | undefined;
  return {
    kind: 'functional',
    browserLaunches: () => pool.launches,
    browserRunning: () => pool.running,
    browserReadiness: () => pool.readiness(),
    async close() {
      await pool.close();
      await lantern.close();
      if (hostedProxy) await (await hostedProxy).close();
      hostedProxy = undefined;
    },
    async run(ctx) {
      pool.executable();
      ctx.signal.throwIfAborted();
      let proxy: { server: string } | undefined;
      if (ctx.deployment === 'hosted') {
        const host = new URL(ctx.input.url).hostname;
        const blocked = await firstNonPublicAddress(host).catch(() => undefined);
        if (blocked) throw targetBlocked(`The target ${host}`);
        hostedProxy ??= startGuardedProxy();
        proxy = { server: (await hostedProxy).url };
      }
      return runScan(ctx, {
        pool,
        lock,
        pauser,
        lantern,
        proxy,
        concurrency: pageConcurrency(opts.maxParallelPages ?? ctx.input.options.concurrency, opts.pageCap),
      });
    },
  };
}

async function runScan(
  ctx: EngineContext,
  engine: { pool: BrowserPool; lock: CpuLock; pauser: PagePauser; lantern: LanternWorker; proxy?: { server: string }; concurrency: number },
): Promise<{ tasks: Task[]; agent_count: number; functional: FunctionalOutcome }> {
  // The API normalised the options (http/scan-request.ts): every default is already filled in.
  const o = ctx.input.options;
  const timeoutMs = o.timeout * 1000;
  const auth = ctx.input.auth;
  const { proxy } = engine;
  // OAuth2 tokens and logins go through the guarded client (hosted: public addresses only).
  const tokenClient =
    auth?.type === 'oauth2' || auth?.type === 'login'
      ? new TargetClient({ allowPrivate: ctx.deployment !== 'hosted', concurrency: 1, timeoutMs, signal: ctx.signal, maxBodyBytes: 1 << 20 })
      : undefined;
  try {
    const credentials = new TargetCredentials((req) => tokenClient!.send(req), ctx.redactor, ctx.input.url);
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
      throw new EngineFailure(
        'NO_PAGES',
        `Every page was excluded by options.exclude (${frontier.excluded.slice(0, 3).join(', ')}); there is nothing to test.`,
      );
    }

    // Lighthouse is loaded on the worker thread once, before any page's clock runs (a failure to
    // load it shows on each page: its metrics are then measured with devtools throttling).
    if ((o.throttling ?? 'simulate') === 'simulate') await engine.lantern.ready().catch(() => undefined);
    // Failed tasks (audits that failed on a page) of the pages done so far: the findings a running scan shows.
    let failed = 0;
    const queue = new PageQueue(frontier, {
      concurrency: engine.concurrency,
      signal: ctx.signal,
      progress: (p) => ctx.progress(p, { phase: 'pages', findings: failed }),
    });
    ctx.progress(0, { phase: 'pages', findings: 0 });
    const scan: ScanEnv = {
      tenantId: ctx.tenantId,
      scanId: ctx.scanId,
      input: ctx.input,
      options: o,
      artifacts: ctx.artifacts,
      baselines: ctx.baselines,
      logger: ctx.logger,
      timeoutMs,
      lantern: engine.lantern,
      crawling: () => frontier.crawl && !frontier.full,
      found(links, base, fromStart, routing) {
        if (fromStart) frontier.addOrigin(base);
        const hashRoutes = routing?.hashRoutes ?? false;
        if (routing?.movedByApp) frontier.alias(base, base, hashRoutes);
        for (const h of links) frontier.offer(h, base, false, hashRoutes);
        queue.wake();
      },
    };
    const runner = new PageRunner({
      pool: engine.pool,
      lock: engine.lock,
      pauser: engine.pauser,
      signal: ctx.signal,
      logger: ctx.logger,
      // The load may take options.timeout (then the page is measured as it is), the rest as long again.
      limitMs: 2 * timeoutMs,
      limitReason: `the page did not finish within ${(2 * timeoutMs) / 1000} s (twice options.timeout: its load, then its audits)`,
      // Cached; an OAuth2 token is refetched shortly before it expires (a failed fetch fails the scan).
      contextOptions: async () => ({ ...contextEmulation(o), extraHTTPHeaders: await credentials.headers(auth), proxy, reducedMotion: 'reduce' }),
    });

    const records: PageRecord[] = [];
    await queue.run(async (url) => {
      const t0 = performance.now();
      let rec = newPageRecord(url);
      const end = await runner.visit(url, (page, visit) => {
        rec = newPageRecord(url); // a retry after a crash starts over
        const env = { url, isStart: url === start, page, scan, warn: (m: string) => void rec.warnings.push(m) };
        return auditPage(env, visit, rec);
      });
      if (!end) return; // cancelled
      if (end.failure !== undefined) {
        await rec.salvage?.();
        failRemaining(rec, end.crashed ? `the browser crashed: ${end.failure}` : end.failure, performance.now() - t0);
      }
      records.push(rec);
      failed += rec.outcomes.filter((out) => out.failure !== undefined).length;
    });
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('scan cancelled');
    ctx.progress(100);
    records.sort((x, y) => frontier.order(x.url) - frontier.order(y.url));
    if (!records.some(loaded)) throw noPageLoaded(records);
    return { tasks: pageTasks(records, o), agent_count: 1, functional: summarize(records, scan) };
  } finally {
    await tokenClient?.close();
  }
}

/** Whether any audit judged the page (it loaded as an HTML page). */
const loaded = (rec: PageRecord) => rec.outcomes.some((o) => o.result !== undefined);

/** The failure of a scan none of whose pages could be loaded: each page's reason (the first few). */
function noPageLoaded(records: PageRecord[]): EngineFailure {
  const shown = records.slice(0, 3).map((r) => `${r.url}: ${r.outcomes.find((o) => o.failure !== undefined)?.failure ?? 'not loaded'}`);
  const more = records.length > shown.length ? ` and ${records.length - shown.length} more` : '';
  return new EngineFailure('NO_PAGE_LOADED', `No page could be loaded, so nothing was tested (${shown.join('; ')}${more}).`);
}

/**
 * Each page's tasks, in crawl order and registration order: "<audit title>: <page>", the page
 * being its path, or its origin and path when the scan's pages come from more than one origin.
 */
function pageTasks(records: PageRecord[], o: EngineContext['input']['options']): Task[] {
  const origins = new Set(records.map((r) => new URL(r.url).origin));
  const label = (url: string) => (origins.size > 1 ? new URL(url).origin : '') + pathOf(url);
  const inOrder = (rec: PageRecord) => [...rec.outcomes].sort((a, b) => AUDITS.indexOf(a.audit) - AUDITS.indexOf(b.audit));
  return records.flatMap((rec) =>
    inOrder(rec).map((out) => ({
      task_id: randomUUID(),
      kind: 'functional' as const,
      name: `${out.audit.title(o)}: ${label(rec.url)}`,
      status: out.failure !== undefined ? ('failed' as const) : ('passed' as const),
      duration_ms: Math.round(out.durationMs),
      ...(out.failure !== undefined ? { error: out.failure } : {}),
    })),
  );
}

/** The scan's outcome: each audit's summary over the pages it judged, and what was noted on pages. */
function summarize(records: PageRecord[], scan: ScanEnv): FunctionalOutcome {
  const parts = AUDITS.map((audit) => {
    const results = records.flatMap((r) => r.outcomes.filter((x) => x.audit === audit && x.result !== undefined).map((x) => x.result));
    return audit.summarize(results, scan);
  });
  const warnings = records.flatMap((r) => r.warnings.map((w) => `${r.url}: ${w}`));
  const outcome = Object.assign({}, ...parts, warnings.length ? { warnings } : {}) as FunctionalOutcome;
  const accessibility = records.flatMap((r) =>
    r.outcomes.filter((x) => x.audit === accessibilityAudit && x.result !== undefined).map((x) => x.result as AccessibilityResult),
  );
  return withAccessibilityBudgetLines(outcome, accessibility);
}
