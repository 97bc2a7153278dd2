/**
 * The accessibility audit: a page's violations, needs-review results and compliance score from its axe
 * results (accessibility/audit.ts). It judges the `accessibility` budgets of options.budgets with the
 * page's score: the task fails on a missed `error` one, and the line joins the page's budget lines
 * (listed on its performance page: budgetLinesTogether).
 */
import { ACCESSIBILITY_BUDGET, judgeBudgets, overBudgetVerdict, type BudgetLine } from '../../../domain/budgets.js';
import type { FunctionalOutcome } from '../../../domain/scan.js';
import { auditAccessibility, type AccessibilityAudit } from '../accessibility/audit.js';
import { accessibilityScore } from '../accessibility/score.js';
import type { Audit } from '../types.js';

export interface AccessibilityResult extends AccessibilityAudit {
  engine: { name: 'axe-core'; version: string };
  /** The accessibility budgets that apply to the page, judged; absent when none does. */
  budgets?: BudgetLine[];
}

export const accessibilityAudit: Audit<AccessibilityResult> = {
  id: 'accessibility',
  title: (o) => `Accessibility (${o.accessibility_profile})`,
  requires: ['axe'],
  run({ axe }, { url, scan }) {
    const audit = auditAccessibility(url, axe);
    const budgets = judgeBudgets(
      (scan.options.budgets ?? []).filter((b) => b.metric === ACCESSIBILITY_BUDGET),
      { page_url: url, accessibility_score: audit.page.compliance_score },
    );
    const verdicts = [audit.violations.length ? `${audit.violations.length} violation(s)` : undefined, overBudgetVerdict(budgets)].filter(Boolean);
    return {
      result: { ...audit, engine: axe.engine, ...(budgets.length ? { budgets } : {}) },
      failure: verdicts.length ? verdicts.join('; ') : undefined,
    };
  },
  summarize(results, scan) {
    return {
      accessibility: {
        wcag_level: scan.options.accessibility_profile,
        compliance_score: results.length ? accessibilityScore(results.map((r) => r.rules)) : null,
        violations: results.flatMap((r) => r.violations),
        needs_review: results.flatMap((r) => r.needsReview),
        ...(results[0] ? { engine: results[0].engine } : {}),
        pages: results.map((r) => r.page),
      },
    };
  },
};

/**
 * The scan's outcome with each page's accessibility budget lines after its performance budget lines, on
 * its performance page: a page's budget lines are listed in one place, which reports, triage (fingerprint
 * `budget/accessibility` on the page) and the CLI's gate read. A page without a performance page (its
 * load was not measured) does not list them; its accessibility task still says what it missed.
 */
export function withAccessibilityBudgetLines(outcome: FunctionalOutcome, results: readonly AccessibilityResult[]): FunctionalOutcome {
  const byPage = new Map(results.filter((r) => r.budgets?.length).map((r) => [r.page.page_url, r.budgets!]));
  if (!byPage.size || !outcome.performance) return outcome;
  const pages = outcome.performance.pages.map((p) => {
    const lines = byPage.get(p.page_url);
    return lines ? { ...p, budgets: [...(p.budgets ?? []), ...lines] } : p;
  });
  return { ...outcome, performance: { ...outcome.performance, pages } };
}
