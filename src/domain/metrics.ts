/**
 * The performance metrics, once: what each is called, its unit, the contract's rating bands, how
 * Lighthouse (v10+) weighs and scores it per device, and the budget name that limits it. The engine
 * rates and scores pages from it, budgets and the CLI's gate judge by it, the reports and the dashboard
 * label and format it.
 */

export type Device = 'desktop' | 'mobile';

/** Lighthouse's log-normal control points: a value scores 0.9 at p10 and 0.5 at the median. */
export interface ScoreCurve {
  p10: number;
  median: number;
}

export interface MetricInfo {
  /** The field of a performance page that holds it. */
  field: MetricField;
  /** Its name in budgets (`options.budgets[].metric`, `vigil scan --budget`). */
  budget: string;
  /** Short label (tables, verdicts). */
  label: string;
  /** Full name. */
  name: string;
  unit: 'ms' | 'unitless';
  /** The contract's bands: good up to the first bound, needs improvement up to the second, poor beyond. */
  thresholds: readonly [number, number];
  /** Weight in the performance score (percent); absent: reported, not weighted. */
  weight?: number;
  /** Per-device scoring curve of a weighted metric. */
  curve?: Record<Device, ScoreCurve>;
}

export type MetricField = 'lcp_ms' | 'fid_ms' | 'cls' | 'ttfb_ms' | 'fcp_ms' | 'tbt_ms' | 'si_ms' | 'tti_ms';

/** In the order the reports show them. */
export const METRICS: readonly MetricInfo[] = [
  {
    field: 'lcp_ms',
    budget: 'lcp',
    label: 'LCP',
    name: 'Largest Contentful Paint',
    unit: 'ms',
    thresholds: [2500, 4000],
    weight: 25,
    curve: { desktop: { p10: 1200, median: 2400 }, mobile: { p10: 2500, median: 4000 } },
  },
  { field: 'fid_ms', budget: 'fid', label: 'FID', name: 'First Input Delay', unit: 'ms', thresholds: [100, 300] },
  {
    field: 'cls',
    budget: 'cls',
    label: 'CLS',
    name: 'Cumulative Layout Shift',
    unit: 'unitless',
    thresholds: [0.1, 0.25],
    weight: 25,
    curve: { desktop: { p10: 0.1, median: 0.25 }, mobile: { p10: 0.1, median: 0.25 } },
  },
  { field: 'ttfb_ms', budget: 'ttfb', label: 'TTFB', name: 'Time to First Byte', unit: 'ms', thresholds: [800, 1800] },
  {
    field: 'fcp_ms',
    budget: 'fcp',
    label: 'FCP',
    name: 'First Contentful Paint',
    unit: 'ms',
    thresholds: [1800, 3000],
    weight: 10,
    curve: { desktop: { p10: 934, median: 1600 }, mobile: { p10: 1800, median: 3000 } },
  },
  {
    field: 'tbt_ms',
    budget: 'tbt',
    label: 'TBT',
    name: 'Total Blocking Time',
    unit: 'ms',
    thresholds: [200, 600],
    weight: 30,
    curve: { desktop: { p10: 150, median: 350 }, mobile: { p10: 200, median: 600 } },
  },
  {
    field: 'si_ms',
    budget: 'si',
    label: 'SI',
    name: 'Speed Index',
    unit: 'ms',
    thresholds: [3400, 5800],
    weight: 10,
    curve: { desktop: { p10: 1311, median: 2300 }, mobile: { p10: 3387, median: 5800 } },
  },
  { field: 'tti_ms', budget: 'tti', label: 'TTI', name: 'Time to Interactive', unit: 'ms', thresholds: [3800, 7300] },
];

export const METRIC_BY_FIELD = Object.fromEntries(METRICS.map((m) => [m.field, m])) as Record<MetricField, MetricInfo>;

/** The metrics the performance score weighs (Lighthouse 10+: FCP, SI, LCP, TBT, CLS). */
export const SCORED_METRICS = METRICS.filter(
  (m): m is MetricInfo & Required<Pick<MetricInfo, 'weight' | 'curve'>> => m.weight !== undefined && m.curve !== undefined,
);

/** A value as the reports print it: whole milliseconds, or CLS with three decimals. */
export function formatMetric(field: MetricField, value: number): string {
  return METRIC_BY_FIELD[field].unit === 'ms' ? `${Math.round(value)} ms` : value.toFixed(3);
}
