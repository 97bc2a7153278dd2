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

const png = (w: number, h: number, rgb: [number, number, number]) => Buffer.from(pngDataUri(w, h, rgb).split(',')[1]!, 'base64');

async function setup() {
  const artifacts = new MemoryArtifacts();
  const put = (bytes: Buffer, type = 'image/png') => artifacts.put('tnt_a', bytes, type);
  const page = (path: string, diff: boolean, ids: { before: string; after: string; diff: string | null }): VisualPage => ({
    page_url: `https://shop.test${path}`, viewport: { width: 800, height: 600 }, diff_detected: diff, diff_percent: diff ? 4.2 : 0,
    baseline_artifact: ids.before, current_artifact: ids.after, diff_artifact: ids.diff, baseline_created: false,
  });
  // Incompressible bytes (the store does not decode images): a screenshot of real size.
  const big = randomBytes(30_000);
  const visual = [
    page('/same', false, { before: await put(big), after: await put(big), diff: null }),
    page('/changed', true, { before: await put(png(40, 30, [255, 255, 255])), after: await put(png(40, 30, [200, 0, 0])), diff: await put(png(40, 30, [255, 0, 255])) }),
    page('/gone', true, { before: 'missing-artifact', after: await put(Buffer.from('{"not":"an image"}'), 'application/json'), diff: null }),
  ];
  const scan = {
    id: 'scn_embed', tenant_id: 'tnt_a', mode: 'functional', status: 'completed', url: 'https://shop.test', spec_url: null,
    input: { url: 'https://shop.test', mode: 'functional', options: { diff_threshold_percent: 0.5 } },
    progress: 100, failure_reason: null, passed: 1, failed: 2, total: 3, elapsed_seconds: 12, agent_count: 1,
    results: {
      elapsed_seconds: 12, agent_count: 1, tasks: [],
      functional: { diff_threshold_percent: 0.5, visual, accessibility: { wcag_level: 'wcag2aa', compliance_score: 100, violations: [], pages: [] }, performance: { performance_score: null, pages: [] } },
    },
    created_at: '2026-11-24T10:00:00.000Z', updated_at: '2026-11-24T10:00:12.000Z', completed_at: '2026-11-24T10:00:12.000Z',
  } as unknown as StoredScan;
  const view = (plan: ViewContext['plan']): ViewContext => ({ plan, baseUrl: 'https://vigil.test', links: new ArtifactLinks(new SecretBox(Buffer.alloc(32, 7)), 3600) });
  return { artifacts, scan, view, bigSize: Math.ceil(big.length / 3) * 4 };
}

describe('embeddedScanReport (HTML export images)', () => {
  it('embeds every stored image as a data: URI; missing and non-image artifacts are left out', async () => {
    const { artifacts, scan, view } = await setup();
    const report = await embeddedScanReport(scan, view('team'), artifacts);
    const [same, changed, gone] = report.functional!.visual_regression.pages;
    for (const url of [same!.screenshot_before, same!.screenshot_after, changed!.screenshot_before, changed!.screenshot_after, changed!.diff_image]) expect(url).toMatch(/^data:image\/png;base64,/);
    expect(gone!.screenshot_before).toBe('');
    expect(gone!.screenshot_after).toBe('');
    const html = renderHtmlReport(report);
    expect(html).toContain(`<img class="shot diff" src="${changed!.diff_image}"`);
    expect(html).toContain('data-images="none"');
    expect(html).not.toContain('https://vigil.test');
  });

  it('stays within the budget, pages with a diff first', async () => {
    const { artifacts, scan, view, bigSize } = await setup();
    // Room for the changed page's three small images and one big screenshot, not two.
    const report = await embeddedScanReport(scan, view('team'), artifacts, bigSize + 4096);
    const [same, changed] = report.functional!.visual_regression.pages;
    expect(changed!.screenshot_before).toMatch(/^data:/);
    expect(changed!.diff_image).toMatch(/^data:/);
    // The budget went to the diff page first; of the unchanged page's two identical-size shots one fits.
    expect([same!.screenshot_before, same!.screenshot_after].filter((u) => u.startsWith('data:'))).toHaveLength(1);
  });

  it('plans without detailed reports get no functional section and no image is read', async () => {
    const { artifacts, scan, view } = await setup();
    let reads = 0;
    const counting = { put: artifacts.put.bind(artifacts), get: async (t: string, id: string) => (reads++, artifacts.get(t, id)) };
    const report = await embeddedScanReport(scan, view('free'), counting);
    expect(report.functional).toBeNull();
    expect(reads).toBe(0);
  });
});
