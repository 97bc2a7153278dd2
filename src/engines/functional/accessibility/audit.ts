/**
 * The accessibility audit: a pure function over one page's axe results. Violations with their
 * nodes, the rules that need review, each rule's outcome once, and the page's compliance score by
 * Lighthouse's recipe (score.ts).
 */
import type { AccessibilityNode, AccessibilityPage, AccessibilityReviewItem, AccessibilityViolation } from '../../../domain/scan.js';
import type { AxeGathered, AxeRuleResult } from './gather.js';
import { accessibilityScore, wcagCriterion, type Impact, type RuleStatus } from './score.js';

export interface AccessibilityAudit {
  page: AccessibilityPage;
  violations: AccessibilityViolation[];
  needsReview: AccessibilityReviewItem[];
  /** Every rule axe ran on the page, once each, for the scan's overall score. */
  rules: RuleStatus[];
}

const nodesOf = (r: AxeRuleResult): AccessibilityNode[] => r.nodes.map((n) => ({ target: n.target, html: n.html, failure_summary: n.failureSummary }));

export function auditAccessibility(pageUrl: string, ax: AxeGathered): AccessibilityAudit {
  const violations: AccessibilityViolation[] = ax.violations.map((v) => ({
    rule: v.id,
    // axe gives every violation an impact; a rule without one is reported as moderate.
    impact: v.impact ?? 'moderate',
    wcag: wcagCriterion(v.tags),
    page_url: pageUrl,
    elements_affected: v.nodeCount,
    description: v.description,
    help_url: v.helpUrl,
    nodes: nodesOf(v),
  }));
  const needsReview: AccessibilityReviewItem[] = ax.incomplete.map((r) => ({
    rule: r.id,
    impact: r.impact as Impact | null,
    wcag: wcagCriterion(r.tags),
    page_url: pageUrl,
    elements_affected: r.nodeCount,
    description: r.description,
    help_url: r.helpUrl,
    nodes: nodesOf(r),
    ...(r.error !== undefined ? { error: r.error } : {}),
  }));
  const rules: RuleStatus[] = [
    ...ax.passes.map((rule) => ({ rule })),
    ...ax.inapplicable.map((rule) => ({ rule, inapplicable: true })),
    ...ax.incomplete.map((r) => ({ rule: r.id, errored: r.error !== undefined })),
    ...ax.violations.map((r) => ({ rule: r.id, violated: true })),
  ];
  return {
    page: { page_url: pageUrl, violations: violations.length, needs_review: needsReview.length, compliance_score: accessibilityScore([rules]) },
    violations,
    needsReview,
    rules,
  };
}
