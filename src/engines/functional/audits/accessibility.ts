/** The accessibility audit: a page's violations and compliance score from its axe results. */
import type { AccessibilityPage, AccessibilityViolation } from '../../../domain/scan.js';
import { complianceScore, wcagCriterion, type Impact, type RuleOutcome } from '../accessibility/score.js';
import type { Audit } from '../types.js';

export interface AccessibilityResult {
  page: AccessibilityPage;
  violations: AccessibilityViolation[];
  /** Every applicable rule's outcome, for the scan's overall score. */
  rules: RuleOutcome[];
}

export const accessibilityAudit: Audit<AccessibilityResult> = {
  id: 'accessibility',
  title: (o) => `Accessibility (${o.accessibility_profile})`,
  requires: ['axe'],
  run({ axe }, { url }) {
    const rules: RuleOutcome[] = [];
    const violations: AccessibilityViolation[] = [];
    for (const r of axe.passes) rules.push({ impact: (r.impact as Impact) ?? null, passed: true });
    for (const v of axe.violations) {
      const impact = (v.impact ?? 'moderate') as Impact;
      rules.push({ impact, passed: false });
      violations.push({
        rule: v.id,
        impact,
        wcag: wcagCriterion(v.tags),
        page_url: url,
        elements_affected: v.nodes.length,
        description: v.description,
        help_url: v.helpUrl,
      });
    }
    return {
      result: { page: { page_url: url, violations: violations.length, compliance_score: complianceScore(rules) }, violations, rules },
      failure: violations.length ? `${violations.length} violation(s)` : undefined,
    };
  },
  summarize(results, scan) {
    return {
      accessibility: {
        wcag_level: scan.options.accessibility_profile,
        compliance_score: complianceScore(results.flatMap((r) => r.rules)),
        violations: results.flatMap((r) => r.violations),
        pages: results.map((r) => r.page),
      },
    };
  },
};
