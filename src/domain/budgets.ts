/**
 * Performance budgets, modelled on Lighthouse CI's assertions: a limit per metric or score, for every
 * page or the pages matching a glob, at level `error` or `warn`. Judged by the functional engine when a
 * scan carries `options.budgets`: metrics and the performance score by the performance audit (its task
 * fails on a missed `error` budget), the accessibility score by the accessibility audit (its task fails
 * likewise), each page listing all its budget lines on its performance page for reports and triage. The
 * CLI's gate reads those lines and judges with the same rules only what the server did not (an older server).
 *
 * Timing metrics and cls are upper limits (`max`); scores are lower limits (`min`).
 */
import { compileExclude } from './exclude.js';
import { METRICS, type MetricField } from './metrics.js';

/** Budget name -> field of a performance page (from the metric table). */
export const METRIC_FIELDS = Object.fromEntries(METRICS.map((m) => [m.budget, m.field])) as Record<string, MetricField>;
export const SCORE_NAMES = ['performance', 'accessibility'] as const;
export const BUDGET_NAMES = [...Object.keys(METRIC_FIELDS), ...SCORE_NAMES] as readonly string[];
export type BudgetLevel = 'error' | 'warn';

export interface Budget {
  metric: string;
  /** Upper limit (metrics) ... */
  max?: number;
  /** ... or lower limit (scores). */
  min?: number;
  /** Page glob (path or URL; `*` any characters; without `*`: the path and below). Absent: every page. */
  page?: string;
  level: BudgetLevel;
}

/** One budget judged on one page: what reports show next to the metrics. */
export interface BudgetLine {
  metric: string;
  actual: number;
  /** The limit; `kind` says whether it is a maximum or a minimum. */
  limit: number;
  kind: 'max' | 'min';
  level: BudgetLevel;
  passed: boolean;
}

/** A page's measured values as the results carry them (a performance page, plus its accessibility score when known). */
export interface MeasuredPage {
  page_url: string;
  performance_score?: number | null;
  accessibility_score?: number | null;
}

export const isScoreBudget = (metric: string) => (SCORE_NAMES as readonly string[]).includes(metric);
/** The budget judged by the accessibility audit (with the page's accessibility score); every other one is the performance audit's. */
export const ACCESSIBILITY_BUDGET = 'accessibility';

function actualOf(page: MeasuredPage, metric: string): number | null {
  if (metric === 'performance') return typeof page.performance_score === 'number' ? page.performance_score : null;
  if (metric === 'accessibility') return typeof page.accessibility_score === 'number' ? page.accessibility_score : null;
  const field = METRIC_FIELDS[metric];
  const v = field ? (page as unknown as Record<string, unknown>)[field] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The budgets that apply to `page`, judged; an unmeasured value (null) is not judged. */
export function judgeBudgets(budgets: readonly Budget[], page: MeasuredPage): BudgetLine[] {
  const lines: BudgetLine[] = [];
  for (const b of budgets) {
    if (b.page && !compileExclude([b.page])(page.page_url)) continue;
    const actual = actualOf(page, b.metric);
    if (actual === null) continue;
    if (b.max !== undefined) lines.push({ metric: b.metric, actual, limit: b.max, kind: 'max', level: b.level, passed: actual <= b.max });
    else if (b.min !== undefined) lines.push({ metric: b.metric, actual, limit: b.min, kind: 'min', level: b.level, passed: actual >= b.min });
  }
  return lines;
}

/** "lcp 3200 (limit <= 2500)" */
export function describeBudgetLine(line: BudgetLine): string {
  return `${line.metric} ${line.actual} (limit ${line.kind === 'max' ? '<=' : '>='} ${line.limit})`;
}

/** What fails a page's task over its budget lines: "over budget: lcp 3200 (limit <= 2500)", or undefined when no `error` line was missed. */
export function overBudgetVerdict(lines: readonly BudgetLine[]): string | undefined {
  const missed = lines.filter((b) => !b.passed && b.level === 'error');
  return missed.length ? `over budget: ${missed.map(describeBudgetLine).join(', ')}` : undefined;
}
