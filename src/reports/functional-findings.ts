/**
 * The page findings a failed functional task stands for, by fingerprint: a visual regression task is its
 * page's diff, an accessibility task its page's violations and missed `error` accessibility budget, a
 * performance task that failed only over budget its page's other missed `error` budgets. Triage applies to those findings; a task whose every finding
 * is suppressed is suppressed too (the report model marks it, SARIF and JUnit set it aside), so the
 * functional sections and the task lists of every format agree.
 */
import { ACCESSIBILITY_BUDGET } from '../domain/budgets.js';
import { budgetCheck, functionalFingerprint, pagePath } from '../domain/suppressions.js';

/** The listed functional findings of a scan (stored outcome, report model or results body). */
export interface PageFindings {
  /** Null when these results list no visual comparisons (plans without detailed reports). */
  visual: ReadonlyArray<{ page_url: string; diff_detected: boolean }> | null;
  /** Null when these results list no violations. */
  violations: ReadonlyArray<{ page_url: string; rule: string }> | null;
  performance: ReadonlyArray<{ page_url: string; budgets?: ReadonlyArray<{ metric: string; passed: boolean; level: string }> }>;
}

type Json = Record<string, any>;
/** A list of the body as it is: entries are read with String() where they may not be strings. */
const list = <T>(v: unknown): readonly T[] | null => (Array.isArray(v) ? (v as T[]) : null);

/** The findings a results body (GET /scan/{id}/results) lists: what SARIF, JUnit and the CLI read. */
export function pageFindingsOfBody(body: Json): PageFindings {
  return {
    visual: list(body.visual_regression?.comparisons),
    violations: list(body.accessibility?.violations),
    performance: list<PageFindings['performance'][number]>(body.performance?.metrics) ?? [],
  };
}

/** The audit and page of a functional task's name: "Accessibility (wcag2aa): /cart" -> accessibility, /cart. */
function auditAndPage(name: string): { audit: string; page: string } | undefined {
  const at = name.indexOf(': ');
  if (at < 0) return undefined;
  const audit = name
    .slice(0, at)
    .replace(/\s*\(.*\)\s*$/, '')
    .trim()
    .toLowerCase();
  return { audit, page: name.slice(at + 2).trim() };
}

/**
 * The fingerprints of the findings a failed functional task stands for, or undefined when its failure is
 * not (only) such findings (a page that could not be audited, a page rated poor).
 */
export function taskFindingKeys(task: { name?: unknown; status?: unknown; error?: unknown }, findings: PageFindings): string[] | undefined {
  if (task.status !== 'failed') return undefined;
  const named = auditAndPage(String(task.name ?? ''));
  if (!named) return undefined;
  const onPage = (url: string) => pagePath(url) === pagePath(named.page);
  /** The page's missed `error` budgets of the metrics `mine` says are the task's. */
  const missedBudgets = (mine: (metric: string) => boolean) =>
    findings.performance
      .filter((p) => onPage(String(p.page_url)))
      .flatMap((p) =>
        (Array.isArray(p.budgets) ? p.budgets : [])
          .filter((b) => !b.passed && b.level === 'error' && mine(b.metric))
          .map((b) => functionalFingerprint(budgetCheck(b.metric), p.page_url)),
      );
  const isAccessibility = (metric: string) => metric === ACCESSIBILITY_BUDGET;
  if (named.audit === 'visual regression') return [functionalFingerprint('visual', named.page)];
  if (named.audit === 'accessibility') {
    const budgets = missedBudgets(isAccessibility);
    // Without listed violations the CLI's gate counts the page's violations as one finding of unknown rule.
    if (!findings.violations) {
      const onlyBudgets = String(task.error ?? '').startsWith('over budget:') && budgets.length > 0;
      return [...new Set([...(onlyBudgets ? [] : [functionalFingerprint('a11y/unknown', named.page)]), ...budgets])];
    }
    const keys = [
      ...findings.violations.filter((v) => onPage(String(v.page_url))).map((v) => functionalFingerprint(`a11y/${v.rule}`, String(v.page_url))),
      ...budgets,
    ];
    return keys.length ? [...new Set(keys)] : undefined;
  }
  if (named.audit === 'performance' && String(task.error ?? '').startsWith('over budget:')) {
    const keys = missedBudgets((metric) => !isAccessibility(metric));
    return keys.length ? [...new Set(keys)] : undefined;
  }
  return undefined;
}
