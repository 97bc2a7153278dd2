/**
 * Performance budgets, modelled on Lighthouse CI's assertions: a limit per metric or score, for every
 * page or the pages matching a glob, at level `error` (fails the gate) or `warn` (printed only).
 * They are judged by the CLI from the finished results (the metrics every page already carries), so
 * a budget changes no scan and works against any server version.
 *
 *   flag:   [<page glob>@]<metric><op><value>[:error|:warn]
 *           lcp=2500   lcp<=2500   performance>=90:warn   /checkout*@tbt<300
 *   config: { metric: lcp, max: 2500, page: "/checkout*", level: warn }
 *
 * Timing metrics and cls are upper limits (`=` means at most); scores are lower limits (`=` means at least).
 */
import { compileExclude } from '../domain/exclude.js';
import { UsageError } from './usage-error.js';

/** Budget name -> field of a performance page. */
export const METRIC_FIELDS = { fcp: 'fcp_ms', lcp: 'lcp_ms', tbt: 'tbt_ms', cls: 'cls', si: 'si_ms', ttfb: 'ttfb_ms', tti: 'tti_ms', fid: 'fid_ms' } as const;
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

export interface BudgetViolation {
  page: string;
  metric: string;
  actual: number;
  limit: string;
  level: BudgetLevel;
}

/** A page's measured values as the results carry them (performance.metrics[] plus its accessibility score). */
export interface MeasuredPage {
  page_url: string;
  performance_score?: number | null;
  accessibility_score?: number | null;
  [field: string]: unknown;
}

const isScore = (metric: string) => (SCORE_NAMES as readonly string[]).includes(metric);

/** Checks a budget from the config file or a flag; the error names where it came from. */
export function checkBudget(b: Budget, where: string): Budget {
  if (!BUDGET_NAMES.includes(b.metric)) throw new UsageError(`${where}: unknown metric "${b.metric}" (one of ${BUDGET_NAMES.join(', ')})`);
  if (b.max === undefined && b.min === undefined) throw new UsageError(`${where}: a budget needs "max" or "min"`);
  for (const k of ['max', 'min'] as const) if (b[k] !== undefined && !Number.isFinite(b[k])) throw new UsageError(`${where}: "${k}" must be a number`);
  if (!['error', 'warn'].includes(b.level)) throw new UsageError(`${where}: level must be error or warn`);
  return b;
}

/** `--budget [<page>@]<metric><op><value>[:error|:warn]` */
export function parseBudgetFlag(text: string): Budget {
  const where = `--budget "${text}"`;
  let rest = text.trim();
  let level: BudgetLevel = 'error';
  const lv = /:(error|warn)$/i.exec(rest);
  if (lv) {
    level = lv[1]!.toLowerCase() as BudgetLevel;
    rest = rest.slice(0, lv.index);
  }
  let page: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    page = rest.slice(0, at).trim();
    rest = rest.slice(at + 1);
    if (!page) throw new UsageError(`${where}: empty page before "@"`);
  }
  const m = /^([a-z]+)\s*(<=|>=|<|>|=)\s*(-?\d+(?:\.\d+)?)$/i.exec(rest.trim());
  if (!m) throw new UsageError(`${where}: expected [<page>@]<metric><op><value>[:warn], e.g. lcp=2500, performance>=90:warn, /cart*@tbt<=300`);
  const metric = m[1]!.toLowerCase();
  const op = m[2]!;
  const value = Number(m[3]);
  if (!BUDGET_NAMES.includes(metric)) throw new UsageError(`${where}: unknown metric "${metric}" (one of ${BUDGET_NAMES.join(', ')})`);
  const lower = op.startsWith('>') || (op === '=' && isScore(metric));
  if (lower && !isScore(metric) && op !== '=') throw new UsageError(`${where}: ${metric} is a timing or shift: give an upper limit (${metric}<=N)`);
  if (!lower && isScore(metric)) throw new UsageError(`${where}: ${metric} is a score: give a lower limit (${metric}>=N)`);
  return { metric, ...(lower ? { min: value } : { max: value }), ...(page ? { page } : {}), level };
}

function actualOf(page: MeasuredPage, metric: string): number | null {
  if (metric === 'performance') return typeof page.performance_score === 'number' ? page.performance_score : null;
  if (metric === 'accessibility') return typeof page.accessibility_score === 'number' ? page.accessibility_score : null;
  const v = page[METRIC_FIELDS[metric as keyof typeof METRIC_FIELDS]];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Every page over (or under) a budget that applies to it; an unmeasured value (null) is not judged. */
export function evaluateBudgets(budgets: readonly Budget[], pages: readonly MeasuredPage[]): BudgetViolation[] {
  const out: BudgetViolation[] = [];
  for (const b of budgets) {
    const matches = b.page ? compileExclude([b.page]) : () => true;
    for (const page of pages) {
      if (!matches(page.page_url)) continue;
      const actual = actualOf(page, b.metric);
      if (actual === null) continue;
      if (b.max !== undefined && actual > b.max) out.push({ page: page.page_url, metric: b.metric, actual, limit: `<= ${b.max}`, level: b.level });
      else if (b.min !== undefined && actual < b.min) out.push({ page: page.page_url, metric: b.metric, actual, limit: `>= ${b.min}`, level: b.level });
    }
  }
  return out;
}
