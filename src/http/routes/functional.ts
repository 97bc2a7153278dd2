import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { planHasFeature } from '../../domain/plans.js';
import type { StoredScan } from '../../domain/stored-scan.js';
import { ApiError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { featureNotAvailable, ownScan, triagedViewContext } from '../route-context.js';
import { functionalReport, functionalResultsBody, inProgressBody } from '../scan-views.js';
import { errorResponses } from '../schemas/common.js';
import {
  AccessibilityReport,
  FUNCTIONAL_RESULTS_ERRORS,
  FunctionalResults,
  PerformanceReport,
  SUB_REPORT_ERRORS,
  VisualRegressionReport,
} from '../schemas/functional.js';
import { ScanIdParams } from '../schemas/scans.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

function requireFunctional(scan: StoredScan): void {
  if (scan.mode === 'security') {
    throw new ApiError(409, 'NOT_A_FUNCTIONAL_SCAN', `Scan ${scan.id} was started in security mode; functional reports exist for functional and full scans`);
  }
}

export async function functionalRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/scan/:id/functional-results',
    {
      schema: {
        tags: ['functional'],
        summary: 'Functional results: tasks and the three summaries',
        description:
          'While the scan is queued or running, the in-progress form (`scan_id`, `status`, `mode`, `url`, `progress_percent`); poll until `completed`.',
        params: ScanIdParams,
        response: {
          200: FunctionalResults,
          ...errorResponses(FUNCTIONAL_RESULTS_ERRORS),
        },
      },
    },
    async (request) => {
      const scan = await ownScan(services, request, request.params.id);
      requireFunctional(scan);
      if (scan.status === 'queued' || scan.status === 'running') return inProgressBody(scan);
      return functionalResultsBody(scan) as Static<typeof FunctionalResults>;
    },
  );

  const subReport = (path: string, summary: string, report: TSchema, pick: (report: ReturnType<typeof functionalReport>) => Record<string, unknown>) =>
    app.get(
      path,
      {
        schema: {
          tags: ['functional'],
          summary,
          description: `${summary} of a completed functional or full scan (pro plan and above). 409 SCAN_NOT_COMPLETE while it runs, NOT_A_FUNCTIONAL_SCAN for a security scan.`,
          params: ScanIdParams,
          response: { 200: report, ...errorResponses(SUB_REPORT_ERRORS) },
        },
      },
      async (request) => {
        const scan = await ownScan(services, request, request.params.id);
        const plan = tenantOf(request).plan;
        if (!planHasFeature(plan, 'detailed_reports'))
          throw featureNotAvailable(services, 'detailed_reports', `Detailed functional reports are not part of the ${plan} plan`);
        requireFunctional(scan);
        if (scan.status !== 'completed')
          throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; the report exists once it has completed`);
        const outcome = scan.results?.functional;
        if (!outcome) throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} has no functional results`);
        return { scan_id: scan.id, ...pick(functionalReport(outcome, scan.tenant_id, await triagedViewContext(services, request), scan.url)) };
      },
    );

  subReport('/scan/:id/visual-regression', 'Visual regression report', VisualRegressionReport, (r) => ({
    comparisons: r.visual_regression.comparisons,
    diffs_detected: r.visual_regression.diffs_detected,
    diff_threshold_percent: r.visual_regression.diff_threshold_percent,
    pages: r.visual_regression.pages,
  }));
  subReport('/scan/:id/accessibility', 'Accessibility report', AccessibilityReport, (r) => r.accessibility);
  subReport('/scan/:id/performance', 'Performance report', PerformanceReport, (r) => r.performance);
}
