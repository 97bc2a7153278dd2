/**
 * Performance budgets, modelled on Lighthouse CI's assertions: a limit per metric or score, for every
 * page or the pages matching a glob, at level `error` (fails the gate) or `warn` (printed only).
 * The CLI sends them with the scan: the server judges them (src/domain/budgets.ts), each page listing its
 * budget lines, which its reports and dashboard show and a suppression can cover. The gate reads those
 * lines and judges with the same rules only what the server did not (an older server).
 *
 *   flag:   [<page glob>@]<metric><op><value>[:error|:warn]
 *           lcp=2500   lcp<=2500   performance>=90:warn   /checkout*@tbt<300
 *   config: { metric: lcp, max: 2500, page: "/checkout*", level: warn }
 *
 * Timing metrics and cls are upper limits (`=` means at most); scores are lower limits (`=` means at least).
 */
import { randomUUID } from 'node:crypto';
import {
  ACCESSIBILITY_BUDGET,
  BUDGET_NAMES,
  isScoreBudget,
  judgeBudgets,
  type Budget,
  type BudgetLevel,
  type BudgetLine,
  type MeasuredPage,
} from '../domain/budgets.js';
import { ApiFailure } from './client.js';
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

/** A page of a results body: its measured values, and the budget lines the server judged on it (absent from an older server). */
export type JudgedPage = MeasuredPage & { budgets?: unknown };

/** The budget lines a server listed on a page (each with a metric, numbers and a verdict); others are ignored. */
function serverLines(page: JudgedPage): BudgetLine[] {
  if (!Array.isArray(page.budgets)) return [];
  return (page.budgets as Array<Partial<BudgetLine>>).filter(
    (l): l is BudgetLine =>
      typeof l?.metric === 'string' &&
      typeof l.actual === 'number' &&
      typeof l.limit === 'number' &&
      (l.kind === 'max' || l.kind === 'min') &&
      (l.level === 'error' || l.level === 'warn') &&
      typeof l.passed === 'boolean',
  );
}

/**
 * Every page over (or under) a budget that applies to it. The server's lines come first: it judged the
 * budgets the scan was started with, from the page's own values (its accessibility score too). The
 * CLI judges itself only the budgets of a metric the server listed no line for on the page (an older
 * server, a scan started without them); an unmeasured value (null) is not judged.
 */
export function evaluateBudgets(budgets: readonly Budget[], pages: readonly JudgedPage[]): BudgetViolation[] {
  const missed = (page: JudgedPage, line: BudgetLine): BudgetViolation => ({
    page: page.page_url,
    metric: line.metric,
    actual: line.actual,
    limit: `${line.kind === 'max' ? '<=' : '>='} ${line.limit}`,
    level: line.level,
  });
  const judgedByServer = (page: JudgedPage) => new Set(serverLines(page).map((l) => l.metric));
  const server = pages.flatMap((page) =>
    serverLines(page)
      .filter((line) => !line.passed)
      .map((line) => missed(page, line)),
  );
  const own = budgets.flatMap((budget) =>
    pages
      .filter((page) => !judgedByServer(page).has(budget.metric))
      .flatMap((page) =>
        judgeBudgets([budget], page)
          .filter((line) => !line.passed)
          .map((line) => missed(page, line)),
      ),
  );
  return [...server, ...own];
}

/** The 422 of a server older than accessibility budgets: it names the metric of an accessibility budget of `options.budgets`. */
function refusesAccessibilityBudgets(error: unknown, budgets: ReadonlyArray<{ metric: string }>): boolean {
  if (!(error instanceof ApiFailure) || error.status !== 422) return false;
  const fields = (error.body as { fields?: Array<{ field?: unknown }> } | null)?.fields;
  return (Array.isArray(fields) ? fields : []).some((f) => {
    const at = /options\.budgets\.(\d+)\.metric$/.exec(String(f?.field ?? ''));
    return at !== null && budgets[Number(at[1])]?.metric === ACCESSIBILITY_BUDGET;
  });
}

/**
 * `start` (which sends `body`), again without the accessibility budgets when the server refuses them (a
 * server older than they are): the gate then judges them alone. The retry is a new request (the refusal
 * started nothing), so it gets a new idempotency key.
 */
export function acceptingBudgets<T>(
  body: { options?: { budgets?: Array<{ metric: string }> } },
  idempotency: { 'Idempotency-Key': string },
  log: (line: string) => void,
  start: () => Promise<T>,
): () => Promise<T> {
  return async () => {
    try {
      return await start();
    } catch (error) {
      const budgets = body.options?.budgets ?? [];
      if (!body.options || !refusesAccessibilityBudgets(error, budgets)) throw error;
      const kept = budgets.filter((b) => b.metric !== ACCESSIBILITY_BUDGET);
      if (kept.length) body.options.budgets = kept;
      else delete body.options.budgets;
      idempotency['Idempotency-Key'] = `vigil-cli-${randomUUID()}`;
      log('note: this server does not judge accessibility budgets (it is older than they are): the CLI judges them\n');
      return start();
    }
  };
}
