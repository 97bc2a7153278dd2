/**
 * The CI gate: what in a finished scan fails the build. Judged by the CLI from the results body of
 * GET /scan/{id}/results, so that every item can be suppressed, compared with a baseline and listed.
 *
 * Items that fail the gate (exit 1):
 *   security      a failed security task at or above --fail-on (default high; `none`: never)
 *   visual        a page whose visual diff is above its threshold (--fail-on-visual on|off, default on)
 *   accessibility a violation at or above --fail-on-a11y (minor|moderate|serious|critical|none; default serious)
 *   performance   a budget at level error that a page misses (warn: printed only): the page's budget lines
 *                 as the server judged them, the CLI judging only what the server did not (an older server)
 *   page-load     a page that could not be loaded (every audit of the page failed with the same reason)
 *   coverage      a security scan that reached fewer than --fail-on-coverage percent of its operations
 *                 (answered 2xx to some identity): it tested little (never suppressed nor in a baseline)
 * A suppressed item (the ignore file, or a server-side suppression the results carry; reason, not expired)
 * or one already in the baseline never fails the gate, whatever the thresholds; both are
 * listed apart. A scan that did not complete (failed, cancelled) is exit 2 whatever its items.
 */
import { findingFingerprint, operationKey } from '../domain/fingerprint.js';
import { SEVERITIES, type Severity } from '../domain/scan.js';
import { functionalFingerprint } from '../domain/suppressions.js';
import { evaluateBudgets, type Budget, type BudgetViolation, type JudgedPage } from './budgets.js';
import { expired, matches, serverSuppressions, type Suppressible, type Suppression } from './suppressions.js';

export const FAIL_ON = [...SEVERITIES, 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const IMPACTS = ['critical', 'serious', 'moderate', 'minor'] as const;
export const FAIL_ON_A11Y = ['minor', 'moderate', 'serious', 'critical', 'none'] as const;
export type FailOnA11y = (typeof FAIL_ON_A11Y)[number];

export interface GateOptions {
  failOn: FailOn;
  failOnA11y: FailOnA11y;
  failOnVisual: boolean;
  budgets: readonly Budget[];
  suppressions: readonly Suppression[];
  /** Keys of the baseline scan's items (--new-only / --baseline): those never fail. Null: no baseline. */
  baseline: ReadonlySet<string> | null;
  /** YYYY-MM-DD (UTC) for suppression expiry. */
  today: string;
  /** Accessibility score per page URL, for accessibility budgets the server did not judge (else the scan's score is used for every page). */
  accessibilityScores?: ReadonlyMap<string, number>;
  /** --fail-on-coverage: least share (percent) of a security scan's operations that answered 2xx to some identity. */
  failOnCoverage?: number;
}

export type ItemKind = 'security' | 'visual' | 'accessibility' | 'performance' | 'page-load' | 'coverage';

export interface GateItem extends Suppressible {
  kind: ItemKind;
  /** Severity for sorting and display: a security severity, an axe impact, or error/warn for budgets. */
  severity: string;
  /** Lower sorts first (most severe). */
  rank: number;
  title: string;
  /** Operation or page. */
  where: string;
  detail?: string;
  level: 'error' | 'warn';
}

export interface GateResult {
  /** Items that fail the gate, most severe first. */
  failing: GateItem[];
  /** Items found but below their threshold or at level warn (shown, never failing). */
  below: GateItem[];
  suppressed: Array<{ item: GateItem; suppression: Suppression }>;
  /** Items that a suppression used to cover: they fail again. */
  expired: Array<{ item: GateItem; suppression: Suppression }>;
  /** Items in the baseline (not new). */
  known: GateItem[];
  budgetViolations: BudgetViolation[];
  /** What could not be judged (budgets without metrics). */
  notes: string[];
  /** 0 passed, 1 gate failed, 2 scan not completed. */
  exit: 0 | 1 | 2;
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, serious: 1, medium: 2, moderate: 2, error: 2, low: 3, minor: 3, warn: 4, info: 4 };
const rankOf = (s: string) => SEVERITY_RANK[s] ?? 5;

type Json = Record<string, any>;

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** The performance pages of a results body (performance.metrics, or the report's performance.pages). */
export function performancePages(results: Json): Json[] {
  return arr(results.performance?.metrics).length ? arr(results.performance.metrics) : arr(results.functional?.performance?.pages);
}

/**
 * Every item of a results body that could fail the gate, with its stable key; `failing` says whether
 * it reaches its threshold. Also used on a baseline's results to know which items are not new.
 */
export function collectItems(
  results: Json,
  opts: Pick<GateOptions, 'failOn' | 'failOnA11y' | 'failOnVisual' | 'budgets' | 'accessibilityScores'>,
): { items: Array<GateItem & { reaches: boolean }>; budgetViolations: BudgetViolation[] } {
  const items: Array<GateItem & { reaches: boolean }> = [];
  const tasks = arr(results.tasks);
  const secLimit = opts.failOn === 'none' ? -1 : SEVERITIES.indexOf(opts.failOn);
  for (const t of tasks) {
    if (t.status !== 'failed' || t.kind === 'functional' || typeof t.severity !== 'string') continue;
    const sev = SEVERITIES.indexOf(t.severity as Severity);
    const operation = t.endpoint ? operationKey(t.endpoint) : undefined;
    items.push({
      kind: 'security',
      key: findingFingerprint({
        name: String(t.name ?? ''),
        check: t.check,
        endpoint: t.endpoint,
        parameter: t.parameter,
        ...(Array.isArray(t.endpoints) ? { endpoints: t.endpoints } : {}),
      }),
      check: String(t.check ?? t.name ?? 'finding'),
      ...(operation ? { operation } : {}),
      ...(t.parameter ? { parameter: String(t.parameter) } : {}),
      severity: t.severity,
      rank: rankOf(t.severity),
      title: String(t.name ?? t.check ?? 'finding'),
      where: Array.isArray(t.endpoints) && t.endpoints.length > 1 ? `${operation ?? ''} (+${t.endpoints.length - 1} more)` : (operation ?? ''),
      level: 'error',
      reaches: sev >= 0 && sev <= secLimit,
    });
  }
  const pageItem = (
    kind: ItemKind,
    check: string,
    pageUrl: string,
    severity: string,
    title: string,
    detail: string | undefined,
    reaches: boolean,
    level: 'error' | 'warn' = 'error',
  ) => {
    const path = pathOf(pageUrl);
    items.push({
      kind,
      key: functionalFingerprint(check, pageUrl),
      check,
      page: pageUrl,
      operation: `GET ${path}`,
      severity,
      rank: rankOf(severity),
      title,
      where: pageUrl,
      ...(detail ? { detail } : {}),
      level,
      reaches,
    });
  };
  // Pages that could not be loaded: every audit task of the page failed with one and the same reason.
  const byPage = new Map<string, Json[]>();
  for (const t of tasks) {
    if (t.kind !== 'functional' && t.severity !== undefined) continue;
    const m = /^[^:]+:\s(.+)$/.exec(String(t.name ?? ''));
    if (!m) continue;
    byPage.set(m[1]!, [...(byPage.get(m[1]!) ?? []), t]);
  }
  const notLoaded = new Set<string>();
  for (const [page, list] of byPage) {
    const reasons = new Set(list.map((t) => t.error));
    if (list.length >= 2 && list.every((t) => t.status === 'failed') && reasons.size === 1 && list[0]!.error) {
      notLoaded.add(page);
      pageItem('page-load', 'page-load', page, 'high', 'Page could not be loaded', String(list[0]!.error), true);
    }
  }
  // Without the detailed sections (plans without detailed reports), the failed tasks stand for them.
  const failedTasks = (prefix: RegExp) =>
    [...byPage]
      .filter(([page]) => !notLoaded.has(page))
      .flatMap(([page, list]) => list.filter((t) => t.status === 'failed' && prefix.test(String(t.name))).map((t) => ({ page, t })));
  if (!results.visual_regression) {
    for (const { page, t } of failedTasks(/^Visual regression:/))
      pageItem('visual', 'visual', page, 'high', 'Visual change above threshold', String(t.error ?? ''), opts.failOnVisual);
  }
  if (!results.accessibility) {
    // The impact is unknown: counted as serious (it fails unless --fail-on-a11y is critical or none). A task
    // failed only over its accessibility budget found no violation: the budget is its item.
    for (const { page, t } of failedTasks(/^Accessibility\b/).filter(({ t }) => !String(t.error ?? '').startsWith('over budget:')))
      pageItem(
        'accessibility',
        'a11y/unknown',
        page,
        'serious',
        'Accessibility violations (impact not in these results)',
        String(t.error ?? ''),
        opts.failOnA11y !== 'none' && opts.failOnA11y !== 'critical',
      );
  }
  // Visual diffs above threshold.
  for (const c of arr(results.visual_regression?.comparisons)) {
    if (c.diff_detected)
      pageItem('visual', 'visual', String(c.page_url), 'high', 'Visual change above threshold', `${c.diff_percent}% of pixels changed`, opts.failOnVisual);
  }
  // Accessibility violations by impact.
  const a11yLimit = opts.failOnA11y === 'none' ? -1 : IMPACTS.indexOf(opts.failOnA11y);
  for (const v of arr(results.accessibility?.violations)) {
    const impact = IMPACTS.includes(v.impact) ? (v.impact as (typeof IMPACTS)[number]) : 'minor';
    const first = arr(v.nodes)[0];
    pageItem(
      'accessibility',
      `a11y/${v.rule}`,
      String(v.page_url),
      impact,
      `${v.rule}: ${v.description ?? ''}`.trim(),
      `${v.elements_affected ?? v.elements ?? '?'} element(s)${first?.target ? `, e.g. ${first.target}` : ''}`,
      IMPACTS.indexOf(impact) <= a11yLimit,
    );
  }
  // Budgets: the server's lines, and the CLI's own judging of what the server did not judge.
  const scanA11y = typeof results.accessibility?.compliance_score === 'number' ? results.accessibility.compliance_score : null;
  const pages: JudgedPage[] = performancePages(results).map((p) => ({
    ...p,
    page_url: String(p.page_url ?? p.page),
    accessibility_score: opts.accessibilityScores?.get(String(p.page_url ?? p.page)) ?? scanA11y,
  }));
  const budgetViolations = evaluateBudgets(opts.budgets, pages);
  for (const b of budgetViolations) {
    pageItem(
      'performance',
      `budget/${b.metric}`,
      b.page,
      b.level,
      `Budget: ${b.metric} ${b.actual} (limit ${b.limit})`,
      undefined,
      b.level === 'error',
      b.level,
    );
  }
  return { items: oncePerFinding(items), budgetViolations };
}

/**
 * One item per finding: tasks that are the same finding (same fingerprint: check, operation, parameter and
 * title) are listed once, the most severe occurrence kept (the first of equals, and `reaches` if any does).
 */
function oncePerFinding<T extends GateItem & { reaches: boolean }>(items: T[]): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const seen = byKey.get(item.key);
    if (!seen) byKey.set(item.key, item);
    else byKey.set(item.key, { ...(item.rank < seen.rank ? item : seen), reaches: seen.reaches || item.reaches });
  }
  return [...byKey.values()];
}

/** The gate's verdict on a finished scan. */
export function judge(results: Json, opts: GateOptions): GateResult {
  const { items, budgetViolations } = collectItems(results, opts);
  const out: GateResult = { failing: [], below: [], suppressed: [], expired: [], known: [], budgetViolations, notes: [], exit: 0 };
  if (opts.budgets.length && results.status === 'completed' && performancePages(results).length === 0) {
    out.notes.push('budgets not judged: these results carry no performance metrics (functional and full scans have them on plans with detailed reports)');
  }
  // Server-side suppressions (the results carry them) first: a finding both cover shows the server's triage.
  const suppressions = unambiguousSuppressions(
    [...serverSuppressions(results), ...opts.suppressions],
    items.map((i) => i.key),
    out.notes,
  );
  for (const item of items) {
    const { reaches, ...plain } = item;
    // A suppression applies whatever the threshold: what is accepted stays accepted (and shown so in
    // SARIF and JUnit) when --fail-on changes.
    const hits = suppressions.filter((s) => matches(s, plain));
    const live = hits.find((s) => !expired(s, opts.today));
    if (live) {
      out.suppressed.push({ item: plain, suppression: live });
      continue;
    }
    if (!reaches) {
      out.below.push(plain);
      continue;
    }
    if (opts.baseline?.has(plain.key)) {
      out.known.push(plain);
      continue;
    }
    if (hits.length) out.expired.push({ item: plain, suppression: hits[0]! });
    out.failing.push(plain);
  }
  const byRank = (a: GateItem, b: GateItem) => a.rank - b.rank || a.title.localeCompare(b.title);
  const coverage = results.status === 'completed' ? coverageItem(results, opts.failOnCoverage) : undefined;
  if (coverage) out.failing.push(coverage);
  out.failing.sort(byRank);
  out.below.sort(byRank);
  out.known.sort(byRank);
  out.exit = results.status !== 'completed' ? 2 : out.failing.length ? 1 : 0;
  return out;
}

/**
 * --fail-on-coverage: the item failing a security scan whose share of operations that answered 2xx to
 * some identity (`security.coverage.operations_2xx` of `operations_total`, one decimal) is below the
 * percentage (listed first: it says how little the rest means); undefined when it is not, without the
 * flag, or without a security section.
 */
export function coverageItem(results: Json, percent: number | undefined): GateItem | undefined {
  const cov = results.security?.coverage;
  if (percent === undefined || !cov || !(Number(cov.operations_total) > 0)) return undefined;
  const reached = Math.round((Number(cov.operations_2xx) / Number(cov.operations_total)) * 1000) / 10;
  if (reached >= percent) return undefined;
  const title = `Coverage ${reached}%: ${cov.operations_2xx} of ${cov.operations_total} operations answered 2xx (--fail-on-coverage ${percent})`;
  return {
    kind: 'coverage',
    severity: 'high',
    rank: -1,
    title,
    where: 'coverage',
    detail: typeof results.not_tested?.headline === 'string' ? results.not_tested.headline : undefined,
    level: 'error',
    key: 'coverage',
    check: 'coverage',
  };
}

/**
 * The suppressions whose fingerprint prefix names one finding at most: a prefix shared by findings of
 * different fingerprints would suppress more than was triaged, so it is not applied (a note says so).
 */
export function unambiguousSuppressions(suppressions: readonly Suppression[], findingKeys: readonly string[], notes: string[]): Suppression[] {
  const keys = [...new Set(findingKeys)];
  return suppressions.filter((s) => {
    if (s.fingerprint === undefined) return true;
    const prefix = s.fingerprint.toLowerCase();
    const named = keys.filter((k) => k.startsWith(prefix));
    if (named.length <= 1) return true;
    notes.push(
      `suppression ${s.source} not applied: fingerprint "${s.fingerprint}" is the start of ${named.length} findings' fingerprints (${named.map((k) => k.slice(0, 12)).join(', ')}); give more characters`,
    );
    return false;
  });
}

/** The keys of every item found in a baseline's results (whatever its thresholds), for --new-only / --baseline. */
export function baselineKeys(results: Json): Set<string> {
  const all = { failOn: 'info' as const, failOnA11y: 'minor' as const, failOnVisual: true, budgets: [] };
  return new Set(collectItems(results, all).items.map((i) => i.key));
}
