/**
 * `GET /scan/{id}/reports/{format}`: a finished scan rendered by one format of the report registry
 * (reports/formats/): html, json, csv, sarif, junit. `GET /scan/{id}/export` (the contract's html, json
 * and csv) renders through the same registry.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { StoredScan } from '../../domain/stored-scan.js';
import type { ReportFormat } from '../../reports/format.js';
import { REPORT_FORMATS, reportFilename } from '../../reports/formats/index.js';
import { ApiError } from '../errors.js';
import { ownScan, triagedViewContext } from '../route-context.js';
import { embeddedScanReport, scanReport, type ViewContext } from '../scan-views.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../schemas/common.js';
import { ReportParams } from '../schemas/reports.js';
import { ResultsBody } from '../schemas/scans.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

/** Renders a finished scan in `format` and sends it as a download; 409 while it runs (and for a completed-only format of a failed scan). */
export async function sendReport(services: Services, view: ViewContext, scan: StoredScan, format: ReportFormat, reply: FastifyReply): Promise<FastifyReply> {
  if (scan.status === 'queued' || scan.status === 'running') {
    throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; export it once it has finished`);
  }
  if (format.completedOnly && scan.status !== 'completed') {
    throw new ApiError(
      409,
      'SCAN_NOT_COMPLETE',
      `Scan ${scan.id} is ${scan.status}: a ${format.id} report of it would read as a complete scan with no findings; see its results for why it did not complete`,
    );
  }
  // Reports that show screenshots embed them (data: URIs): the file is read offline, long after signed links expire.
  const model = format.embedsImages ? await embeddedScanReport(scan, view, services.artifacts) : scanReport(scan, view);
  return reply
    .type(format.contentType)
    .header('Content-Disposition', `attachment; filename="${reportFilename(scan.id, format)}"`)
    .send(format.render(model));
}

/** The outline of a SARIF 2.1.0 log (the full schema is OASIS's: https://json.schemastore.org/sarif-2.1.0.json). */
const SarifLog = {
  type: 'object',
  title: 'SarifLog',
  description: 'SARIF 2.1.0: one run, its tool (Vigil, with the checks as rules), results and invocation (executionSuccessful false for a failed scan)',
  required: ['version', 'runs'],
  properties: {
    $schema: { type: 'string' },
    version: { type: 'string', enum: ['2.1.0'] },
    runs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tool', 'results'],
        properties: {
          tool: {
            type: 'object',
            properties: {
              driver: {
                type: 'object',
                properties: { name: { type: 'string' }, rules: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } },
              },
            },
          },
          results: {
            type: 'array',
            items: {
              type: 'object',
              properties: { ruleId: { type: 'string' }, level: { type: 'string' }, message: { type: 'object', properties: { text: { type: 'string' } } } },
            },
          },
          invocations: { type: 'array', items: { type: 'object', properties: { executionSuccessful: { type: 'boolean' } } } },
        },
      },
    },
  },
} as const;

export async function reportRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/scan/:id/reports/:format',
    {
      schema: {
        tags: ['scans'],
        summary: 'A finished scan as a report file: HTML, JSON, CSV, SARIF or JUnit',
        description: `One registry of report formats, the same the dashboard and the CLI use. ${REPORT_FORMATS.map((f) => `\`${f.id}\` (${f.contentType}): ${f.description}.`).join(' ')} GET /scan/{id}/export serves html, json and csv as the contract defines it.`,
        params: ReportParams,
        response: {
          200: {
            description: `The report file (${REPORT_FORMATS.map((f) => f.contentType.split(';')[0]).join(', ')}), with a Content-Disposition filename`,
            headers: { 'Content-Disposition': { type: 'string', description: 'attachment; filename="vigil-<scan_id>.<extension>"' } },
            // One media type per format; json is exactly the results body.
            content: Object.fromEntries(
              REPORT_FORMATS.map((f) => {
                const type = f.contentType.split(';')[0]!;
                const schema =
                  f.id === 'json' ? ResultsBody : f.id === 'sarif' ? SarifLog : { type: 'string', contentMediaType: type, description: f.description };
                return [type, { schema }];
              }),
            ),
          },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            404: 'No such scan for this tenant',
            409: 'The scan has not finished, or (sarif) it did not complete (SCAN_NOT_COMPLETE)',
            422: `format is not one of ${REPORT_FORMATS.map((f) => f.id).join(', ')}`,
          }),
        },
      },
    },
    async (request, reply) => {
      const scan = await ownScan(services, request, request.params.id);
      const format = REPORT_FORMATS.find((f) => f.id === request.params.format)!;
      return sendReport(services, await triagedViewContext(services, request), scan, format, reply);
    },
  );
}
