import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { ArtifactStore, BaselineStore, EngineContext } from '../../../src/engines/engine.js';
import type { ScanInput } from '../../../src/domain/scan.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startSite } from '../../fixtures/site/server.js';

class MemArtifacts implements ArtifactStore {
  m = new Map<string, { bytes: Buffer; contentType: string }>();
  n = 0;
  async put(t: string, bytes: Buffer, contentType: string) {
    const id = `a${++this.n}`;
    this.m.set(`${t}/${id}`, { bytes, contentType });
    return id;
  }
  async get(t: string, id: string) {
    return this.m.get(`${t}/${id}`);
  }
}
class MemBaselines implements BaselineStore {
  m = new Map<string, string>();
  async get(t: string, u: string, v: string) {
    return this.m.get(`${t} ${u} ${v}`);
  }
  async set(t: string, u: string, v: string, id: string) {
    this.m.set(`${t} ${u} ${v}`, id);
  }
}

const engine = createFunctionalEngine();
let site: Awaited<ReturnType<typeof startSite>>;
const artifacts = new MemArtifacts();
const baselines = new MemBaselines();

function ctx(pages: string[], extra: Partial<ScanInput> = {}): EngineContext {
  return {
    scanId: 's',
    tenantId: 't1',
    signal: new AbortController().signal,
    progress: () => undefined,
    deployment: 'self-hosted',
    artifacts,
    baselines,
    logger: pino({ level: 'silent' }),
    input: {
      url: site.url,
      mode: 'functional',
      reset_baseline: false,
      options: {
        concurrency: 2,
        timeout: 30,
        exclude: [],
        pages,
        max_pages: 10,
        diff_threshold_percent: 0.5,
        viewport: { width: 1280, height: 800 },
        device: 'desktop',
        accessibility_profile: 'wcag21aa',
      },
      ...extra,
    },
  };
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
    const out = await engine.run(ctx(['/clean', '/violations']));
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
    expect(out.tasks.filter((t) => t.name.startsWith('Accessibility')).map((t) => t.status).sort()).toEqual(['failed', 'passed']);
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
});
