/** Schemas of the functional results and the visual regression, accessibility and performance sub-reports. */
import { Type } from '@sinclair/typebox';
import { AUTHENTICATED_ERRORS } from './common.js';
import { ACCESSIBILITY_REVIEW_EXAMPLE, ACCESSIBILITY_VIOLATION_EXAMPLE, AccessibilityEngineSchema, AccessibilityReviewSchema, AccessibilityViolationSchema } from './results.js';

/** An object documented by its example: the report sections grow with the engines. */
const Loose = (description: string, example: Record<string, unknown>) => Type.Object({}, { additionalProperties: true, description, examples: [example] });

export const FunctionalResults = Loose('Functional results', {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'completed', mode: 'functional', passed: 8, failed: 1, total: 9, elapsed_seconds: 14.2, agent_count: 3, tasks: [],
  visual_regression: { comparisons: 3, diffs_detected: 1, diff_threshold_percent: 0.5 },
  accessibility: { pages_scanned: 3, violations: 4, compliance_score: 91.3 },
  performance: { pages_tested: 3, performance_score: 88 },
});

export const FUNCTIONAL_RESULTS_ERRORS = { ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant', 409: 'Started in security mode (NOT_A_FUNCTIONAL_SCAN)' };

export const VisualRegressionReport = Loose('Visual regression report', {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD', comparisons: 1, diffs_detected: 1, diff_threshold_percent: 0.5,
  pages: [
    {
      page_url: 'https://example.com/', page_key: '/', baseline_branch: 'main', diff_detected: true, diff_percent: 0.06, screenshot_before: 'https://vigil.example.com/api/v1/artifacts/art_...?tenant=acme&expires=...&signature=...', screenshot_after: '...', diff_image: '...', diff_thumbnail: '...',
      regions: [{ x: 465, y: 104, width: 116, height: 33, changed_pixels: 1108 }], min_region_px: 150, unstable: false, moving_regions: [], hint: null,
    },
  ],
});

export const AccessibilityReport = Type.Object(
  {
    scan_id: Type.String(),
    pages_scanned: Type.Integer(),
    total_violations: Type.Integer(),
    compliance_score: Type.Union([Type.Number(), Type.Null()], { description: 'Lighthouse\'s accessibility score over the rules axe-core ran, all pages together (0-100); null when no page was audited' }),
    wcag_level: Type.String({ description: 'The profile: wcag21aa, wcag22aa or section508' }),
    engine: AccessibilityEngineSchema,
    violations: Type.Array(AccessibilityViolationSchema),
    total_needs_review: Type.Integer({ description: 'Rules axe-core could not decide on some elements, all pages together' }),
    needs_review: Type.Array(AccessibilityReviewSchema),
    pages: Type.Array(
      Type.Object(
        {
          page_url: Type.String(),
          violations: Type.Integer({ description: 'Rules violated on the page' }),
          needs_review: Type.Optional(Type.Integer({ description: 'Rules needing review on the page' })),
          compliance_score: Type.Number(),
        },
        { additionalProperties: true },
      ),
    ),
  },
  {
    additionalProperties: true,
    description: 'Accessibility report: each violation with its elements (selector, HTML, what to fix), the needs-review results apart, the axe-core version that ran',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_scanned: 1, total_violations: 1, compliance_score: 91, wcag_level: 'wcag21aa', engine: { name: 'axe-core', version: '4.14.1' },
        violations: [ACCESSIBILITY_VIOLATION_EXAMPLE], total_needs_review: 1, needs_review: [ACCESSIBILITY_REVIEW_EXAMPLE],
        pages: [{ page_url: 'https://example.com/', violations: 1, needs_review: 1, compliance_score: 91 }],
      },
    ],
  },
);

export const PerformanceReport = Loose('Performance report', {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_tested: 1, performance_score: 97,
  pages: [{ page_url: 'https://example.com/', performance_score: 97, lcp_ms: 820, fid_ms: 16, cls: 0.01, ttfb_ms: 40, fcp_ms: 610, tbt_ms: 0, si_ms: 700, tti_ms: 820, rating: 'good', throttling: 'simulate', budgets: [{ metric: 'lcp', actual: 820, limit: 2500, kind: 'max', level: 'error', passed: true }] }],
});

export const SUB_REPORT_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  402: 'Sub-reports need the pro plan or above (FEATURE_NOT_AVAILABLE, with upgrade_url)',
  404: 'No such scan for this tenant',
  409: 'The scan has not finished (SCAN_NOT_COMPLETE) or was started in security mode (NOT_A_FUNCTIONAL_SCAN)',
};
