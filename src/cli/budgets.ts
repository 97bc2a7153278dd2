/**
 * Performance budgets, modelled on Lighthouse CI's assertions: a limit per metric or score, for every
 * page or the pages matching a glob, at level `error` (fails the gate) or `warn` (printed only).
 * The CLI judges them from the finished results (so they work against any server version) and also
 * sends them with the scan, so the server's reports show them (src/domain/budgets.ts).
 *
 *   flag:   [<page glob>@]<metric><op><value>[:error|:warn]
 *           lcp=2500   lcp<=2500   performance>=90:warn   /checkout*@tbt<300
 *   config: { metric: lcp, max: 2500, page: "/checkout*", level: warn }
 *
 * Timing metrics and cls are upper limits (`=` means at most); scores are lower limits (`=` means at least).
 */
import { BUDGET_NAMES, isScoreBudget, judgeBudgets, type Budget, type BudgetLevel, type MeasuredPage } from '../domain/budgets.js';
import { UsageError } from './usage-error.js';

export { BUDGET_NAMES, METRIC_FIELDS, SCORE_NAMES, type Budget, type BudgetLevel, type MeasuredPage } from '../domain/budgets.js';

export interface BudgetViolation {
  page: string;
  metric: string;
  actual: number;
  limit: string;
  level: BudgetLevel;
}

/** Checks a budget from the config file or a flag; the error names where it came from. */
export function checkBudget(b: Budget, where: string): Budget {
  if (!BUDGET_NAMES.includes(b.metric)) throw new UsageError(`${where}: unknown metric "${b.metric}" (one of ${BUDGET_NAMES.join(', ')})`);
  if (b.max === undefined && b.min === undefined) throw new UsageError(`${where}: a budget needs "max" or "min"`);
  if (b.max !== undefined && b.min !== undefined) throw new UsageError(`${where}: give "max" or "min", not both`);
  if (isScoreBudget(b.metric) && b.max !== undefined) throw new UsageError(`${where}: ${b.metric} is a score: give "min"`);
  if (!isScoreBudget(b.metric) && b.min !== undefined) throw new UsageError(`${where}: ${b.metric} is a timing or shift: give "max"`);
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
  const lower = op.startsWith('>') || (op === '=' && isScoreBudget(metric));
  if (lower && !isScoreBudget(metric) && op !== '=') throw new UsageError(`${where}: ${metric} is a timing or shift: give an upper limit (${metric}<=N)`);
  if (!lower && isScoreBudget(metric)) throw new UsageError(`${where}: ${metric} is a score: give a lower limit (${metric}>=N)`);
  return { metric, ...(lower ? { min: value } : { max: value }), ...(page ? { page } : {}), level };
}

/** Every page over (or under) a budget that applies to it; an unmeasured value (null) is not judged. */
export function evaluateBudgets(budgets: readonly Budget[], pages: readonly MeasuredPage[]): BudgetViolation[] {
  return budgets.flatMap((budget) =>
    pages.flatMap((page) =>
      judgeBudgets([budget], page)
        .filter((line) => !line.passed)
        .map((line) => ({
          page: page.page_url,
          metric: line.metric,
          actual: line.actual,
          limit: `${line.kind === 'max' ? '<=' : '>='} ${line.limit}`,
          level: line.level,
        })),
    ),
  );
}
