/**
 * Vigil's functional engine as the corpus benchmark and test run it: a scan as the API hands it
 * over (every option at its default except the pages, and the concurrency when given), in-memory
 * artifact and baseline stores kept across scans (the first scan of a page records its baseline).
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import type { FunctionalOutcome, ScanInput, VisualPage } from '../../src/domain/scan.js';
import type { EngineContext } from '../../src/engines/engine.js';
import type { FunctionalEngine } from '../../src/engines/functional/index.js';
import { normalizeScanRequest } from '../../src/http/scan-request.js';
import type { ScanRequest } from '../../src/http/schemas/scan-request.js';
import { MemoryArtifacts, MemoryBaselines } from '../../test/helpers/functional-engine.js';
import type { Figures } from '../lib/lighthouse-run.js';

export interface VigilScan {
  ms: number;
  figures: Map<string, Figures>;
  accessibility: FunctionalOutcome['accessibility'];
  visual: Map<string, VisualPage>;
  /** Per page: "<task>": duration in ms. */
  tasks: Map<string, Record<string, number>>;
  failedTasks: string[];
  /** Every task that did not pass, with its error: "Visual regression: /a/index.html: failed: ...". */
  notPassed: string[];
  warnings: string[];
}

export function scanInput(urls: string[], extra: Record<string, unknown> = {}): ScanInput {
  const options = { pages: urls, max_pages: urls.length, ...extra };
  return normalizeScanRequest({ url: urls[0], mode: 'functional', options } as unknown as ScanRequest, { specMaxBytes: 1 << 20, specMaxOperations: 1000 });
}

export class VigilRunner {
  readonly artifacts = new MemoryArtifacts();
  readonly baselines = new MemoryBaselines();
  constructor(readonly engine: FunctionalEngine) {}

  context(input: ScanInput): EngineContext {
    return {
      scanId: 'corpus',
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

  /** One scan of `urls` with the default options (plus `extra`, e.g. `{ concurrency: 1 }`). */
  async scan(urls: string[], extra: Record<string, unknown> = {}): Promise<VigilScan> {
    const input = scanInput(urls, extra);
    const t0 = performance.now();
    const out = await this.engine.run(this.context(input));
    const ms = performance.now() - t0;
    const f = out.functional!;
    const figures = new Map<string, Figures>();
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
    const tasks = new Map<string, Record<string, number>>();
    for (const url of urls) {
      const path = new URL(url).pathname;
      const mine: Record<string, number> = {};
      for (const t of out.tasks) {
        const at = t.name.lastIndexOf(': ');
        if (t.name.slice(at + 2) === path) mine[t.name.slice(0, at)] = t.duration_ms ?? 0;
      }
      tasks.set(url, mine);
    }
    return {
      ms,
      figures,
      accessibility: f.accessibility,
      visual: new Map(f.visual.map((v) => [v.page_url, v])),
      tasks,
      failedTasks: out.tasks
        .filter((t) => t.status === 'failed' && !t.name.startsWith('Accessibility') && !t.name.startsWith('Visual'))
        .map((t) => `${t.name}: ${t.error ?? ''}`.slice(0, 200)),
      notPassed: out.tasks.filter((t) => t.status !== 'passed').map((t) => `${t.name}: ${t.status}: ${t.error ?? ''}`.slice(0, 300)),
      warnings: f.warnings ?? [],
    };
  }
}
