/**
 * Pure performance scoring: Lighthouse v10+ weights and log-normal curves, and the contract's
 * per-metric ratings. No I/O.
 */
import { rateMetric, type RatedMetric } from '../../../domain/metric-ratings.js';
import { SCORED_METRICS, type Device, type ScoreCurve } from '../../../domain/metrics.js';

export type { Device } from '../../../domain/metrics.js';
export type Rating = 'good' | 'needs-improvement' | 'poor';

export interface ScoredMetrics {
  fcp_ms: number;
  si_ms: number;
  lcp_ms: number;
  tbt_ms: number;
  cls: number;
}

/** In Lighthouse's order (its score sums them in this order: the same rounding as its own). */
const LIGHTHOUSE_ORDER: (keyof ScoredMetrics)[] = ['fcp_ms', 'si_ms', 'lcp_ms', 'tbt_ms', 'cls'];
const SCORED = LIGHTHOUSE_ORDER.map((field) => SCORED_METRICS.find((m) => m.field === field)!);

/** Lighthouse 10+ category weights (percent), from the metric table. TTI and FID are reported but not weighted. */
export const WEIGHTS = Object.fromEntries(SCORED.map((m) => [m.field, m.weight])) as Record<keyof ScoredMetrics, number>;

/** Lighthouse's control points {p10, median} per device, from the metric table. */
export const CONTROL_POINTS = Object.fromEntries(
  (['desktop', 'mobile'] as const).map((device) => [device, Object.fromEntries(SCORED.map((m) => [m.field, m.curve[device]]))]),
) as Record<Device, Record<keyof ScoredMetrics, ScoreCurve>>;

/** Abramowitz-Stegun erf, as Lighthouse's statistics.js uses. */
function erf(x: number): number {
  const sign = Math.sign(x);
  x = Math.abs(x);
  const a1 = 0.254829592;
  const a2 = -0.284496736;
  const a3 = 1.421413741;
  const a4 = -1.453152027;
  const a5 = 1.061405429;
  const p = 0.3275911;
  const t = 1 / (1 + p * x);
  const y = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
  return sign * (1 - y * Math.exp(-x * x));
}

/** Lighthouse's getLogNormalScore: 0..1, 0.9 at p10, 0.5 at the median. */
export function logNormalScore(point: { p10: number; median: number }, value: number): number {
  if (value <= 0) return 1;
  const INVERSE_ERFC_ONE_FIFTH = 0.9061938024368232;
  const xLogRatio = Math.log(Math.max(Number.MIN_VALUE, value / point.median));
  const p10LogRatio = -Math.log(Math.max(Number.MIN_VALUE, point.p10 / point.median));
  const standardizedX = (xLogRatio * INVERSE_ERFC_ONE_FIFTH) / p10LogRatio;
  const complementaryPercentile = (1 - erf(standardizedX)) / 2;
  if (value <= point.p10) return Math.max(0.9, Math.min(1, complementaryPercentile));
  if (value <= point.median) return Math.max(0.5, Math.min(0.8999999999999999, complementaryPercentile));
  return Math.max(0, Math.min(0.49999999999999994, complementaryPercentile));
}

/** Per-metric scores, rounded to two decimals like Lighthouse audits. */
export function metricScores(m: ScoredMetrics, device: Device = 'desktop'): Record<keyof ScoredMetrics, number> {
  const out = {} as Record<keyof ScoredMetrics, number>;
  for (const k of Object.keys(WEIGHTS) as Array<keyof ScoredMetrics>) {
    out[k] = Math.round(logNormalScore(CONTROL_POINTS[device][k], m[k]) * 100) / 100;
  }
  return out;
}

/** 0-100 performance score (weighted mean of metric scores), one decimal. */
export function performanceScore(m: ScoredMetrics, device: Device = 'desktop'): number {
  const s = metricScores(m, device);
  let sum = 0;
  let w = 0;
  for (const k of Object.keys(WEIGHTS) as Array<keyof ScoredMetrics>) {
    sum += s[k] * WEIGHTS[k];
    w += WEIGHTS[k];
  }
  return Math.round((sum / w) * 1000) / 10;
}

// The per-metric rating thresholds live in the domain (reports colour each metric by them too).
export { RATING_THRESHOLDS, rateMetric, type RatedMetric } from '../../../domain/metric-ratings.js';

/** Metrics that decide a page's rating: the Core Web Vitals (LCP, CLS, FID as the lab INP stand-in). */
export const DECIDING_METRICS: RatedMetric[] = ['lcp_ms', 'cls', 'fid_ms'];

const ORDER: Rating[] = ['good', 'needs-improvement', 'poor'];

/** A page's rating: the worst rating among the Core Web Vitals (Google's CWV assessment rule). */
export function pageRating(m: Partial<Record<RatedMetric, number>>): Rating {
  let worst = 0;
  for (const k of DECIDING_METRICS) {
    const v = m[k];
    if (v === undefined || !Number.isFinite(v)) continue;
    worst = Math.max(worst, ORDER.indexOf(rateMetric(k, v)));
  }
  return ORDER[worst];
}
