/** Schemas of the functional results and the visual regression, accessibility and performance sub-reports. */
import { Type } from '@sinclair/typebox';
import { AUTHENTICATED_ERRORS } from './common.js';

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
  pages: [{ page_url: 'https://example.com/', diff_detected: true, diff_percent: 3.2, screenshot_before: 'https://vigil.example.com/api/v1/artifacts/art_...?tenant=acme&expires=...&signature=...', screenshot_after: '...', diff_image: '...' }],
});

export const AccessibilityReport = Loose('Accessibility report', {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_scanned: 1, total_violations: 1, compliance_score: 92.5, wcag_level: 'wcag21aa',
  violations: [{ rule: 'image-alt', impact: 'critical', wcag: '1.1.1', page_url: 'https://example.com/', elements_affected: 2, description: 'Images must have alternate text', help_url: 'https://dequeuniversity.com/rules/axe/4.10/image-alt' }],
  pages: [{ page_url: 'https://example.com/', violations: 1, compliance_score: 92.5 }],
});

export const PerformanceReport = Loose('Performance report', {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_tested: 1, performance_score: 97,
  pages: [{ page_url: 'https://example.com/', performance_score: 97, lcp_ms: 820, fid_ms: 16, cls: 0.01, ttfb_ms: 40, fcp_ms: 610, tbt_ms: 0, si_ms: 700, tti_ms: 820, rating: 'good' }],
});

export const SUB_REPORT_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  402: 'Sub-reports need the pro plan or above (FEATURE_NOT_AVAILABLE, with upgrade_url)',
  404: 'No such scan for this tenant',
  409: 'The scan has not finished (SCAN_NOT_COMPLETE) or was started in security mode (NOT_A_FUNCTIONAL_SCAN)',
};
