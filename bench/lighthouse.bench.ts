import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import pino from 'pino';
import type { ScanInput } from '../src/domain/scan.js';
import type { EngineContext } from '../src/engines/engine.js';
import { createFunctionalEngine, type FunctionalEngine } from '../src/engines/functional/index.js';
import { normalizeScanRequest } from '../src/http/scan-request.js';
import type { ScanRequest } from '../src/http/schemas/scan-request.js';
import { startA11yFixtures } from '../test/fixtures/a11y-server/server.js';
import { startSite } from '../test/fixtures/site/server.js';
import { startSpaSite } from '../test/fixtures/spa-site/server.js';
import { startVisualSite } from '../test/fixtures/visual-site/server.js';
import { MemoryArtifacts, MemoryBaselines } from '../test/helpers/functional-engine.js';
import { cell, METRICS, Tally } from './lib/agreement.js';
import { startCpuHogs } from './lib/cpu-hogs.js';
import { LighthouseRunner, type Figures, type Settings } from './lib/lighthouse-run.js';
import { startRealPages } from './lib/static-server.js';

/**
 * Vigil's functional engine next to Lighthouse (the npm package, same system Chromium), issue 15:
 *
 *  1. Agreement: for each settings row (throttling x device preset), every page measured by
 *     Lighthouse (performance category; accessibility category in its own run for the score) and
 *     by Vigil at its DEFAULT concurrency (options.concurrency 5, capped for the machine), all
 *     pages in one scan; per page and metric "Lighthouse/Vigil ok|NO" (ok: within 10% or 100 ms,
 *     CLS 10% or 0.01, scores within 5 points) and "N of M metrics agree".
 *  2. The same with the machine loaded (one busy thread per core started by the bench): Lighthouse,
 *     Vigil at default concurrency and Vigil one page at a time, side by side.
 *  3. Speed, one page at a time: Vigil's metrics + axe + screenshot from one load (a one-page scan
 *     on a warm browser) vs Lighthouse's performance category alone, sequential; the ratio per page
 *     and overall (target >= 8x), with the engine's own task timings.
 *
 * Environment: BENCH_LH_ROWS picks rows by name (comma list, e.g. "none-desktop,simulate-mobile");
 * BENCH_LH_ROUNDS repeats every measurement and compares medians (default 1);
 * BENCH_LH_PAGES picks pages by name (default DEFAULT_PAGES; "all": the ten); BENCH_LH_LOADED names
 * the rows measured again on the loaded machine (default none-desktop; 0: none). Progress lines go
 * to stderr.
 */

const VIEWPORT = { width: 1280, height: 800 };

interface Row extends Settings {
  name: string;
}

/** Every row; those whose throttling the engine does not know yet are reported as skipped. */
const ROWS: Row[] = [
  { name: 'none-desktop', throttling: 'none', device: 'desktop', viewport: VIEWPORT },
  { name: 'simulate-desktop', throttling: 'simulate', device: 'desktop', viewport: VIEWPORT },
  { name: 'simulate-mobile', throttling: 'simulate', device: 'mobile', viewport: VIEWPORT },
  { name: 'devtools-desktop', throttling: 'devtools', device: 'desktop', viewport: VIEWPORT },
  { name: 'devtools-mobile', throttling: 'devtools', device: 'mobile', viewport: VIEWPORT },
];

const DEFAULT_PAGES = ['site/long-tasks', 'spa/shop', 'a11y-large', 'visual/article', 'sb-admin-2', 'clean-blog'];

interface BenchPage {
  name: string;
  url: string;
}

async function startPages(): Promise<{ pages: BenchPage[]; close(): Promise<void> }> {
  const site = await startSite();
  const spa = await startSpaSite();
  const a11y = await startA11yFixtures(500);
  const visual = await startVisualSite();
  const real = await startRealPages();
  const pages: BenchPage[] = [
    { name: 'site/clean', url: `${site.url}/clean` },
    { name: 'site/slow', url: `${site.url}/slow` },
    { name: 'site/long-tasks', url: `${site.url}/long-tasks` },
    { name: 'spa/shop', url: `${spa.url}/shop` },
    { name: 'a11y-large', url: `${a11y.url}/a11y-large/` },
    { name: 'visual/article', url: `${visual.url}/article` },
    { name: 'visual/tall', url: `${visual.url}/tall` },
    { name: 'sb-admin-2', url: `${real.url}/sb-admin-2/index.html` },
    { name: 'clean-blog', url: `${real.url}/clean-blog/index.html` },
    { name: 'clean-blog/post', url: `${real.url}/clean-blog/post.html` },
  ];
  // Default: one or two pages of each fixture and both templates (BENCH_LH_PAGES=all: every page).
  const only = (process.env.BENCH_LH_PAGES ?? DEFAULT_PAGES.join(',')).split(',').filter(Boolean);
  return {
    pages: only.includes('all') ? pages : pages.filter((p) => only.includes(p.name)),
    async close() {
      site.server.close();
      spa.server.close();
      await Promise.all([a11y.close(), visual.close(), real.close()]);
    },
  };
}

/** A scan as the API would hand it over (every default filled in by normalizeScanRequest). */
function scanInput(urls: string[], s: Settings, concurrency?: number): ScanInput {
  const options: Record<string, unknown> = { pages: urls, max_pages: urls.length, viewport: s.viewport, device: s.device, throttling: s.throttling };
  if (concurrency !== undefined) options.concurrency = concurrency;
  return normalizeScanRequest({ url: urls[0], mode: 'functional', options } as unknown as ScanRequest, { specMaxBytes: 1 << 20, specMaxOperations: 1000 });
}

class Vigil {
  private readonly artifacts = new MemoryArtifacts();
  private readonly baselines = new MemoryBaselines();
  constructor(readonly engine: FunctionalEngine) {}

  context(input: ScanInput): EngineContext {
    return {
      scanId: 'bench',
      tenantId: 't1',
      signal: new AbortController().signal,
      progress: () => undefined,
      deployment: 'self-hosted',
      artifacts: this.artifacts,
      baselines: this.baselines,
      logger: pino({ level: 'silent' }),
      input,
    };
  }

  /** One scan of `urls`; each page's figures and task durations, and the scan's wall time. */
  async scan(
    urls: string[],
    s: Settings,
    concurrency?: number,
  ): Promise<{
    ms: number;
    figures: Map<string, Figures>;
    tasks: Map<string, Record<string, number>>;
    visual: Map<string, string>;
    warnings: string[];
    throttling: Set<string>;
  }> {
    const input = scanInput(urls, s, concurrency);
    const t0 = performance.now();
    const out = await this.engine.run(this.context(input));
    const ms = performance.now() - t0;
    const f = out.functional!;
    const figures = new Map<string, Figures>();
    // How the engine says it measured (absent: an engine without options.throttling, unthrottled).
    const throttling = new Set(f.performance.pages.map((p) => (p as { throttling?: string }).throttling ?? 'absent'));
    for (const url of urls) {
      const p = f.performance.pages.find((x) => x.page_url === url);
      const a = f.accessibility.pages.find((x) => x.page_url === url);
      figures.set(url, {
        fcp: p?.fcp_ms ?? null,
        lcp: p?.lcp_ms ?? null,
        tbt: p?.tbt_ms ?? null,
        cls: p?.cls ?? null,
        si: p?.si_ms ?? null,
        perf: p?.performance_score ?? null,
        a11y: a?.compliance_score ?? null,
      });
    }
    // Task names: "<Audit>: <page>" (origin + path when the pages come from several origins).
    const tasks = new Map<string, Record<string, number>>();
    for (const url of urls) {
      const u = new URL(url);
      const suffix = urls.some((x) => new URL(x).origin !== u.origin) ? u.origin + u.pathname : u.pathname;
      const mine: Record<string, number> = {};
      for (const t of out.tasks) {
        const at = t.name.lastIndexOf(': ');
        if (t.name.slice(at + 2) === suffix || t.name.slice(at + 2) === suffix + u.search) mine[t.name.slice(0, at)] = t.duration_ms ?? 0;
      }
      tasks.set(url, mine);
    }
    // The visual outcome, which decides how many screenshots the page took (a diff is watched longer).
    const visual = new Map<string, string>();
    for (const v of f.visual) {
      const x = v as unknown as { page_url: string; baseline_created?: boolean; diff_detected?: boolean; unstable?: boolean; diff_percent?: number };
      visual.set(x.page_url, x.unstable ? 'unstable' : x.baseline_created ? 'new baseline' : x.diff_detected ? `diff ${x.diff_percent}%` : 'same');
    }
    return { ms, figures, tasks, visual, warnings: f.warnings ?? [], throttling };
  }
}

const col = (s: string, n: number) => s.padEnd(n);
const progress = (line: string) => process.stderr.write(`  .. ${line}\n`);

function printAgreement(title: string, pages: BenchPage[], lh: Map<string, Figures>, vigil: Map<string, Figures>, legend = 'Lighthouse/Vigil'): Tally {
  const tally = new Tally();
  console.log(`\n${title}`);
  console.log(`  ${col('page', 16)}${METRICS.map((m) => m.label.padStart(17)).join('')}   (cells: ${legend})`);
  for (const p of pages) {
    const a = lh.get(p.url);
    const b = vigil.get(p.url);
    console.log(`  ${col(p.name, 16)}${METRICS.map((m) => cell(m.key, a?.[m.key] ?? null, b?.[m.key] ?? null, tally)).join('')}`);
  }
  console.log(`  ${tally.line}`);
  return tally;
}

interface RowResult {
  row: Row;
  tally: Tally;
  speed: Array<{ page: string; lhMs: number; vigilMs: number; tasks: Record<string, number>; visual: string }>;
}

/** Per metric, the median of the rounds' figures (nulls left out). */
function medianFigures(list: Figures[]): Figures {
  const out = {} as Figures;
  for (const { key } of METRICS) {
    const xs = list.map((f) => f[key]).filter((x): x is number => x !== null);
    out[key] = xs.length ? median(xs) : null;
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** BENCH_LH_ROUNDS: each measurement repeated, medians compared (default 1). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_LH_ROUNDS ?? 1) || 1);

/** Adds `figures` of each page to `into` (url -> rounds). */
function collect(into: Map<string, Figures[]>, url: string, figures: Figures | undefined): void {
  if (figures) into.set(url, [...(into.get(url) ?? []), figures]);
}

const medians = (m: Map<string, Figures[]>) => new Map([...m].map(([url, list]) => [url, medianFigures(list)]));

/** Agreement (default concurrency) and speed (one page at a time) for one settings row, machine as it is. */
async function runRow(row: Row, pages: BenchPage[], lh: LighthouseRunner, vigil: Vigil, a11yCache: Map<string, number | null>): Promise<RowResult> {
  const urls = pages.map((p) => p.url);
  const lhRounds = new Map<string, Figures[]>();
  const defRounds = new Map<string, Figures[]>();
  const times = new Map<string, { lh: number[]; vigil: number[]; tasks: Record<string, number>; visual: string }>();
  const throttling = new Set<string>();
  const warnings = new Set<string>();
  let defMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Vigil at default concurrency first (the first round also sets the visual baselines the later scans compare with).
    const def = await vigil.scan(urls, row);
    defMs += def.ms;
    for (const url of urls) collect(defRounds, url, def.figures.get(url));
    def.throttling.forEach((t) => throttling.add(t));
    def.warnings.forEach((w) => warnings.add(w));
    progress(`${row.name}: Vigil at default concurrency, ${pages.length} pages in ${(def.ms / 1000).toFixed(1)} s`);
    for (const p of pages) {
      const perf = await lh.run(p.url, row, ['performance']);
      if (perf.warnings.length) console.log(`  (Lighthouse on ${p.name}: ${perf.warnings.join('; ').slice(0, 200)})`);
      // The accessibility score does not depend on throttling: one Lighthouse run per page and device.
      const key = `${row.device} ${p.url}`;
      if (!a11yCache.has(key)) a11yCache.set(key, (await lh.run(p.url, row, ['accessibility'])).figures.a11y);
      collect(lhRounds, p.url, { ...perf.figures, a11y: a11yCache.get(key)! });
      const one = await vigil.scan([p.url], row, 1);
      const t = times.get(p.url) ?? { lh: [], vigil: [], tasks: {}, visual: '-' };
      t.lh.push(perf.ms);
      t.vigil.push(one.ms);
      t.tasks = one.tasks.get(p.url) ?? {};
      t.visual = one.visual.get(p.url) ?? '-';
      times.set(p.url, t);
      progress(`${row.name} ${p.name}: Lighthouse ${(perf.ms / 1000).toFixed(1)} s, Vigil one page ${(one.ms / 1000).toFixed(1)} s`);
    }
  }
  if (![...throttling].every((t) => t === row.throttling)) console.log(`  (Vigil reported throttling ${[...throttling].join(', ')} for this row)`);
  if (warnings.size) console.log(`  (Vigil warnings: ${[...warnings].join('; ').slice(0, 300)})`);
  const tally = printAgreement(
    `agreement, ${row.name} (throttling ${row.throttling}, ${row.device} preset, ${row.device === 'desktop' ? `${row.viewport.width}x${row.viewport.height}` : "Lighthouse's mobile screen"}), Vigil at default concurrency (${pages.length} pages in one scan, ${(defMs / ROUNDS / 1000).toFixed(1)} s)${ROUNDS > 1 ? `, medians of ${ROUNDS} rounds` : ''}:`,
    pages,
    medians(lhRounds),
    medians(defRounds),
  );
  const speed = pages.map((p) => {
    const t = times.get(p.url)!;
    return { page: p.name, lhMs: median(t.lh), vigilMs: median(t.vigil), tasks: t.tasks, visual: t.visual };
  });
  return { row, tally, speed };
}

function printSpeed(r: RowResult): void {
  console.log(`\nspeed, ${r.row.name}, one page at a time, warm browsers: Vigil metrics + axe + screenshot (one load) vs Lighthouse performance only`);
  console.log(`  ${col('page', 16)}${'Lighthouse'.padStart(11)}${'Vigil'.padStart(9)}${'ratio'.padStart(8)}   Vigil's tasks (engine timings)`);
  let lhSum = 0;
  let vSum = 0;
  for (const s of r.speed) {
    lhSum += s.lhMs;
    vSum += s.vigilMs;
    const tasks = Object.entries(s.tasks)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const rest = s.vigilMs - Object.values(s.tasks).reduce((a, b) => a + b, 0);
    console.log(
      `  ${col(s.page, 16)}${`${s.lhMs.toFixed(0)} ms`.padStart(11)}${`${s.vigilMs.toFixed(0)} ms`.padStart(9)}${`${(s.lhMs / s.vigilMs).toFixed(1)}x`.padStart(8)}   ${tasks}, rest ${rest.toFixed(0)}; visual: ${s.visual}`,
    );
  }
  const ratios = r.speed.map((s) => s.lhMs / s.vigilMs).sort((a, b) => a - b);
  console.log(
    `  total ${(lhSum / 1000).toFixed(1)} s vs ${(vSum / 1000).toFixed(1)} s: Vigil is ${(lhSum / vSum).toFixed(1)}x faster (target >= 8x); per-page ratios ${ratios[0].toFixed(1)}x to ${ratios[ratios.length - 1].toFixed(1)}x`,
  );
}

/** Item 2: the same pages, machine loaded: Lighthouse, Vigil default concurrency, Vigil one page at a time. */
async function runLoaded(row: Row, pages: BenchPage[], lh: LighthouseRunner, vigil: Vigil, a11yCache: Map<string, number | null>): Promise<void> {
  const urls = pages.map((p) => p.url);
  const hogs = startCpuHogs();
  try {
    await new Promise((r) => setTimeout(r, 500));
    const lhRounds = new Map<string, Figures[]>();
    const defRounds = new Map<string, Figures[]>();
    const oneRounds = new Map<string, Figures[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // Lighthouse's accessibility score from the quiet run (it does not depend on the load).
      for (const p of pages)
        collect(lhRounds, p.url, { ...(await lh.run(p.url, row, ['performance'])).figures, a11y: a11yCache.get(`${row.device} ${p.url}`) ?? null });
      progress('loaded: Lighthouse done');
      const def = await vigil.scan(urls, row);
      for (const url of urls) collect(defRounds, url, def.figures.get(url));
      progress(`loaded: Vigil at default concurrency, ${(def.ms / 1000).toFixed(1)} s`);
      for (const p of pages) collect(oneRounds, p.url, (await vigil.scan([p.url], row, 1)).figures.get(p.url));
      progress('loaded: Vigil one page at a time done');
    }
    const lhFigures = medians(lhRounds);
    const one = medians(oneRounds);
    const def = { figures: medians(defRounds) };
    const title = `machine loaded (${hogs.count} busy threads on ${cpus().length} cores, load average ${(await loadavg()).toFixed(1)}), ${row.name}${ROUNDS > 1 ? `, medians of ${ROUNDS} rounds` : ''}`;
    const t1 = printAgreement(`${title}: Lighthouse vs Vigil at default concurrency`, pages, lhFigures, def.figures);
    const t2 = printAgreement(`${title}: Lighthouse vs Vigil one page at a time`, pages, lhFigures, one);
    const t3 = printAgreement(
      `${title}: Vigil one page at a time vs Vigil at default concurrency`,
      pages,
      one,
      def.figures,
      'Vigil concurrency 1/Vigil default',
    );
    console.log(
      `\n  loaded summary: default concurrency vs Lighthouse ${t1.line}; one page at a time vs Lighthouse ${t2.line}; default vs one at a time ${t3.line}`,
    );
  } finally {
    await hogs.stop();
  }
}

async function loadavg(): Promise<number> {
  const { loadavg: la } = await import('node:os');
  return la()[0];
}

function selected(row: Row): boolean {
  const only = process.env.BENCH_LH_ROWS?.split(',').filter(Boolean);
  return !only || only.includes(row.name);
}

export async function run(): Promise<void> {
  const { pages, close } = await startPages();
  const engine = createFunctionalEngine();
  const vigil = new Vigil(engine);
  const lh = await LighthouseRunner.start();
  const a11yCache = new Map<string, number | null>();
  const results: RowResult[] = [];
  try {
    console.log(
      `${pages.length} pages: ${pages.map((p) => p.name).join(', ')}; ${cpus().length} cores, load average ${(await loadavg()).toFixed(1)} at the start`,
    );
    // Warm-up: both browsers started, code compiled.
    await vigil.scan([pages[0].url], ROWS[0], 1);
    await lh.run(pages[0].url, ROWS[0], ['performance']);
    for (const row of ROWS.filter(selected)) {
      if (row.throttling !== 'none') {
        // An engine without options.throttling ignores it (and reports none): such rows are skipped.
        // (A page on which simulate fell back to devtools is reported as such in its row.)
        const probe = await vigil.scan([pages[0].url], row, 1);
        if (probe.throttling.has('absent')) {
          console.log(`\n${row.name}: skipped (the engine measured with throttling "${[...probe.throttling].join(', ')}", not "${row.throttling}")`);
          continue;
        }
      }
      results.push(await runRow(row, pages, lh, vigil, a11yCache));
    }
    for (const r of results) printSpeed(r);
    if (results.length) console.log('\nagreement summary (machine as it was):');
    let agree = 0;
    let total = 0;
    for (const r of results) {
      agree += r.tally.agree;
      total += r.tally.total;
      console.log(`  ${col(r.row.name, 18)}${r.tally.line}`);
    }
    if (results.length) console.log(`  ${col('all rows', 18)}${agree} of ${total} metrics agree`);
    // The loaded tables: none-desktop by default (BENCH_LH_LOADED names other rows, comma list; 0: none).
    const loadedRows = (process.env.BENCH_LH_LOADED ?? 'none-desktop').split(',').filter((n) => n && n !== '0');
    for (const row of ROWS.filter((r) => loadedRows.includes(r.name))) {
      // Lighthouse's accessibility scores come from the quiet rows; fill them in for a row not run quiet.
      for (const p of pages) {
        const key = `${row.device} ${p.url}`;
        if (!a11yCache.has(key)) a11yCache.set(key, (await lh.run(p.url, row, ['accessibility'])).figures.a11y);
      }
      await runLoaded(row, pages, lh, vigil, a11yCache);
    }
  } finally {
    await lh.close();
    await engine.close();
    await close();
  }
}
