import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pagePathKey, scanBranch, viewportKey, type Baseline } from '../../domain/artifacts.js';
import { planHasFeature } from '../../domain/plans.js';
import type { StoredScan } from '../../domain/stored-scan.js';
import type { VisualPage } from '../../domain/scan.js';
import { recordAudit } from '../audit.js';
import { ApiError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { featureNotAvailable, ownScan, publicBase } from '../route-context.js';
import {
  APPROVE_ERRORS,
  ApproveBaselineBody,
  BaselineBody,
  BaselineIdParams,
  BaselineList,
  BaselineListQuery,
  DELETE_ERRORS,
  LIST_ERRORS,
} from '../schemas/baselines.js';
import { errorResponses, pageBody } from '../schemas/common.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

/** Visual baselines are part of visual regression detail: pro and above, like the sub-reports. */
function requireBaselineFeature(services: Services, request: FastifyRequest): string {
  const { id, plan } = tenantOf(request);
  if (!planHasFeature(plan, 'detailed_reports'))
    throw featureNotAvailable(services, 'detailed_reports', `Managing visual baselines is not part of the ${plan} plan`);
  return id;
}

/** The page of a completed functional scan's visual results, by page key or page URL; 404/409 otherwise. */
function comparedPage(scan: StoredScan, page: string): VisualPage {
  if (scan.mode === 'security')
    throw new ApiError(409, 'NOT_A_FUNCTIONAL_SCAN', `Scan ${scan.id} was started in security mode; it has no screenshots to approve`);
  if (scan.status !== 'completed')
    throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; a page can be approved once the scan has completed`);
  const found = scan.results?.functional?.visual.find((v) => pageKeyOf(v) === page || v.page_url === page);
  if (!found) throw new ApiError(404, 'NOT_FOUND', `Scan ${scan.id} has no screenshot of page ${page}`);
  return found;
}

/** Results stored before page keys carry none: their key is the URL's path and query. */
function pageKeyOf(page: VisualPage): string {
  return page.page_key ?? pagePathKey(page.page_url);
}

/** List, approve and delete visual baselines (docs/functional-testing.md, Baselines). */
export async function baselineRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const view = (request: FastifyRequest, tenantId: string, b: Baseline) => {
    const { id, artifact_id, ...rest } = b;
    return { baseline_id: id, ...rest, screenshot: services.artifactLinks.url(publicBase(services, request), tenantId, artifact_id) };
  };

  app.get(
    '/baselines',
    {
      schema: {
        tags: ['functional'],
        summary: 'List visual baselines',
        description:
          "The tenant's baselines, ordered by branch, page key, viewport and device. A baseline is kept per page key (path and query, or the label of an `options.pages` entry; never the host), viewport, device and branch.",
        querystring: BaselineListQuery,
        response: { 200: BaselineList, ...errorResponses(LIST_ERRORS) },
      },
    },
    async (request) => {
      const tenantId = requireBaselineFeature(services, request);
      const { page = 1, per_page: perPage = 20, branch, page_key } = request.query;
      const { items, total } = await services.baselines.list(tenantId, { branch, page_key }, page, perPage);
      return pageBody(
        'baselines',
        items.map((b) => view(request, tenantId, b)),
        total,
        request.query,
      );
    },
  );

  app.post(
    '/baselines/approve',
    {
      schema: {
        tags: ['functional'],
        summary: "Approve one page's screenshot as its baseline",
        description:
          "Makes the screenshot a completed functional or full scan took of one page the baseline of that page (its page key, viewport and device) on the scan's branch, or on `branch`; " +
          "later scans compare against it. The page is named by its `page_key` or its `page_url` in the scan's visual regression report. An existing baseline under the same key is replaced and keeps its id.",
        body: ApproveBaselineBody,
        response: { 200: BaselineBody, ...errorResponses(APPROVE_ERRORS) },
      },
    },
    async (request) => {
      const tenantId = requireBaselineFeature(services, request);
      const scan = await ownScan(services, request, request.body.scan_id);
      const page = comparedPage(scan, request.body.page);
      const key = {
        page_key: pageKeyOf(page),
        viewport: viewportKey(page.viewport),
        device: scan.input.options.device,
        branch: request.body.branch ?? scanBranch(scan.input.options),
      };
      const baseline = await services.baselines.set(tenantId, key, page.current_artifact, { page_url: page.page_url, scan_id: scan.id });
      request.log.info({ baseline: baseline.id, scan: scan.id, page_key: key.page_key, branch: key.branch }, 'visual baseline approved');
      await recordAudit(services, request, 'baseline.approved', baseline.id, { scan_id: scan.id, page_key: key.page_key, branch: key.branch });
      return view(request, tenantId, baseline);
    },
  );

  app.delete(
    '/baselines/:id',
    {
      schema: {
        tags: ['functional'],
        summary: 'Delete a visual baseline',
        description:
          "The next scan of the page sets a new baseline (on a branch: it compares against the default branch's first). The screenshot itself stays, for the reports that show it.",
        params: BaselineIdParams,
        response: { 204: { description: 'Deleted', type: 'null' }, ...errorResponses(DELETE_ERRORS) },
      },
    },
    async (request, reply) => {
      const tenantId = requireBaselineFeature(services, request);
      if (!(await services.baselines.delete(tenantId, request.params.id))) throw new ApiError(404, 'NOT_FOUND', `Baseline ${request.params.id} not found`);
      await recordAudit(services, request, 'baseline.deleted', request.params.id);
      return reply.code(204).send();
    },
  );
}
