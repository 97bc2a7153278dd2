import { describe, expect, it } from 'vitest';
import { BUDGET_NAMES, METRIC_FIELDS } from '../../src/domain/budgets.js';
import { RATING_THRESHOLDS, rateMetric } from '../../src/domain/metric-ratings.js';
import { formatMetric, METRIC_BY_FIELD, METRICS, SCORED_METRICS } from '../../src/domain/metrics.js';
import { CONTROL_POINTS, WEIGHTS } from '../../src/engines/functional/performance/score.js';

describe('the metric table', () => {
  it('names each metric once, by field and by budget name', () => {
    expect(new Set(METRICS.map((m) => m.field)).size).toBe(METRICS.length);
    expect(new Set(METRICS.map((m) => m.budget)).size).toBe(METRICS.length);
    expect(Object.keys(METRIC_BY_FIELD)).toHaveLength(METRICS.length);
  });

  it('has ascending rating bands, and the ratings follow them', () => {
    for (const m of METRICS) {
      const [good, ni] = m.thresholds;
      expect(good, m.field).toBeLessThan(ni);
      expect(rateMetric(m.field, good)).toBe('good');
      expect(rateMetric(m.field, ni)).toBe('needs-improvement');
      expect(rateMetric(m.field, ni * 1.01)).toBe('poor');
    }
    expect(RATING_THRESHOLDS.lcp_ms).toEqual([2500, 4000]);
    expect(RATING_THRESHOLDS.cls).toEqual([0.1, 0.25]);
  });

  it('weighs the five Lighthouse 10 metrics to 100, with a curve for each device', () => {
    expect(SCORED_METRICS.map((m) => m.field).sort()).toEqual(['cls', 'fcp_ms', 'lcp_ms', 'si_ms', 'tbt_ms']);
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100);
    expect(WEIGHTS).toEqual({ fcp_ms: 10, si_ms: 10, lcp_ms: 25, tbt_ms: 30, cls: 25 });
    for (const device of ['desktop', 'mobile'] as const) {
      for (const m of SCORED_METRICS)
        expect(CONTROL_POINTS[device][m.field as keyof typeof WEIGHTS].p10, `${device} ${m.field}`).toBeLessThan(m.curve[device].median);
    }
  });

  it('gives budgets their names and fields from it', () => {
    expect(METRIC_FIELDS).toMatchObject({ lcp: 'lcp_ms', cls: 'cls', si: 'si_ms' });
    expect(BUDGET_NAMES).toEqual([...METRICS.map((m) => m.budget), 'performance', 'accessibility']);
  });

  it('formats milliseconds whole and CLS to three decimals', () => {
    expect(formatMetric('lcp_ms', 2499.6)).toBe('2500 ms');
    expect(formatMetric('cls', 0.1)).toBe('0.100');
  });
});
