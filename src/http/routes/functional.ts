import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { planHasFeature } from '../../domain/plans.js';
import type { StoredScan } from '../../domain/stored-scan.js';
import { ApiError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { functionalReport, functionalResultsBody, inProgressBody } from '../scan-views.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../schemas.js';
import type { Services } from '../services.js';
import { featureNotAvailable, ownScan, viewContext } from './scans.js';

const ScanIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'scan_id' }) });
type Params = { Params: Static<typeof ScanIdParams> };

const Loose = (description: string, example: Record<string, unknown>) => Type.Object({}, { additionalProperties: true, description, examples: [example] });

const SUB_REPORT_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  402: 'Sub-reports need the pro plan or above (FEATURE_NOT_AVAILABLE, with upgrade_url)',
  404: 'No such scan for this tenant',
  409: 'The scan has not finished (SCAN_NOT_COMPLETE) or was started in security mode (NOT_A_FUNCTIONAL_SCAN)',
};

function requireFunctional(scan: StoredScan): void {
  if (scan.mode === 'security') {
    throw new ApiError(409, 'NOT_A_FUNCTIONAL_SCAN', `Scan ${scan.id} was started in security mode; functional reports exist for functional and full scans`);
  }
}

export async function functionalRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get<Params>(
    '/scan/:id/functional-results',
    {
      schema: {
        tags: ['functional'],
        summary: 'Functional results: tasks and the three summaries',
        description: 'While the scan is queued or running, the in-progress form (`scan_id`, `status`, `progress_percent`); poll until `completed`.',
        params: ScanIdParams,
        response: {
          200: Loose('Functional results', {
            scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'completed', mode: 'functional', passed: 8, failed: 1, total: 9, elapsed_seconds: 14.2, agent_count: 3, tasks: [],
            visual_regression: { comparisons: 3, diffs_detected: 1, diff_threshold_percent: 0.5 },
            accessibility: { pages_scanned: 3, violations: 4, compliance_score: 91.3 },
            performance: { pages_tested: 3, performance_score: 88 },
          }),
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant', 409: 'Started in security mode (NOT_A_FUNCTIONAL_SCAN)' }),
        },
      },
    },
    async (request) => {
      const scan = await ownScan(services, request, request.params.id);
      requireFunctional(scan);
      if (scan.status === 'queued' || scan.status === 'running') return inProgressBody(scan);
      return functionalResultsBody(scan);
    },
  );

  const subReport = (path: string, summary: string, example: Record<string, unknown>, pick: (report: ReturnType<typeof functionalReport>) => Record<string, unknown>) =>
    app.get<Params>(
      path,
      { schema: { tags: ['functional'], summary, params: ScanIdParams, response: { 200: Loose(summary, example), ...errorResponses(SUB_REPORT_ERRORS) } } },
      async (request: FastifyRequest<Params>) => {
        const scan = await ownScan(services, request, request.params.id);
        const plan = tenantOf(request).plan;
        if (!planHasFeature(plan, 'detailed_reports')) throw featureNotAvailable(services, 'detailed_reports', `Detailed functional reports are not part of the ${plan} plan`);
        requireFunctional(scan);
        if (scan.status !== 'completed') throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; the report exists once it has completed`);
        const outcome = scan.results?.functional;
        if (!outcome) throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} has no functional results`);
        return { scan_id: scan.id, ...pick(functionalReport(outcome, scan.tenant_id, viewContext(services, request))) };
      },
    );

  subReport(
    '/scan/:id/visual-regression',
    'Visual regression report',
    { scan_id: 'scn_Vq3b9xk2Lm0aP1cD', comparisons: 1, diffs_detected: 1, diff_threshold_percent: 0.5, pages: [{ page_url: 'https://example.com/', diff_detected: true, diff_percent: 3.2, screenshot_before: 'https://vigil.example.com/api/v1/artifacts/art_...?tenant=acme&expires=...&signature=...', screenshot_after: '...', diff_image: '...' }] },
    (r) => ({ comparisons: r.visual_regression.comparisons, diffs_detected: r.visual_regression.diffs_detected, diff_threshold_percent: r.visual_regression.diff_threshold_percent, pages: r.visual_regression.pages }),
  );
  subReport(
    '/scan/:id/accessibility',
    'Accessibility report',
    { scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_scanned: 1, total_violations: 1, compliance_score: 92.5, wcag_level: 'wcag21aa', violations: [{ rule: 'image-alt', impact: 'critical', wcag: '1.1.1', page_url: 'https://example.com/', elements_affected: 2, description: 'Images must have alternate text', help_url: 'https://dequeuniversity.com/rules/axe/4.10/image-alt' }], pages: [{ page_url: 'https://example.com/', violations: 1, compliance_score: 92.5 }] },
    (r) => r.accessibility,
  );
  subReport(
    '/scan/:id/performance',
    'Performance report',
    { scan_id: 'scn_Vq3b9xk2Lm0aP1cD', pages_tested: 1, performance_score: 97, pages: [{ page_url: 'https://example.com/', performance_score: 97, lcp_ms: 820, fid_ms: 16, cls: 0.01, ttfb_ms: 40, fcp_ms: 610, tbt_ms: 0, si_ms: 700, tti_ms: 820, rating: 'good' }] },
    (r) => r.performance,
  );
}
