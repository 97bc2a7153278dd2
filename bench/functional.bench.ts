import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { AxeBuilder } from '@axe-core/playwright';
import { launch as launchChrome } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { chromium } from 'playwright-core';
import type { EngineContext } from '../src/engines/engine.js';
import type { PerformancePage } from '../src/domain/scan.js';
import { LAUNCH_ARGS, resolveChromium } from '../src/engines/functional/browser.js';
import { createFunctionalEngine } from '../src/engines/functional/index.js';
import { startSite } from '../test/fixtures/site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../test/helpers/functional-engine.js';

/**
 * Functional engine benchmark, all in one run on the fixture site's pages:
 *  1. Vigil's per-page time for metrics + axe + screenshot (one load per page), next to
 *     Lighthouse (npm package, desktop preset, performance only, throttlingMethod "provided",
 *     the same system Chromium via chrome-launcher) and next to Lighthouse + axe + a screenshot
 *     run one after another (target: Vigil at least 5x faster than Lighthouse alone);
 *  2. each metric's difference from Lighthouse's observed value (target within 20% or 50 ms);
 *  3. peak memory (this process + its Chromium processes) with 4 pages in parallel;
 * The image diff's speed is measured in bench/image-diff.bench.ts.
 * No browser is ever downloaded: every launch uses resolveChromium() (CHROMIUM_PATH or
 * /usr/bin/chromium).
 */

const PAGES = ['/clean', '/violations', '/slow', '/long-tasks', '/stable', '/changing'];
const ROUNDS = 3;

/** One scan of the fixture site; baselines carry over between the scans sharing `baselines`. */
function ctxFor(url: string, pages: string[], concurrency: number, artifacts: MemoryArtifacts, baselines: MemoryBaselines): EngineContext {
  return functionalContext({ url, options: { pages, concurrency, max_pages: 20 } }, { scanId: 'bench', artifacts, baselines });
}

/** RSS of this process plus every descendant process (Chromium), in bytes. */
function treeRss(): number {
  const kids = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(d);
      const ppid = Number(f[1]);
      rss.set(pid, Number(f[21]) * 4096);
      kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
    } catch {
      /* gone */
    }
  }
  let total = 0;
  const todo = [process.pid];
  while (todo.length) {
    const p = todo.pop()!;
    total += rss.get(p) ?? 0;
    todo.push(...(kids.get(p) ?? []));
  }
  return total;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const pad = (s: string | number, n: number) => String(s).padStart(n);

type LhMetrics = Record<'fcp_ms' | 'lcp_ms' | 'cls' | 'ttfb_ms' | 'tbt_ms' | 'si_ms' | 'tti_ms' | 'fid_ms', number>;
const LH_AUDITS: Record<keyof LhMetrics, string> = {
  fcp_ms: 'first-contentful-paint',
  lcp_ms: 'largest-contentful-paint',
  cls: 'cumulative-layout-shift',
  ttfb_ms: 'server-response-time',
  tbt_ms: 'total-blocking-time',
  si_ms: 'speed-index',
  tti_ms: 'interactive',
  fid_ms: 'max-potential-fid',
};

async function compareWithLighthouse(): Promise<void> {
  const site = await startSite();
  const chromePath = resolveChromium();
  const urls = PAGES.map((p) => site.url + p);
  try {
    // --- Vigil: one scan per round over all pages, one page at a time, browser already warm.
    const engine = createFunctionalEngine({ maxParallelPages: 1 });
    const artifacts = new MemoryArtifacts();
    const baselines = new MemoryBaselines();
    await engine.run(ctxFor(site.url, ['/clean'], 1, artifacts, baselines)); // launch + warm-up
    const vigilMs: number[] = [];
    const vigilMetrics = new Map<string, PerformancePage[]>();
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      const out = await engine.run(ctxFor(site.url, PAGES, 1, artifacts, baselines));
      vigilMs.push((performance.now() - t0) / PAGES.length);
      for (const p of out.functional!.performance.pages) vigilMetrics.set(p.page_url, [...(vigilMetrics.get(p.page_url) ?? []), p]);
    }

    // --- Peak memory with 4 pages in parallel.
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, treeRss())), 50);
    const before = treeRss();
    const t4 = performance.now();
    await engine.run(ctxFor(site.url, ['/clean', '/violations', '/slow', '/stable'], 4, artifacts, baselines));
    const par4 = performance.now() - t4;
    clearInterval(sampler);
    peak = Math.max(peak, treeRss());
    await engine.close();

    // --- Lighthouse alone (desktop preset, performance only, provided throttling), warm Chrome.
    const chrome = await launchChrome({ chromePath, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const lhFlags = { port: chrome.port, output: 'json' as const, logLevel: 'error' as const, onlyCategories: ['performance'] };
    const lhConfig = { ...desktopConfig, settings: { ...desktopConfig.settings, throttlingMethod: 'provided' as const, onlyCategories: ['performance'] } };
    const lhMs: number[] = [];
    const lhMetrics = new Map<string, LhMetrics[]>();
    await lighthouse(urls[0], lhFlags, lhConfig); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      let sum = 0;
      for (const url of urls) {
        const t0 = performance.now();
        const res = await lighthouse(url, lhFlags, lhConfig);
        sum += performance.now() - t0;
        const audits = res!.lhr.audits;
        const m = {} as LhMetrics;
        for (const [k, id] of Object.entries(LH_AUDITS) as Array<[keyof LhMetrics, string]>) m[k] = audits[id]?.numericValue ?? NaN;
        lhMetrics.set(url, [...(lhMetrics.get(url) ?? []), m]);
      }
      lhMs.push(sum / urls.length);
    }
    await chrome.kill();

    // --- axe + a full-page screenshot on their own load (what a Lighthouse user adds).
    const browser = await chromium.launch({ executablePath: chromePath, headless: true, args: LAUNCH_ARGS });
    const extraMs: number[] = [];
    try {
      for (let r = 0; r < ROUNDS; r++) {
        let sum = 0;
        for (const url of urls) {
          const t0 = performance.now();
          const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
          const page = await context.newPage();
          await page.goto(url, { waitUntil: 'load' });
          await new AxeBuilder({ page: page as never }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
          await page.screenshot({ fullPage: true, animations: 'disabled' });
          await context.close();
          sum += performance.now() - t0;
        }
        extraMs.push(sum / urls.length);
      }
    } finally {
      await browser.close();
    }

    const v = median(vigilMs);
    const lh = median(lhMs);
    const lhAll = lh + median(extraMs);
    console.log(`per page, median of ${ROUNDS} rounds over ${PAGES.length} fixture pages (${PAGES.join(' ')}), one page at a time, browsers warm:`);
    console.log(`  Vigil metrics + axe + screenshot (one load)      ${pad(v.toFixed(0), 6)} ms`);
    console.log(`  Lighthouse desktop, performance only             ${pad(lh.toFixed(0), 6)} ms   Vigil is ${(lh / v).toFixed(1)}x faster (target >= 5x)`);
    console.log(`  Lighthouse + axe + screenshot, one after another ${pad(lhAll.toFixed(0), 6)} ms   Vigil is ${(lhAll / v).toFixed(1)}x faster`);

    // --- Metric agreement (medians per page).
    const keys = Object.keys(LH_AUDITS) as Array<keyof LhMetrics>;
    console.log(`\nmetrics, Vigil vs Lighthouse observed (throttlingMethod: provided), median per page; ok = within 20% or 50 ms (CLS: 20% or 0.02)`);
    console.log(`  ${'page'.padEnd(12)}${keys.map((k) => pad(k.replace('_ms', ''), 20)).join('')}`);
    let within = 0;
    let total = 0;
    for (const url of urls) {
      const vs = vigilMetrics.get(url) ?? [];
      const ls = lhMetrics.get(url) ?? [];
      const cells = keys.map((k) => {
        const a = median(vs.map((x) => x[k]));
        const b = median(ls.map((x) => x[k]));
        if (!Number.isFinite(a) || !Number.isFinite(b)) return pad('n/a', 20);
        const tol = Math.max(Math.abs(b) * 0.2, k === 'cls' ? 0.02 : 50);
        const ok = Math.abs(a - b) <= tol;
        total++;
        if (ok) within++;
        const f = (x: number) => (k === 'cls' ? x.toFixed(3) : x.toFixed(0));
        return pad(`${f(a)}/${f(b)} ${ok ? 'ok' : 'OFF'}`, 20);
      });
      console.log(`  ${new URL(url).pathname.padEnd(12)}${cells.join('')}`);
    }
    console.log(`  (cells: Vigil/Lighthouse) ${within}/${total} within tolerance`);

    console.log(
      `\npeak memory, 4 pages in parallel (this process + Chromium): ${(peak / 2 ** 20).toFixed(0)} MiB (before the scan ${(before / 2 ** 20).toFixed(0)} MiB; scan took ${par4.toFixed(0)} ms)`,
    );
  } finally {
    site.server.close();
  }
}

export async function run(): Promise<void> {
  await compareWithLighthouse();
}
