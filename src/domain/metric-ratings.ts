/**
 * The contract's per-metric performance ratings: good up to the first bound, needs improvement up to
 * the second, poor beyond (Core Web Vitals and Lighthouse's bands, from the metric table in metrics.ts).
 * Used by the functional engine to rate pages and by the reports to colour each metric.
 */
import { METRICS, type MetricField } from './metrics.js';

export type MetricRating = 'good' | 'needs-improvement' | 'poor';

export type RatedMetric = MetricField;

/** The contract's thresholds: [good upper bound, needs-improvement upper bound]. */
export const RATING_THRESHOLDS = Object.fromEntries(METRICS.map((m) => [m.field, m.thresholds])) as Record<RatedMetric, readonly [number, number]>;

export function rateMetric(metric: RatedMetric, value: number): MetricRating {
  const [good, ni] = RATING_THRESHOLDS[metric];
  if (value <= good) return 'good';
  if (value <= ni) return 'needs-improvement';
  return 'poor';
}
