/**
 * The contract's per-metric performance ratings: good up to the first bound, needs improvement up to
 * the second, poor beyond (Core Web Vitals and Lighthouse's bands). Used by the functional engine to
 * rate pages and by the reports to colour each metric.
 */

export type MetricRating = 'good' | 'needs-improvement' | 'poor';

/** The contract's thresholds: [good upper bound, needs-improvement upper bound]. */
export const RATING_THRESHOLDS = {
  lcp_ms: [2500, 4000],
  fid_ms: [100, 300],
  cls: [0.1, 0.25],
  ttfb_ms: [800, 1800],
  fcp_ms: [1800, 3000],
  tbt_ms: [200, 600],
  si_ms: [3400, 5800],
  tti_ms: [3800, 7300],
} as const;

export type RatedMetric = keyof typeof RATING_THRESHOLDS;

export function rateMetric(metric: RatedMetric, value: number): MetricRating {
  const [good, ni] = RATING_THRESHOLDS[metric];
  if (value <= good) return 'good';
  if (value <= ni) return 'needs-improvement';
  return 'poor';
}
