import { Kind, Type, TypeRegistry, type TSchema } from '@sinclair/typebox';

// Lets TypeBox's own compiler (used for multipart forms) check StringEnum like Ajv does.
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set('StringEnum', (schema: { enum: string[] }, value) => typeof value === 'string' && schema.enum.includes(value));
}

/** A string limited to `values`, rendered as a plain JSON Schema enum (clear errors, clean OpenAPI). */
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options });
}

/** Every non-2xx body. Extra fields depend on the code (see docs/errors.md). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Machine-readable error code', examples: ['VALIDATION_ERROR'] }),
    message: Type.String({ description: 'Human-readable explanation' }),
    status: Type.Integer({ description: 'HTTP status code, repeated' }),
    fields: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'VALIDATION_ERROR: the fields that failed' }),
    ),
    retry_after: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Every 429 (RATE_LIMIT_EXCEEDED, CONCURRENT_LIMIT, TOO_MANY_SOCKETS, ...): seconds to wait, as in the Retry-After header',
      }),
    ),
    quota_reset_date: Type.Optional(Type.String({ format: 'date-time', description: 'QUOTA_EXCEEDED: when the quota resets' })),
    upgrade_url: Type.Optional(Type.String({ description: 'FEATURE_NOT_AVAILABLE: where to upgrade' })),
    request_id: Type.Optional(Type.String({ description: 'INTERNAL_ERROR: quote it when reporting the problem' })),
  },
  { additionalProperties: true, title: 'ErrorBody' },
);

const ERROR_EXAMPLES: Record<number, { error: string; message: string }> = {
  400: { error: 'INVALID_REQUEST', message: 'Request body is not valid JSON' },
  401: { error: 'INVALID_API_KEY', message: 'Missing or invalid API key: send it in the X-API-Key header' },
  402: { error: 'QUOTA_EXCEEDED', message: 'Functional scan quota of 50 per period is used up' },
  404: { error: 'NOT_FOUND', message: 'Scan not found' },
  409: { error: 'TENANT_EXISTS', message: 'Tenant acme already exists' },
  413: { error: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the server accepts' },
  422: { error: 'VALIDATION_ERROR', message: 'Validation failed: url is required' },
  429: { error: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit of 60 requests per window exceeded; retry in 12 s' },
  500: { error: 'INTERNAL_ERROR', message: 'An unexpected error occurred; quote the request id when reporting it' },
  503: { error: 'SYNC_NOT_CONFIGURED', message: 'SERVICE_APP_SYNC_KEY is not set on this server' },
};

/** Error responses for a route's schema, each described and with an example. */
export function errorResponses(described: Record<number, string>): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [code, description] of Object.entries(described)) {
    const status = Number(code);
    const example = ERROR_EXAMPLES[status] ?? { error: 'ERROR', message: description };
    out[status] = { ...ErrorBody, description, examples: [{ ...example, status }] };
  }
  return out;
}

/** The errors every authenticated route can answer with. */
export const AUTHENTICATED_ERRORS = {
  401: 'Missing, malformed, unknown or rotated API key',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Unexpected server error (no internals disclosed)',
} as const;

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { type: 'integer', description: "Requests allowed per window for the tenant's plan" },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Unix time (seconds) when the window resets' },
} as const;

/**
 * Largest `page`: with per_page at most 100 the row offset stays below 10^8, far inside a 32-bit integer,
 * so no store ever sees an offset it cannot represent (a huge or `1e400` page is 422, not a database error).
 */
export const MAX_PAGE = 1_000_000;

/** `page` and `per_page` query parameters of every list endpoint (page 1-1,000,000, per_page 1-100, else 422). */
export const PagingQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, 1-1000000' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1-100' })),
};

/** A list body: the items under `key`, plus total, page, per_page and total_pages. */
export function pageBody<K extends string, T>(key: K, items: T[], total: number, query: { page?: number; per_page?: number }) {
  const perPage = query.per_page ?? 20;
  return { [key]: items, total, page: query.page ?? 1, per_page: perPage, total_pages: Math.ceil(total / perPage) } as Record<K, T[]> & {
    total: number;
    page: number;
    per_page: number;
    total_pages: number;
  };
}
