import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConcurrentLimitError, FeatureNotAvailableError, QuotaExceededError } from '../domain/admission.js';
import { cheapestPlanWith, type Feature } from '../domain/plans.js';
import { BillingError } from '../billing/service.js';
import { isDiskFull, isStoreUnavailable } from '../store/database.js';
import { countRefusal } from '../observability/metrics.js';

/** An error a client can act on: rendered as `{error, message, status, ...extra}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * Seconds a client is told to wait after 429 CONCURRENT_LIMIT: a running scan's end cannot be predicted, so
 * this is the contract's suggested polling interval (5-10 s), the time after which a slot may have freed up.
 */
export const CONCURRENT_LIMIT_RETRY_SECONDS = 10;

/** A 429: the contract's rule 4 (every 429 carries `Retry-After`), with the same seconds in `retry_after`. */
export function tooManyRequests(code: string, message: string, retryAfterSeconds: number, extra: Record<string, unknown> = {}): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(429, code, message, { ...extra, retry_after: seconds }, { 'Retry-After': String(seconds) });
}

/** Any 429 that reached the error handler without a Retry-After gets one (and `retry_after` to match). */
function withRetryAfter(answer: ApiError): ApiError {
  if (answer.status !== 429 || Object.keys(answer.headers).some((h) => h.toLowerCase() === 'retry-after')) return answer;
  const given = answer.extra.retry_after;
  const seconds = typeof given === 'number' && Number.isInteger(given) && given > 0 ? given : CONCURRENT_LIMIT_RETRY_SECONDS;
  return tooManyRequests(answer.code, answer.message, seconds, answer.extra);
}

export function errorBody(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: code, message, status, ...extra };
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** A body can be wrong in many places; the first ones are enough to fix it, and listing all costs time. */
const MAX_FIELD_PROBLEMS = 50;

/** Turns Ajv errors into `[{field, message}]` with dotted field paths (`auth.token`, `options.timeout`). */
function fieldProblems(error: FastifyError): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const v of error.validation ?? []) {
    if (problems.length === MAX_FIELD_PROBLEMS) break;
    const base = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const params = v.params as Record<string, unknown>;
    let field = base;
    if (v.keyword === 'required' && typeof params.missingProperty === 'string') {
      field = base ? `${base}.${params.missingProperty}` : params.missingProperty;
    } else if (v.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      field = base ? `${base}.${params.additionalProperty}` : params.additionalProperty;
    }
    const where = error.validationContext && error.validationContext !== 'body' ? `${error.validationContext}.` : '';
    const message =
      v.keyword === 'required'
        ? 'is required'
        : v.keyword === 'additionalProperties'
          ? 'is not a known field'
          : v.keyword === 'enum'
            ? `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
            : (v.message ?? 'is invalid');
    const problem = { field: where + (field || '(root)'), message };
    const key = `${problem.field}\n${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'INVALID_REQUEST', 'Request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'INVALID_REQUEST', 'Request body is empty but Content-Type is application/json'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type; send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'INVALID_REQUEST', 'Content-Length does not match the body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than the server accepts'],
};

/** 402 FEATURE_NOT_AVAILABLE, with the link that upgrades to the cheapest plan that has the feature. */
export function featureNotAvailableError(appUrl: string, feature: Feature, message: string): ApiError {
  return new ApiError(402, 'FEATURE_NOT_AVAILABLE', message, { upgrade_url: `${appUrl}/billing?upgrade=${cheapestPlanWith(feature)}` });
}

/** The domain's refusals (domain/admission.ts) as the API answers them. */
function refusalError(error: unknown, appUrl: string): ApiError | undefined {
  if (error instanceof FeatureNotAvailableError) return featureNotAvailableError(appUrl, error.feature, error.message);
  if (error instanceof QuotaExceededError) return new ApiError(402, 'QUOTA_EXCEEDED', error.message, { quota_reset_date: error.resetDate });
  if (error instanceof ConcurrentLimitError) return tooManyRequests('CONCURRENT_LIMIT', error.message, CONCURRENT_LIMIT_RETRY_SECONDS);
  return undefined;
}

export function registerErrorHandling(app: FastifyInstance, settings: { appUrl: string }): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const refusal = error instanceof ApiError ? error : refusalError(error, settings.appUrl);
    if (refusal) {
      const answer = withRetryAfter(refusal);
      return reply
        .code(answer.status)
        .headers(answer.headers)
        .send(errorBody(answer.status, answer.code, answer.message, answer.extra));
    }
    if (isDiskFull(error)) {
      request.log.error({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, 'disk full: the request could not be stored');
      return reply
        .code(503)
        .header('Retry-After', '30')
        .send(
          errorBody(
            503,
            'SERVICE_UNAVAILABLE',
            "The server's disk is full, so the request could not be stored; nothing was changed. Retry later (the operator has to free space)",
            { retry_after: 30 },
          ),
        );
    }
    if (isStoreUnavailable(error)) {
      request.log.warn({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, 'database unavailable');
      return reply
        .code(503)
        .header('Retry-After', '5')
        .send(errorBody(503, 'SERVICE_UNAVAILABLE', 'The database is not reachable right now; retry shortly', { retry_after: 5 }));
    }
    if (error instanceof BillingError) {
      return reply.code(error.status).send(errorBody(error.status, error.code, error.message));
    }
    if (error.validation) {
      const fields = fieldProblems(error);
      const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
      return reply.code(422).send(errorBody(422, 'VALIDATION_ERROR', `Validation failed: ${summary}`, { fields }));
    }
    const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
    if (known) {
      const [status, code, message] = known;
      if (status === 413) countRefusal('body_too_large');
      return reply.code(status).send(errorBody(status, code, message));
    }
    if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
      // secure-json-parse refuses `__proto__` and `constructor.prototype` keys (onProtoPoisoning / onConstructorPoisoning).
      const message = /forbidden prototype property/.test(error.message)
        ? 'Request body contains a forbidden key (__proto__, or constructor with a prototype member)'
        : 'Request body is not valid JSON';
      return reply.code(400).send(errorBody(400, 'INVALID_REQUEST', message));
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody(error.statusCode, 'INVALID_REQUEST', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send(errorBody(500, 'INTERNAL_ERROR', 'An unexpected error occurred; quote the request id when reporting it', { request_id: request.id }));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(404, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`));
  });
}

/** 422 VALIDATION_ERROR for problems found by code rather than by the route schema. */
export function validationError(fields: FieldProblem[]): ApiError {
  const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
  return new ApiError(422, 'VALIDATION_ERROR', `Validation failed: ${summary}`, { fields });
}

/** Rejects JSON bodies that are not objects (arrays, strings, numbers, null) with 400 INVALID_REQUEST. */
export function requireObjectBody(request: FastifyRequest): void {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request body must be a JSON object');
  }
}
