import { cpus, loadavg } from 'node:os';
import type { VisualPage } from '../src/domain/scan.js';
import { createFunctionalEngine } from '../src/engines/functional/index.js';
import { type AxeFigures, axeDifference, vigilFigures } from './corpus/axe-direct.js';
import { startBaselines, startCorpusProcess } from './corpus/children.js';
import { type CorpusPage, loadManifest, pagePath } from './corpus/manifest.js';
import { EDITS } from './corpus/server.js';
import { VigilRunner } from './corpus/vigil.js';
import { cell, METRICS, Tally } from './lib/agreement.js';
import type { Figures, Settings } from './lib/lighthouse-run.js';
import { median } from './lib/procs.js';

/**
 * The functional engine on the corpus of real pages (bench/corpus/pages.json, issue 27): pages
 * nobody here wrote, extracted from public repositories' mirrors and served from loopback by a
 * server in its own process; Lighthouse, axe-core and the screenshot tool in another process.
 * Vigil runs in this process as its engine, at its DEFAULT configuration (throttling simulate,
 * desktop preset, 1280x800, concurrency 5 capped for the machine), and one page at a time
 * (concurrency 1, one-page scans). Each round:
 *  - Vigil, all pages in one scan at default concurrency (the first round records the visual baselines);
 *  - per page: Vigil one page at a time; Lighthouse performance (simulate, desktop preset, 1280x800);
 *    axe-core run directly on its own load; a full-page screenshot on its own load;
 *  - Lighthouse's accessibility score once per page (first round).
 * Then each prepared edit (text, colour, layout: bench/corpus/edit.js) in one default scan.
 * Printed: agreement with Lighthouse (medians of the rounds; each metric within 10% or 100 ms, CLS
 * 10% or 0.01, scores within 5), accessibility identical to axe (rule ids, impacts, element counts,
 * violations and needs-review), false diffs on unchanged re-scans, detected edits, and speed
 * (Vigil's whole visit vs Lighthouse + axe + screenshot one after another; medians), with the load.
 *
 * Environment: BENCH_CORPUS_ROUNDS (default 3), BENCH_CORPUS_PAGES (comma list of page names, or
 * "subset"; default all), BENCH_CORPUS_EDITS (0: skip the edits). Progress lines go to stderr.
 */

const SETTINGS: Settings = { throttling: 'simulate', device: 'desktop', viewport: { width: 1280, height: 800 } };
const ROUNDS = Math.max(1, Number(process.env.BENCH_CORPUS_ROUNDS ?? 3) || 3);
const progress = (line: string) => process.stderr.write(`  .. ${new Date().toISOString().slice(11, 19)} ${line}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const col = (s: string, n: number) => s.padEnd(n);
const num = (n: number, w: number, unit = '') => `${n.toFixed(0)}${unit}`.padStart(w);

interface PageRecord {
  page: CorpusPage;
  url: string;
  lh: Figures[];
  def: Figures[];
  one: Figures[];
  lhMs: number[];
  axeMs: number[];
  shotMs: number[];
  shotHeight: number;
  oneMs: number[];
  oneTasks: Record<string, number>;
  /** Accessibility comparisons: "default r1", "one r1"... -> difference ('' when identical). */
  a11y: Array<{ label: string; diff: string }>;
  axe?: AxeFigures;
  /** Visual verdicts of the unchanged re-scans. */
  rescans: Array<{ label: string; verdict: string }>;
}

function medianFigures(list: Figures[]): Figures {
  const out = {} as Figures;
  for (const { key } of METRICS) {
    const xs = list.map((f) => f[key]).filter((x): x is number => x !== null);
    out[key] = xs.length ? median(xs) : null;
  }
  return out;
}

function verdict(v: VisualPage | undefined): string {
  if (!v) return 'no result';
  if (v.baseline_created) return 'baseline';
  if (v.unstable) return 'unstable';
  return v.diff_detected ? `diff ${v.diff_percent}%${v.text_changes?.length ? ` (${v.text_changes.length} text)` : ''}` : 'same';
}

function selectPages(all: CorpusPage[]): CorpusPage[] {
  const only = (process.env.BENCH_CORPUS_PAGES ?? '').split(',').filter(Boolean);
  if (only.includes('subset')) return all.filter((p) => p.subset);
  return only.length ? all.filter((p) => only.includes(p.name)) : all;
}

export async function run(): Promise<void> {
  const manifest = loadManifest();
  const pages = selectPages(manifest.pages);
  const server = await startCorpusProcess();
  const baselines = await startBaselines();
  const engine = createFunctionalEngine();
  const vigil = new VigilRunner(engine);
  const startLoad = load();
  const records: PageRecord[] = pages.map((page) => ({
    page,
    url: server.url + pagePath(page),
    lh: [],
    def: [],
    one: [],
    lhMs: [],
    axeMs: [],
    shotMs: [],
    shotHeight: 0,
    oneMs: [],
    oneTasks: {},
    a11y: [],
    rescans: [],
  }));
  const urls = records.map((r) => r.url);
  const sources = new Set(pages.map((p) => manifest.sources.find((s) => s.id === p.source)!.repo));
  const defMs: number[] = [];
  const loads: string[] = [];
  const lhA11y = new Map<string, number | null>();
  const notes = new Set<string>();
  try {
    console.log(
      `${pages.length} pages from ${sources.size} repositories (${[...sources].join(', ')}); ${cpus().length} cores, load average ${startLoad} at the start; ${ROUNDS} round(s)`,
    );
    // Warm-up: both browsers started, code compiled (its results are not counted; a page of its own key).
    await vigil.scan([`${server.url}/todomvc-es5/`], { concurrency: 1 });
    await baselines.request({ op: 'lighthouse', url: `${server.url}/todomvc-es5/`, settings: SETTINGS, categories: ['performance'] });
    for (let round = 0; round < ROUNDS; round++) {
      loads.push(load());
      const def = await vigil.scan(urls);
      defMs.push(def.ms);
      def.failedTasks.forEach((t) => notes.add(`Vigil task failed: ${t}`));
      def.warnings.forEach((w) => notes.add(`Vigil warning: ${w}`));
      progress(`round ${round + 1}: Vigil at default concurrency, ${pages.length} pages in ${(def.ms / 1000).toFixed(1)} s (load ${load()})`);
      for (const r of records) {
        r.def.push(def.figures.get(r.url)!);
        if (round > 0) r.rescans.push({ label: `default r${round + 1}`, verdict: verdict(def.visual.get(r.url)) });
        const one = await vigil.scan([r.url], { concurrency: 1 });
        r.one.push(one.figures.get(r.url)!);
        r.oneMs.push(one.ms);
        r.oneTasks = one.tasks.get(r.url) ?? {};
        r.rescans.push({ label: `one r${round + 1}`, verdict: verdict(one.visual.get(r.url)) });
        one.failedTasks.forEach((t) => notes.add(`Vigil task failed (one page): ${t}`));
        const lh = await baselines.request<{ figures: Figures; ms: number; warnings: string[] }>({
          op: 'lighthouse',
          url: r.url,
          settings: SETTINGS,
          categories: ['performance'],
        });
        lh.warnings.forEach((w) => notes.add(`Lighthouse on ${r.page.name}: ${w.slice(0, 160)}`));
        if (!lhA11y.has(r.url))
          lhA11y.set(
            r.url,
            (await baselines.request<{ figures: Figures }>({ op: 'lighthouse', url: r.url, settings: SETTINGS, categories: ['accessibility'] })).figures.a11y,
          );
        r.lh.push({ ...lh.figures, a11y: lhA11y.get(r.url) ?? null });
        r.lhMs.push(lh.ms);
        const axe = await baselines.request<{ axe: AxeFigures; ms: number }>({ op: 'axe', url: r.url });
        r.axe = axe.axe;
        r.axeMs.push(axe.ms);
        const shot = await baselines.request<{ ms: number; height: number }>({ op: 'screenshot', url: r.url });
        r.shotMs.push(shot.ms);
        r.shotHeight = shot.height;
        r.a11y.push({ label: `default r${round + 1}`, diff: axeDifference(axe.axe, vigilFigures(def.accessibility, r.url)) });
        r.a11y.push({ label: `one r${round + 1}`, diff: axeDifference(axe.axe, vigilFigures(one.accessibility, r.url)) });
        progress(
          `round ${round + 1} ${r.page.name}: Vigil one page ${(one.ms / 1000).toFixed(1)} s, Lighthouse ${(lh.ms / 1000).toFixed(1)} s, axe ${(axe.ms / 1000).toFixed(1)} s, screenshot ${(shot.ms / 1000).toFixed(1)} s`,
        );
      }
    }
    // The measured tables first (a long edit phase must not hold them back), then the edits.
    print(records, { defMs, loads, startLoad, endLoad: load(), external: await server.externalRequests(), notes });
    if (process.env.BENCH_CORPUS_EDITS !== '0') {
      console.log('\nprepared edits (bench/corpus/edit.js: first visible heading reworded / recoloured / pushed 48 px down), one default scan each:');
      for (const kind of EDITS) {
        await server.setEdit(kind);
        const scan = await vigil.scan(urls);
        await server.setEdit(null);
        let detected = 0;
        let named = 0;
        for (const r of records) {
          const v = scan.visual.get(r.url);
          if (v?.diff_detected) detected++;
          // What the edit is reported as: the text changed (text), or the elements that moved (layout).
          const said = kind === 'layout' ? (v?.layout_moves ?? []).map((m) => m.description) : (v?.text_changes ?? []).map((t) => t.description);
          if (v?.diff_detected && said.length > 0) named++;
          const words = said.join('; ');
          console.log(
            `  ${col(r.page.name, 20)}${kind}: ${v?.diff_detected ? 'DETECTED' : 'missed'} (${verdict(v)}${words ? `: ${words.slice(0, 140)}` : ''})`,
          );
        }
        const naming = kind === 'colour' ? '' : `, ${named} named by element (${kind === 'layout' ? 'layout moves' : 'text changes'})`;
        console.log(`  ${kind}: ${detected} of ${records.length} detected${naming} (load average ${load()})`);
      }
    }
  } finally {
    await engine.close();
    await baselines.stop();
    await server.stop();
  }
}

function print(records: PageRecord[], m: { defMs: number[]; loads: string[]; startLoad: string; endLoad: string; external: number; notes: Set<string> }): void {
  const n = records.length;
  const rounds = records[0]?.lh.length ?? 0;
  const med = rounds > 1 ? `, medians of ${rounds}` : '';
  console.log(`\nload average (1, 5, 15 min) at the start ${m.startLoad}; at each round's start ${m.loads.join(' | ')}; at the end ${m.endLoad}`);
  console.log(`requests for resources off the machine, answered 404 from loopback: ${m.external}`);

  const agreement = (title: string, pick: (r: PageRecord) => Figures[]): Tally => {
    const tally = new Tally();
    console.log(`\n${title}`);
    console.log(`  ${col('page', 20)}${METRICS.map((x) => x.label.padStart(17)).join('')}   (cells: Lighthouse/Vigil)`);
    for (const r of records) {
      const a = medianFigures(r.lh);
      const b = medianFigures(pick(r));
      console.log(`  ${col(r.page.name, 20)}${METRICS.map((x) => cell(x.key, a[x.key], b[x.key], tally)).join('')}`);
    }
    console.log(`  ${tally.line}`);
    return tally;
  };
  const tDef = agreement(
    `agreement with Lighthouse simulate (desktop preset, 1280x800), Vigil at DEFAULT concurrency (${n} pages in one scan)${med}:`,
    (r) => r.def,
  );
  const tOne = agreement(`agreement with Lighthouse simulate, Vigil ONE PAGE AT A TIME (one-page scans, concurrency 1)${med}:`, (r) => r.one);

  console.log('\naccessibility vs axe-core run directly (violations and needs-review: rule ids, impacts, element counts), every round:');
  let same = 0;
  let total = 0;
  for (const r of records) {
    const diffs = r.a11y.filter((x) => x.diff);
    same += r.a11y.length - diffs.length;
    total += r.a11y.length;
    const axe = r.axe
      ? `${r.axe.violations.length} violated rules (${r.axe.violations.reduce((s, x) => s + x.nodes, 0)} elements), ${r.axe.needsReview.length} needs-review`
      : '-';
    console.log(
      `  ${col(r.page.name, 20)}${`${r.a11y.length - diffs.length}/${r.a11y.length} identical`.padEnd(18)} axe: ${axe}${diffs.length ? `; differs in ${diffs.map((d) => `${d.label} [${d.diff.slice(0, 160)}]`).join(' ')}` : ''}`,
    );
  }
  console.log(`  identical in ${same} of ${total} comparisons`);

  console.log("\nvisual: unchanged re-scans (default-concurrency rounds after the first, every one-page scan) against the first scan's baselines:");
  let falseDiffs = 0;
  let unstable = 0;
  let rescans = 0;
  for (const r of records) {
    const diffs = r.rescans.filter((x) => x.verdict.startsWith('diff'));
    falseDiffs += diffs.length;
    unstable += r.rescans.filter((x) => x.verdict === 'unstable').length;
    rescans += r.rescans.length;
    console.log(`  ${col(r.page.name, 20)}${r.rescans.map((x) => x.verdict).join(', ')}`);
  }
  console.log(`  false diffs: ${falseDiffs} in ${rescans} unchanged re-scans (${unstable} reported unstable)`);

  console.log(
    `\nspeed, one page at a time, warm browsers${med}: Vigil's whole visit (metrics + axe + screenshot, one load, a one-page scan) vs Lighthouse performance + axe + full-page screenshot one after another`,
  );
  console.log(
    `  ${col('page', 20)}${'Vigil'.padStart(9)}${'LH perf'.padStart(9)}${'axe'.padStart(8)}${'shot'.padStart(8)}${'LH+axe+shot'.padStart(13)}${'ratio'.padStart(7)}  height  Vigil's tasks`,
  );
  let vSum = 0;
  let bSum = 0;
  const ratios: number[] = [];
  for (const r of records) {
    const v = median(r.oneMs);
    const lh = median(r.lhMs);
    const axe = median(r.axeMs);
    const shot = median(r.shotMs);
    const b = lh + axe + shot;
    vSum += v;
    bSum += b;
    ratios.push(b / v);
    const tasks = Object.entries(r.oneTasks)
      .map(([k, x]) => `${k.split(' ')[0]} ${x}`)
      .join(', ');
    console.log(
      `  ${col(r.page.name, 20)}${num(v, 9)}${num(lh, 9)}${num(axe, 8)}${num(shot, 8)}${num(b, 13)}${`${(b / v).toFixed(1)}x`.padStart(7)}  ${String(r.shotHeight).padStart(6)}  ${tasks}`,
    );
  }
  const defPerPage = median(m.defMs) / n;
  console.log(
    `  total, one page at a time: Vigil ${(vSum / 1000).toFixed(1)} s vs ${(bSum / 1000).toFixed(1)} s: ${(bSum / vSum).toFixed(2)}x (target >= 3x); per-page ratios ${Math.min(...ratios).toFixed(1)}x to ${Math.max(...ratios).toFixed(1)}x`,
  );
  console.log(
    `  default concurrency: ${n} pages in ${(median(m.defMs) / 1000).toFixed(1)} s (${(defPerPage / 1000).toFixed(1)} s a page): ${(bSum / n / defPerPage).toFixed(2)}x Lighthouse + axe + screenshot, ${(vSum / n / defPerPage).toFixed(2)}x Vigil one page at a time`,
  );

  console.log(
    `\nsummary: agreement at default concurrency ${tDef.line}, one page at a time ${tOne.line}; accessibility identical to axe in ${same} of ${total}; ${falseDiffs} false diffs in ${rescans} unchanged re-scans; speed ${(bSum / vSum).toFixed(2)}x one page at a time, ${(bSum / n / defPerPage).toFixed(2)}x at default concurrency`,
  );
  if (m.notes.size) {
    console.log('\nnotes:');
    for (const note of [...m.notes].slice(0, 40)) console.log(`  ${note}`);
  }
}
