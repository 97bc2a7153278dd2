/**
 * The HTML export's images: embeddedScanReport reads the scan's screenshots and diff images from the
 * artifact store as data: URIs, pages with a diff first, within a size budget; a missing artifact,
 * a non-image artifact or one past the budget is left out (empty URL) and the report says so; plans
 * without detailed reports get no functional section and no image is read.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VisualPage } from '../../src/domain/scan.js';
import { SecretBox } from '../../src/domain/secret-box.js';
import type { StoredScan } from '../../src/domain/stored-scan.js';
import { ArtifactLinks } from '../../src/http/artifact-links.js';
import { embeddedScanReport, type ViewContext } from '../../src/http/scan-views.js';
import { renderHtmlReport } from '../../src/reports/html.js';
import { MemoryArtifacts } from '../helpers/functional-engine.js';
import { pngDataUri } from './fixtures.js';
import { decodePng, encodePng, type RawImage } from '../../src/engines/functional/visual/png.js';

/** A page-like image: 16 px blocks of colours from a seed (compresses as screenshots do, not as noise). */
function blocky(width: number, height: number, seed: number): RawImage {
  const data = Buffer.alloc(width * height * 4);
  let x = seed * 2654435761 + 1;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0), x);
  const colours = Array.from({ length: Math.ceil(width / 16) * Math.ceil(height / 16) }, () => next());
  for (let y = 0; y < height; y += 1) {
    for (let px = 0; px < width; px += 1) {
      const c = colours[Math.floor(y / 16) * Math.ceil(width / 16) + Math.floor(px / 16)]!;
      const i = (y * width + px) * 4;
      data[i] = c & 255;
      data[i + 1] = (c >> 8) & 255;
      data[i + 2] = (c >> 16) & 255;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

const png = (w: number, h: number, rgb: [number, number, number]) => Buffer.from(pngDataUri(w, h, rgb).split(',')[1]!, 'base64');

async function setup() {
  const artifacts = new MemoryArtifacts();
  const put = (bytes: Buffer, type = 'image/png') => artifacts.put('tnt_a', bytes, type);
  const page = (path: string, diff: boolean, ids: { before: string; after: string; diff: string | null }): VisualPage => ({
    page_url: `https://shop.test${path}`,
    viewport: { width: 800, height: 600 },
    diff_detected: diff,
    diff_percent: diff ? 4.2 : 0,
    baseline_artifact: ids.before,
    current_artifact: ids.after,
    diff_artifact: ids.diff,
    baseline_created: false,
  });
  // Incompressible bytes (the store does not decode images): a screenshot of real size.
  const big = randomBytes(30_000);
  const visual = [
    page('/same', false, { before: await put(big), after: await put(big), diff: null }),
    page('/changed', true, {
      before: await put(png(40, 30, [255, 255, 255])),
      after: await put(png(40, 30, [200, 0, 0])),
      diff: await put(png(40, 30, [255, 0, 255])),
    }),
    page('/gone', true, { before: 'missing-artifact', after: await put(Buffer.from('{"not":"an image"}'), 'application/json'), diff: null }),
  ];
  const scan = {
    id: 'scn_embed',
    tenant_id: 'tnt_a',
    mode: 'functional',
    status: 'completed',
    url: 'https://shop.test',
    spec_url: null,
    input: { url: 'https://shop.test', mode: 'functional', options: { diff_threshold_percent: 0.5 } },
    progress: 100,
    failure_reason: null,
    passed: 1,
    failed: 2,
    total: 3,
    elapsed_seconds: 12,
    agent_count: 1,
    results: {
      elapsed_seconds: 12,
      agent_count: 1,
      tasks: [],
      functional: {
        diff_threshold_percent: 0.5,
        visual,
        accessibility: { wcag_level: 'wcag2aa', compliance_score: 100, violations: [], pages: [] },
        performance: { performance_score: null, pages: [] },
      },
    },
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:12.000Z',
    completed_at: '2026-11-24T10:00:12.000Z',
  } as unknown as StoredScan;
  const view = (plan: ViewContext['plan']): ViewContext => ({
    plan,
    baseUrl: 'https://vigil.test',
    links: new ArtifactLinks(new SecretBox(Buffer.alloc(32, 7)), 3600),
  });
  return { artifacts, scan, view, bigSize: Math.ceil(big.length / 3) * 4 };
}

describe('embeddedScanReport (HTML export images)', () => {
  it('embeds a diff page full size; other pages as thumbnails; missing and non-image artifacts are left out', async () => {
    const { artifacts, scan, view } = await setup();
    const report = await embeddedScanReport(scan, view('team'), artifacts);
    const [same, changed, gone] = report.functional!.visual_regression.pages;
    for (const url of [changed!.screenshot_before, changed!.screenshot_after, changed!.diff_image]) expect(url).toMatch(/^data:image\/png;base64,/);
    // The unchanged page's stored bytes are not a PNG that decodes: no thumbnail, nothing embedded.
    expect(same!.screenshot_before).toBe('');
    expect(gone!.screenshot_before).toBe('');
    expect(gone!.screenshot_after).toBe('');
    const html = renderHtmlReport(report);
    expect(html).toContain(`<img class="shot diff" src="${changed!.diff_image}"`);
    expect(html).toContain('data-images="none"');
    expect(html).toContain('data-approve="true"');
    expect(html).toContain(`{&quot;scan_id&quot;:&quot;scn_embed&quot;,&quot;page&quot;:`);
    expect(html).not.toContain('https://vigil.test');
  });

  it('a diff page past the full-size budget, and every page without a diff, get thumbnails 320 px wide', async () => {
    const { artifacts, scan, view } = await setup();
    const tall = encodePng(blocky(1280, 4000, 1), 6);
    const id = await artifacts.put('tnt_a', tall, 'image/png');
    (scan.results!.functional!.visual as VisualPage[]).push({
      page_url: 'https://shop.test/tall',
      viewport: { width: 1280, height: 720 },
      diff_detected: false,
      diff_percent: 0,
      baseline_artifact: id,
      current_artifact: id,
      diff_artifact: null,
      baseline_created: true,
    });
    const report = await embeddedScanReport(scan, view('team'), artifacts, 100);
    expect(report.thumbnail_pages).toEqual(['https://shop.test/changed', 'https://shop.test/tall']);
    const tallPage = report.functional!.visual_regression.pages.find((p) => p.page_url.endsWith('/tall'))!;
    const thumb = decodePng(Buffer.from(tallPage.screenshot_after.split(',')[1]!, 'base64'));
    expect(thumb.width).toBe(320);
    // The top of a tall page, not a sliver of all of it.
    expect(thumb.height).toBe(640);
    const changed = report.functional!.visual_regression.pages.find((p) => p.page_url.endsWith('/changed'))!;
    expect(changed.screenshot_before).toBe('');
    const html = renderHtmlReport(report);
    expect(html).toContain('data-images="thumbnails"');
    expect(html).toContain('data-baseline="recorded"');
    expect(html).toContain('Baseline recorded by this scan (thumbnail)');
  });

  it('a 15-page scan with tall screenshots gives an HTML report under 5 MB', async () => {
    const artifacts = new MemoryArtifacts();
    const visual: VisualPage[] = [];
    for (let i = 0; i < 15; i += 1) {
      const diff = i < 3;
      const before = await artifacts.put('tnt_a', encodePng(blocky(1280, 4000, i), 6), 'image/png');
      const after = diff ? await artifacts.put('tnt_a', encodePng(blocky(1280, 4000, i + 100), 6), 'image/png') : before;
      const diffImage = diff ? await artifacts.put('tnt_a', encodePng(blocky(1280, 4000, i + 200), 6), 'image/png') : null;
      visual.push({
        page_url: `https://shop.test/p${i}`,
        viewport: { width: 1280, height: 720 },
        diff_detected: diff,
        diff_percent: diff ? 3 : 0,
        baseline_artifact: before,
        current_artifact: after,
        diff_artifact: diffImage,
        baseline_created: false,
      });
    }
    const { scan, view } = await setup();
    scan.results!.functional!.visual = visual;
    const ids = [...new Set(visual.flatMap((p) => [p.baseline_artifact, p.current_artifact, p.diff_artifact]).filter((id): id is string => Boolean(id)))];
    const stored = await Promise.all(ids.map(async (id) => (await artifacts.get('tnt_a', id))!.bytes.length));
    const html = renderHtmlReport(await embeddedScanReport(scan, view('team'), artifacts));
    // Embedding every screenshot would weigh more than 5 MB; the report does not.
    expect((stored.reduce((a, b) => a + b, 0) * 4) / 3).toBeGreaterThan(5 * 1024 * 1024);
    expect(html.length).toBeLessThan(5 * 1024 * 1024);
    expect([...html.matchAll(/data-images="thumbnails"/g)].length).toBeGreaterThan(0);
  }, 120_000);

  it('plans without detailed reports get no functional section and no image is read', async () => {
    const { artifacts, scan, view } = await setup();
    let reads = 0;
    const counting = { put: artifacts.put.bind(artifacts), get: async (t: string, id: string) => (reads++, artifacts.get(t, id)) };
    const report = await embeddedScanReport(scan, view('free'), counting);
    expect(report.functional).toBeNull();
    expect(reads).toBe(0);
  });
});
