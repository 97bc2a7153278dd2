import type { IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ScanInput, ScanMode } from '../../domain/scan.js';
import { reportFormat } from '../../reports/formats/index.js';
import { recordAudit } from '../audit.js';
import { ApiError, validationError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { formToRequest } from '../scan-form.js';
import { checkScanRequestSchema, normalizeScanRequest } from '../scan-request.js';
import { ownScan, triagedViewContext } from '../route-context.js';
import { ciField, inProgressBody, resultsBody, scanReport, statusBody } from '../scan-views.js';
import { scanChanges } from '../../reports/changes.js';
import { applicableSuppressions } from '../../domain/suppressions.js';
import { sendReport } from './reports.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses, pageBody } from '../schemas/common.js';
import { ScanRequestSchema } from '../schemas/scan-request.js';
import {
  ExportQuery,
  ResultsBody,
  ScanChangesBody,
  START_ERRORS,
  ScanIdParams,
  ScanList,
  ScanListQuery,
  ScanStarted,
  ScanStatusBody,
  ScanUploadForm,
} from '../schemas/scans.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

async function startScan(services: Services, request: FastifyRequest, reply: FastifyReply, input: ScanInput) {
  const { scan, status } = await services.scanService.start(tenantOf(request).id, input, request.idempotencyKey);
  request.log.info({ scan_id: scan.id, mode: scan.mode }, 'scan admitted');
  await recordAudit(services, request, 'scan.started', scan.id, { mode: scan.mode, url: scan.url });
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
      "The first security or full scan of an API specification not scanned this period also counts one against the plan's API-specification quota " +
      '(free 1, pro 5, team and enterprise unlimited; over it: 402 QUOTA_EXCEEDED); a specification is identified by its title, servers and operation set, its spec_url, or the target origin (docs/api.md). ' +
      'Poll `GET /scan/{id}/results` every 5-10 s until `status` is final.',
  );
  startRoute(
    '/security-scan',
    'security',
    'Start a security scan',
    'Same as POST /scan with mode `security` (pro plan and above); a `mode` field is ignored.',
    'security',
  );
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
        response: {
          202: { ...ScanStarted, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...START_ERRORS, 413: 'spec_file is larger than VIGIL_SPEC_MAX_BYTES', 415: 'Not multipart/form-data' }),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data with spec_file and base_url');
      const fields: Array<[string, string]> = [];
      let spec: string | undefined;
      const ending = watchMultipartEnding(request.raw);
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'spec_file')
              throw validationError([{ field: part.fieldname, message: 'is not a known file field; send the specification as spec_file' }]);
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
        if (code === 'FST_PROTO_VIOLATION')
          throw validationError([
            { field: '(field name)', message: 'is reserved (__proto__, constructor, toString, ...): send only the documented field names' },
          ]);
        // Whether a cut body surfaces here ("Unexpected end of form") or not at all depends on where the
        // cut falls in the reader's chunks: both are told as the same truncation.
        if (!ending.closed(multipartBoundary(request.headers['content-type']))) throw truncatedMultipart();
        throw new ApiError(400, 'INVALID_REQUEST', 'The multipart body could not be read');
      }
      // The multipart reader drops a last field cut short without an error: a truncated form must not start a scan without it.
      if (!ending.closed(multipartBoundary(request.headers['content-type']))) throw truncatedMultipart();
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
      config: { scanStatus: true },
      schema: {
        tags: ['scans'],
        summary: 'Scan status',
        description:
          "The scan's state (`queued`, `running`, `completed`, `failed`, `cancelled`) and timestamps; while running, how far it is. 404 for an unknown id of any length or another tenant's scan.",
        params: ScanIdParams,
        response: {
          200: { ...ScanStatusBody, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }),
        },
      },
    },
    async (request) => {
      // Authenticated by key, the status came with the key; by a session cookie, it is read now.
      const read = request.scanStatus;
      const scan = read?.id === request.params.id ? read.scan : await services.scans.status(tenantOf(request).id, request.params.id);
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
        description:
          'While queued or running, the in-progress form (`scan_id`, `status`, `mode`, `url`, `progress_percent`): poll every 5-10 s until `status` is final. Then the counts, tasks and, by mode and plan, the security, visual_regression, accessibility and performance sections.',
        params: ScanIdParams,
        response: { 200: ResultsBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }) },
      },
    },
    async (request) => {
      const scan = await ownScan(services, request, request.params.id);
      if (scan.status === 'queued' || scan.status === 'running') return inProgressBody(scan);
      // The finished body is an open record (sections by mode and plan); the schema documents its known fields.
      return resultsBody(scan, await triagedViewContext(services, request)) as Static<typeof ResultsBody>;
    },
  );

  app.post(
    '/scan/:id/cancel',
    {
      schema: {
        tags: ['scans'],
        summary: 'Cancel a queued or running scan',
        description:
          'The scan becomes `cancelled` at once and its engine is stopped. It stays counted against the quota. Cancelling a finished scan returns it unchanged.',
        params: ScanIdParams,
        response: { 200: ScanStatusBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant' }) },
      },
    },
    async (request) => {
      const scan = await services.scanService.cancel(tenantOf(request).id, request.params.id);
      if (!scan) throw new ApiError(404, 'NOT_FOUND', `Scan ${request.params.id} not found`);
      await recordAudit(services, request, 'scan.cancelled', scan.id, { status: scan.status });
      return statusBody(scan);
    },
  );

  app.get(
    '/scans',
    {
      schema: {
        tags: ['scans'],
        summary: 'List scans, most recent first',
        description:
          "The tenant's scans, most recent first, filtered by status, mode, target or CI branch, a page at a time (`page` from 1, `per_page` 1-100, default 20).",
        querystring: ScanListQuery,
        response: {
          200: { ...ScanList, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 422: 'page outside 1-1000000, per_page outside 1-100, or an unknown status or mode' }),
        },
      },
    },
    async (request) => {
      const { status, mode, target, branch, page = 1, per_page: perPage = 20 } = request.query;
      const { items, total } = await services.scans.list(tenantOf(request).id, status, page, perPage, { mode, url: target, branch });
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
        ...ciField(s),
      }));
      return pageBody('scans', scans, total, request.query);
    },
  );

  app.get(
    '/scan/:id/changes',
    {
      schema: {
        tags: ['scans'],
        summary: 'Findings new, fixed and still open since the previous scan',
        description:
          "A completed scan's findings against the previous completed scan of the same target (URL and mode) and CI branch: " +
          "the latest on the same branch; for a branch's first scan, the latest on its `ci.base_branch`; else the latest of the target on any branch " +
          "(`previous.basis` says which; null for the target's first scan: every finding is new). Findings are matched by fingerprint; " +
          'each carries its triage (`suppressed`, with the `suppression_id` to un-suppress it), judged now. 409 SCAN_NOT_COMPLETE until the scan has completed.',
        params: ScanIdParams,
        response: {
          200: { ...ScanChangesBody, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 404: 'No such scan for this tenant', 409: 'The scan has not completed (SCAN_NOT_COMPLETE)' }),
        },
      },
    },
    async (request) => {
      const scan = await ownScan(services, request, request.params.id);
      if (scan.status !== 'completed')
        throw new ApiError(409, 'SCAN_NOT_COMPLETE', `Scan ${scan.id} is ${scan.status}; its changes are known once it has completed`);
      const view = await triagedViewContext(services, request);
      const previous = await services.scans.previousCompleted(scan);
      const ids = new Map(
        applicableSuppressions(view.triage?.suppressions ?? [], scan.url, view.triage?.now ?? services.clock()).map((s) => [s.fingerprint, s.id]),
      );
      return scanChanges(scanReport(scan, view), previous && { report: scanReport(previous.scan, view), basis: previous.basis }, ids);
    },
  );

  app.get(
    '/scan/:id/export',
    {
      schema: {
        tags: ['scans'],
        summary: 'Export a finished scan as HTML, JSON or CSV',
        description:
          'JSON is the results body (the same document GET /scan/{id}/results returns); CSV has one row per task (cells that could start a spreadsheet formula are neutralised); HTML is a self-contained report that renders offline.',
        params: ScanIdParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The report file, with a Content-Disposition filename: format=json the results body, html a self-contained page, csv one row per task',
            headers: { 'Content-Disposition': { type: 'string', description: 'attachment; filename="vigil-<scan_id>.<format>"' } },
            content: {
              'application/json': { schema: ResultsBody },
              'text/html': { schema: { type: 'string', contentMediaType: 'text/html', description: 'Self-contained HTML report (no external assets)' } },
              'text/csv': {
                schema: { type: 'string', contentMediaType: 'text/csv', description: 'One row per task; cells that could start a formula are neutralised' },
              },
            },
          },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            404: 'No such scan for this tenant',
            409: 'The scan has not finished (SCAN_NOT_COMPLETE)',
            422: 'format is not html, json or csv',
          }),
        },
      },
    },
    async (request, reply) => {
      const scan = await ownScan(services, request, request.params.id);
      // The contract's three formats, rendered by the report registry (JSON is exactly the results body).
      return sendReport(services, await triagedViewContext(services, request), scan, reportFormat(request.query.format ?? 'json')!, reply);
    },
  );
}

function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/**
 * Keeps the last bytes of a multipart body as the multipart reader reads it, to tell whether the body
 * reached its closing delimiter. The observer is attached when the reader pipes the request (never
 * before, so no chunk is taken from the reader); the reader is the request's only consumer.
 */
function truncatedMultipart(): ApiError {
  return new ApiError(400, 'INVALID_REQUEST', 'The multipart body ends before its closing boundary (truncated)');
}

function watchMultipartEnding(raw: IncomingMessage): { closed(boundary: string | undefined): boolean } {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('latin1')).slice(-256);
  };
  const pipe = raw.pipe;
  raw.pipe = function pipeAndWatch<T extends NodeJS.WritableStream>(this: IncomingMessage, destination: T, options?: { end?: boolean }): T {
    raw.pipe = pipe;
    raw.on('data', keep);
    return pipe.call(this, destination, options) as T;
  };
  return {
    closed: (boundary) => {
      raw.pipe = pipe;
      raw.off('data', keep);
      return boundary !== undefined && tail.includes(`--${boundary}--`);
    },
  };
}
