import multipart from '@fastify/multipart';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ScanInput, ScanMode } from '../../domain/scan.js';
import { renderJsonExport, renderReport, type ExportFormat } from '../../reports/index.js';
import { ApiError, validationError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { formToRequest } from '../scan-form.js';
import { checkScanRequestSchema, normalizeScanRequest } from '../scan-request.js';
import { ownScan, viewContext } from '../route-context.js';
import { embeddedScanReport, inProgressBody, resultsBody, scanReport, statusBody } from '../scan-views.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses, pageBody } from '../schemas/common.js';
import { ScanRequestSchema } from '../schemas/scan-request.js';
import { ExportQuery, ResultsBody, START_ERRORS, ScanIdParams, ScanList, ScanListQuery, ScanStarted, ScanStatusBody, ScanUploadForm } from '../schemas/scans.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

async function startScan(services: Services, request: FastifyRequest, reply: FastifyReply, input: ScanInput) {
  const { scan, status } = await services.scanService.start(tenantOf(request).id, input);
  request.log.info({ scan_id: scan.id, mode: scan.mode }, 'scan admitted');
  return reply.code(202).send({ scan_id: scan.id, status: status === 'queued' ? 'queued' : 'running', created_at: scan.created_at, mode: scan.mode });
}

export async function scanRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const specMax = services.config.specMaxBytes;
  const specLimits = { specMaxBytes: specMax, specMaxOperations: services.config.specMaxOperations };
  await app.register(multipart, { limits: { fileSize: specMax, files: 1, fields: 100, fieldSize: 64 * 1024 } });

  const startRoute = (path: string, tag: string, summary: string, description: string, forcedMode?: ScanMode) =>
    app.post(
      path,
      {
        schema: {
          tags: [tag],
          summary,
          description,
          body: ScanRequestSchema,
          response: { 202: { ...ScanStarted, headers: RATE_LIMIT_HEADERS }, ...errorResponses(START_ERRORS) },
        },
      },
      async (request, reply) => startScan(services, request, reply, normalizeScanRequest(request.body, specLimits, forcedMode)),
    );

  startRoute(
    '/scan',
    'scans',
    'Start a scan',
    'Admission order: plan feature (402 FEATURE_NOT_AVAILABLE), quota (402 QUOTA_EXCEEDED), scans at once (429 CONCURRENT_LIMIT). ' +
      'On admission one scan is counted (a `full` scan counts one functional and one security scan) and 202 returns the scan. ' +
      'Poll `GET /scan/{id}/results` every 5-10 s until `status` is final.',
  );
  startRoute('/security-scan', 'security', 'Start a security scan', 'Same as POST /scan with mode `security` (pro plan and above); a `mode` field is ignored.', 'security');
  startRoute('/functional/run', 'functional', 'Start a functional scan', 'Same as POST /scan with mode `functional`; a `mode` field is ignored.', 'functional');

  app.post(
    '/scan/upload',
    {
      // The form is validated by the same scan request schema after it is read (see formToRequest).
      validatorCompiler: () => () => true,
      schema: {
        tags: ['scans'],
        summary: 'Start a scan with an uploaded specification (multipart)',
        description:
          'multipart/form-data with `spec_file` (the OpenAPI/Swagger document, JSON or YAML, at most VIGIL_SPEC_MAX_BYTES) and ' +
          '`base_url` (or `url`). Every other start field may be sent as a form field: `mode`, `reset_baseline`, `auth` and `options` ' +
          'as JSON text or as dotted names (`auth.type`, `auth.token`, `options.timeout`), and option names on their own ' +
          '(`concurrency`, `timeout`, `fail_on`, `exclude` repeated, ...). Same admission and responses as POST /scan.',
        consumes: ['multipart/form-data'],
        body: ScanUploadForm,
        response: { 202: { ...ScanStarted, headers: RATE_LIMIT_HEADERS }, ...errorResponses({ ...START_ERRORS, 413: 'spec_file is larger than VIGIL_SPEC_MAX_BYTES', 415: 'Not multipart/form-data' }) },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data with spec_file and base_url');
      const fields: Array<[string, string]> = [];
      let spec: string | undefined;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'spec_file') throw validationError([{ field: part.fieldname, message: 'is not a known file field; send the specification as spec_file' }]);
            const bytes = await part.toBuffer();
            if (part.file.truncated) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `spec_file is larger than ${specMax} bytes`);
            spec = bytes.toString('base64');
          } else {
            fields.push([part.fieldname, String(part.value)]);
          }
        }
      } catch (error) {
        if (error instanceof ApiError) throw error;
        const code = (error as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `spec_file is larger than ${specMax} bytes`);
        // The multipart reader refuses a field named after an Object.prototype property without saying which.
        if (code === 'FST_PROTO_VIOLATION') throw validationError([{ field: '(field name)', message: 'is reserved (__proto__, constructor, toString, ...): send only the documented field names' }]);
        throw new ApiError(400, 'INVALID_REQUEST', 'The multipart body could not be read');
      }
      if (spec === undefined && !fields.some(([name]) => name === 'spec_url')) {
        throw validationError([{ field: 'spec_file', message: 'is required (or give spec_url)' }]);
      }
      const body = checkScanRequestSchema(formToRequest(fields, spec));
      return startScan(services, request, reply, normalizeScanRequest(body, { ...specLimits, specField: 'spec_file' }));
    },
  );

  app.get(
    '/scan/:id',
    {
      schema: {
        tags: ['scans'],
        summary: 'Scan status',
        params: ScanIdParams,
        response: { 200: { ...ScanStatusBody, headers: RATE_LIMIT_HEADERS }, ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }) },
      },
    },
    async (request) => {
      const scan = await services.scans.status(tenantOf(request).id, request.params.id);
      if (!scan) throw new ApiError(404, 'NOT_FOUND', `Scan ${request.params.id} not found`);
      return statusBody(scan);
    },
  );

  app.get(
    '/scan/:id/results',
    {
      schema: {
        tags: ['scans'],
        summary: 'Scan results (in-progress or final form)',
        params: ScanIdParams,
        response: { 200: ResultsBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }) },
      },
    },
    async (request) => {
      const scan = await ownScan(services, request, request.params.id);
      if (scan.status === 'queued' || scan.status === 'running') return inProgressBody(scan);
      // The finished body is an open record (sections by mode and plan); the schema documents its known fields.
      return resultsBody(scan, viewContext(services, request)) as Static<typeof ResultsBody>;
    },
  );

  app.post(
    '/scan/:id/cancel',
    {
      schema: {
        tags: ['scans'],
        summary: 'Cancel a queued or running scan',
        description: 'The scan becomes `cancelled` at once and its engine is stopped. It stays counted against the quota. Cancelling a finished scan returns it unchanged.',
        params: ScanIdParams,
        response: { 200: ScanStatusBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }) },
      },
    },
    async (request) => {
      const scan = await services.scanService.cancel(tenantOf(request).id, request.params.id);
      if (!scan) throw new ApiError(404, 'NOT_FOUND', `Scan ${request.params.id} not found`);
      return statusBody(scan);
    },
  );

  app.get(
    '/scans',
    {
      schema: {
        tags: ['scans'],
        summary: 'List scans, most recent first',
        querystring: ScanListQuery,
        response: { 200: { ...ScanList, headers: RATE_LIMIT_HEADERS }, ...errorResponses({ ...AUTHENTICATED_ERRORS, 422: 'page outside 1-1000000, per_page outside 1-100, or an unknown status or mode' }) },
      },
    },
    async (request) => {
      const { status, mode, target, page = 1, per_page: perPage = 20 } = request.query;
      const { items, total } = await services.scans.list(tenantOf(request).id, status, page, perPage, { mode, url: target });
      const scans = items.map((s) => ({
        scan_id: s.id,
        status: s.status,
        mode: s.mode,
        url: s.url,
        created_at: s.created_at,
        updated_at: s.updated_at,
        completed_at: s.completed_at,
        passed: s.passed,
        failed: s.failed,
        total: s.total,
        progress_percent: s.progress,
      }));
      return pageBody('scans', scans, total, request.query);
    },
  );

  app.get(
    '/scan/:id/export',
    {
      schema: {
        tags: ['scans'],
        summary: 'Export a finished scan as HTML, JSON or CSV',
        description: 'JSON is the results body (the same document GET /scan/{id}/results returns); CSV has one row per task (cells that could start a spreadsheet formula are neutralised); HTML is a self-contained report that renders offline.',
        params: ScanIdParams,
        querystring: ExportQuery,
        response: {
          200: { description: 'The report file (text/html, application/json or text/csv), with a Content-Disposition filename', type: 'string' },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant', 409: 'The scan has not finished (SCAN_NOT_COMPLETE)', 422: 'format is not html, json or csv' }),
        },
      },
    },
    async (request, reply) => {
      const scan = await ownScan(services, request, request.params.id);
      if (scan.status === 'queued' || scan.status === 'running') {
        throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; export it once it has finished`);
      }
      const format: ExportFormat = request.query.format ?? 'json';
      const view = viewContext(services, request);
      // JSON is exactly the results body (what GET /scan/{id}/results returns), so a saved export and the API agree.
      // HTML embeds the screenshots and diff images (data: URIs): the file is read offline, long after signed links expire.
      const file =
        format === 'json'
          ? renderJsonExport(scan.id, resultsBody(scan, view))
          : renderReport(format === 'html' ? await embeddedScanReport(scan, view, services.artifacts) : scanReport(scan, view), format);
      return reply.type(file.contentType).header('Content-Disposition', `attachment; filename="${file.filename}"`).send(file.body);
    },
  );
}
