/** The accessibility audit: a page's violations, needs-review results and compliance score from its axe results (accessibility/audit.ts). */
import { auditAccessibility, type AccessibilityAudit } from '../accessibility/audit.js';
import { accessibilityScore } from '../accessibility/score.js';
import type { Audit } from '../types.js';

export interface AccessibilityResult extends AccessibilityAudit {
  engine: { name: 'axe-core'; version: string };
}

export const accessibilityAudit: Audit<AccessibilityResult> = {
  id: 'accessibility',
  title: (o) => `Accessibility (${o.accessibility_profile})`,
  requires: ['axe'],
  run({ axe }, { url }) {
    const audit = auditAccessibility(url, axe);
    return {
      result: { ...audit, engine: axe.engine },
      failure: audit.violations.length ? `${audit.violations.length} violation(s)` : undefined,
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
