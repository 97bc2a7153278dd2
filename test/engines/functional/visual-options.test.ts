/** The visual options of a scan request: min_region_px, ignore_regions and per-page thresholds on options.pages objects. */
import { describe, expect, it } from 'vitest';
import { visualThresholds } from '../../../src/engines/functional/visual/judge.js';
import { ApiError } from '../../../src/http/errors.js';
import { checkScanRequestSchema, normalizeScanRequest } from '../../../src/http/scan-request.js';
import type { ScanRequest } from '../../../src/http/schemas/scan-request.js';

const LIMITS = { specMaxBytes: 1 << 20, specMaxOperations: 1000 };
const normalise = (options: Record<string, unknown>) =>
  normalizeScanRequest({ url: 'https://example.com', mode: 'functional', options } as ScanRequest, LIMITS).options;

function refused(options: Record<string, unknown>): boolean {
  try {
    checkScanRequestSchema({ url: 'https://example.com', options });
    return false;
  } catch (err) {
    if (err instanceof ApiError) return err.status === 422;
    throw err;
  }
}

describe('visual options', () => {
  it("defaults: the contract's 0.5% and a 150-pixel region, nothing ignored, no page thresholds", () => {
    const o = normalise({});
    expect(o.diff_threshold_percent).toBe(0.5);
    expect(o.min_region_px).toBe(150);
    expect(o.ignore_regions).toBeUndefined();
    expect(o.page_thresholds).toBeUndefined();
    expect(visualThresholds(o, 'https://example.com/')).toEqual({ diffThresholdPercent: 0.5, minRegionPx: 150, ignore: [] });
  });

  it("page objects carry their own thresholds, with or without a label; other pages keep the scan's", () => {
    const o = normalise({
      min_region_px: 400,
      ignore_regions: [{ x: 0, y: 0, width: 1280, height: 90 }],
      pages: ['/', { url: '/pricing?plan=pro', min_region_px: 2000 }, { label: 'checkout', url: 'https://example.com/checkout', diff_threshold_percent: 2 }],
    });
    expect(o.pages).toEqual(['/', '/pricing?plan=pro', 'https://example.com/checkout']);
    expect(o.page_labels).toEqual([{ label: 'checkout', url: 'https://example.com/checkout' }]);
    expect(o.page_thresholds).toEqual([
      { url: '/pricing?plan=pro', min_region_px: 2000 },
      { url: 'https://example.com/checkout', diff_threshold_percent: 2 },
    ]);
    const ignore = [{ x: 0, y: 0, width: 1280, height: 90 }];
    expect(visualThresholds(o, 'https://example.com/')).toEqual({ diffThresholdPercent: 0.5, minRegionPx: 400, ignore });
    // Matched by path and query, whatever the host (a preview host, localhost).
    expect(visualThresholds(o, 'http://localhost:3000/pricing?plan=pro')).toEqual({ diffThresholdPercent: 0.5, minRegionPx: 2000, ignore });
    expect(visualThresholds(o, 'https://example.com/pricing')).toMatchObject({ minRegionPx: 400 });
    expect(visualThresholds(o, 'https://example.com/checkout')).toEqual({ diffThresholdPercent: 2, minRegionPx: 400, ignore });
  });

  it('refuses bad values', () => {
    expect(refused({ min_region_px: -1 })).toBe(true);
    expect(refused({ min_region_px: 1.5 })).toBe(true);
    expect(refused({ ignore_regions: [{ x: 0, y: 0, width: 0, height: 10 }] })).toBe(true);
    expect(refused({ ignore_regions: [{ x: 0, y: 0, width: 10 }] })).toBe(true);
    expect(refused({ pages: [{ url: '/', diff_threshold_percent: 101 }] })).toBe(true);
    expect(refused({ pages: [{ url: '/', colour: 'red' }] })).toBe(true);
    expect(refused({ pages: [{ url: '/', min_region_px: 10 }], min_region_px: 10, ignore_regions: [{ x: 5, y: 5, width: 10, height: 10 }] })).toBe(false);
  });
});
