import { describe, expect, it } from 'vitest';
import { logNormalScore, metricScores, pageRating, performanceScore, rateMetric, CONTROL_POINTS } from '../../../src/engines/functional/performance/score.js';
import { accessibilityScore, wcagCriterion } from '../../../src/engines/functional/accessibility/score.js';

describe('performance score', () => {
  it('log-normal curve: 0.9 at p10, 0.5 at the median, monotone', () => {
    const p = CONTROL_POINTS.desktop.lcp_ms;
    expect(logNormalScore(p, p.p10)).toBeCloseTo(0.9, 2);
    expect(logNormalScore(p, p.median)).toBeCloseTo(0.5, 2);
    expect(logNormalScore(p, 0)).toBe(1);
    expect(logNormalScore(p, 10_000)).toBeLessThan(logNormalScore(p, 5_000));
  });

  it('all metrics at the desktop medians score 50, at p10 score 90', () => {
    const med = { fcp_ms: 1600, si_ms: 2300, lcp_ms: 2400, tbt_ms: 350, cls: 0.25 };
    expect(performanceScore(med)).toBeCloseTo(50, 0);
    const p10 = { fcp_ms: 934, si_ms: 1311, lcp_ms: 1200, tbt_ms: 150, cls: 0.1 };
    expect(performanceScore(p10)).toBeCloseTo(90, 0);
  });

  it('mobile control points (throttled load) are more lenient for the same values', () => {
    const m = { fcp_ms: 1500, si_ms: 2000, lcp_ms: 2000, tbt_ms: 250, cls: 0.05 };
    expect(performanceScore(m, 'mobile')).toBeGreaterThan(performanceScore(m, 'desktop'));
    expect(metricScores(m, 'mobile').fcp_ms).toBeGreaterThan(metricScores(m, 'desktop').fcp_ms);
    expect(metricScores(m, 'desktop').tbt_ms).toBeLessThan(metricScores(m, 'mobile').tbt_ms);
  });

  it('TBT carries 30% of the weight: a terrible TBT alone costs about 30 points', () => {
    const good = { fcp_ms: 200, si_ms: 200, lcp_ms: 200, tbt_ms: 0, cls: 0 };
    expect(performanceScore(good)).toBe(100);
    expect(performanceScore({ ...good, tbt_ms: 20_000 })).toBe(70);
  });
});

describe('ratings', () => {
  it('follows the contract thresholds inclusively', () => {
    expect(rateMetric('lcp_ms', 2500)).toBe('good');
    expect(rateMetric('lcp_ms', 2501)).toBe('needs-improvement');
    expect(rateMetric('lcp_ms', 4001)).toBe('poor');
    expect(rateMetric('cls', 0.1)).toBe('good');
    expect(rateMetric('cls', 0.26)).toBe('poor');
    expect(rateMetric('ttfb_ms', 1800)).toBe('needs-improvement');
  });
  it('page rating is the worst of LCP, CLS and FID', () => {
    expect(pageRating({ lcp_ms: 1000, cls: 0, fid_ms: 20, ttfb_ms: 5000 })).toBe('good');
    expect(pageRating({ lcp_ms: 1000, cls: 0.2, fid_ms: 20 })).toBe('needs-improvement');
    expect(pageRating({ lcp_ms: 1000, cls: 0, fid_ms: 400 })).toBe('poor');
  });
});

describe('accessibility scoring', () => {
  it("weights rules by Lighthouse's declared audit weights, each rule once", () => {
    expect(accessibilityScore([])).toBe(100);
    // image-alt 10 failed, aria-allowed-role 1 passed (impacts would have said critical 10 / minor 1).
    expect(accessibilityScore([[{ rule: 'image-alt', violated: true }, { rule: 'aria-allowed-role' }]])).toBe(Math.round((1 / 11) * 100));
    // color-contrast 7 passed, heading-order 3 failed; a rule in passes and violations counts once, as failed.
    expect(accessibilityScore([[{ rule: 'color-contrast' }, { rule: 'heading-order' }, { rule: 'heading-order', violated: true }]])).toBe(70);
  });
  it('maps axe tags to WCAG success criteria', () => {
    expect(wcagCriterion(['cat.color', 'wcag2aa', 'wcag143'])).toBe('1.4.3');
    expect(wcagCriterion(['wcag2a', 'wcag111', 'section508', 'section508.22.a'])).toBe('1.1.1');
    expect(wcagCriterion(['wcag21aa', 'wcag1410'])).toBe('1.4.10');
    expect(wcagCriterion(['best-practice'])).toBe('best-practice');
  });
});
