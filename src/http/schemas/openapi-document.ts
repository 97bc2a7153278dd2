/**
 * What the OpenAPI document states about every operation beyond its route schema, applied in one place
 * when the document is generated (it changes neither validation nor serialization):
 *
 * - a stable `operationId` per operation (the names client generators use for methods);
 * - the rate-limit headers on every response of a rate-limited operation (they are sent on errors too),
 *   and `Retry-After` (required) on every 429;
 * - the answers given before a route runs: 414 (URL too long) everywhere, 413 (body too large) and 415
 *   (not JSON) where a body is taken;
 * - the webhook's signature scheme;
 * - named schemas (those with a `title`) hoisted to `components/schemas` and referenced.
 */
import { ErrorBody, RATE_LIMIT_HEADERS } from './common.js';

/** `METHOD /path` (OpenAPI path, without /api/v1) -> operationId. A new route adds its line here (the docs test fails otherwise). */
export const OPERATION_IDS: Record<string, string> = {
  'GET /health': 'getHealth',
  'POST /billing/sync-tenant': 'syncTenant',
  'POST /keys/rotate': 'rotateApiKey',
  'POST /scan': 'startScan',
  'POST /security-scan': 'startSecurityScan',
  'POST /functional/run': 'startFunctionalScan',
  'POST /scan/upload': 'uploadScan',
  'GET /scan/{id}': 'getScanStatus',
  'GET /scan/{id}/results': 'getScanResults',
  'POST /scan/{id}/cancel': 'cancelScan',
  'GET /scans': 'listScans',
  'GET /scan/{id}/export': 'exportScan',
  'GET /scan/{id}/functional-results': 'getFunctionalResults',
  'GET /scan/{id}/visual-regression': 'getVisualRegressionReport',
  'GET /scan/{id}/accessibility': 'getAccessibilityReport',
  'GET /scan/{id}/performance': 'getPerformanceReport',
  'GET /scan/{id}/compliance': 'getComplianceReport',
  'GET /usage': 'getUsage',
  'GET /usage/alerts': 'listUsageAlerts',
  'GET /usage/history': 'getUsageHistory',
  'GET /artifacts/{id}': 'getArtifact',
  'POST /llm/generate': 'generateText',
  'POST /billing/checkout': 'createCheckout',
  'GET /billing/signup': 'getSignupOptions',
  'POST /billing/signup': 'startSignup',
  'POST /billing/checkout-sessions/{session_id}/claim': 'claimSignupKey',
  'POST /billing/portal': 'openBillingPortal',
  'GET /billing/status': 'getBillingStatus',
  'GET /billing/checkout-sessions/{session_id}/key': 'retrieveCheckoutKey',
  'POST /billing/webhook': 'receiveBillingWebhook',
  'GET /notifications': 'getNotificationChannels',
  'PUT /notifications': 'replaceNotificationChannels',
  'GET /baselines': 'listBaselines',
  'POST /baselines/approve': 'approveBaseline',
  'DELETE /baselines/{id}': 'deleteBaseline',
  'GET /health/ready': 'getReadiness',
  'GET /scan/{id}/reports/{format}': 'getScanReport',
  'GET /scan/{id}/changes': 'getScanChanges',
  'GET /cli/vigil-cli.tgz': 'downloadCliPackage',
  'GET /cli/vigil-cli.tgz.sha256': 'getCliPackageChecksum',
  'GET /sso/config': 'getSsoConfig',
  'PUT /sso/config': 'putSsoConfig',
  'DELETE /sso/config': 'deleteSsoConfig',
  'GET /sso/login': 'startSsoLogin',
  'GET /sso/oidc/callback': 'finishOidcLogin',
  'POST /sso/saml/acs/{tenant}': 'receiveSamlAssertion',
  'GET /sso/saml/metadata': 'getSamlServiceProviderMetadata',
  'GET /sso/domains': 'listEmailDomains',
  'POST /sso/domains': 'claimEmailDomain',
  'POST /sso/domains/{domain}/verify': 'verifyEmailDomain',
  'DELETE /sso/domains/{domain}': 'releaseEmailDomain',
  'GET /session': 'getSession',
  'DELETE /session': 'endSession',
  'POST /session/key': 'startKeySession',
  'GET /members': 'listMembers',
  'PATCH /members/{id}': 'updateMember',
  'DELETE /members/{id}': 'removeMember',
  'GET /audit-log': 'listAuditLog',
  'GET /metrics': 'getMetrics',
  'GET /suppressions': 'listSuppressions',
  'POST /suppressions': 'createSuppression',
  'DELETE /suppressions/{id}': 'deleteSuppression',
};

/** Operations that take no tenant key and are limited per client address, not per tenant. */
const LIMITED_PER_CLIENT = new Set(['POST /billing/signup', 'POST /billing/checkout-sessions/{session_id}/claim']);

const RETRY_AFTER = {
  'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying (also in the body as retry_after)' },
};

const rateLimitHeaders = Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([name, schema]) => [name, { ...schema }]));

function errorResponse(status: number, code: string, description: string): Record<string, unknown> {
  return { ...ErrorBody, description, examples: [{ error: code, message: description, status }] };
}

type RouteSchema = Record<string, any>;

/** The operation key of a route: method and OpenAPI path without the API prefix. */
export function operationKey(method: string, url: string, prefix: string): string {
  return `${method.toUpperCase()} ${url.slice(url.startsWith(prefix) ? prefix.length : 0).replace(/:([A-Za-z_]+)/g, '{$1}') || '/'}`;
}

/** Adds what every operation states (see the file comment) to one route's schema, for the document only. */
export function describeOperation(schema: RouteSchema, key: string, isPublic: boolean): RouteSchema {
  const out: RouteSchema = { ...schema };
  const operationId = OPERATION_IDS[key];
  if (operationId) out.operationId = operationId;
  if (key === 'POST /billing/webhook') out.security = [{ ProviderSignature: [] }];
  const responses: Record<string, any> = { ...(schema.response ?? {}) };
  const method = key.split(' ')[0]!;
  // Fastify reads a body on every method but GET and HEAD, declared or not: a malformed one is 400, a large one 413, another media type 415.
  const takesBody = method !== 'GET' && method !== 'HEAD';
  // An identifier in the path that names nothing (one holding NUL included) is 404.
  if (key.includes('{')) responses[404] ??= errorResponse(404, 'NOT_FOUND', 'No such resource for this tenant (NOT_FOUND)');
  responses[400] ??= errorResponse(
    400,
    'INVALID_REQUEST',
    'Malformed request: invalid percent-encoding in the path, a NUL character (%00) in the query string, or a body that is not JSON (INVALID_REQUEST)',
  );
  responses[414] ??= errorResponse(414, 'URI_TOO_LONG', 'The request URL is longer than 8192 characters (URI_TOO_LONG)');
  responses[503] ??= errorResponse(503, 'SERVICE_UNAVAILABLE', 'The server is shutting down; retry in a moment (SERVICE_UNAVAILABLE)');
  if (takesBody) {
    responses[413] ??= errorResponse(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than VIGIL_BODY_LIMIT_BYTES (PAYLOAD_TOO_LARGE)');
    responses[415] ??= errorResponse(415, 'UNSUPPORTED_MEDIA_TYPE', 'The body is not sent as application/json (UNSUPPORTED_MEDIA_TYPE)');
    responses[429] ??= errorResponse(
      429,
      'RATE_LIMIT_EXCEEDED',
      'Too many request bodies from this address or tenant are still being sent (VIGIL_OPEN_BODIES_PER_ADDRESS, VIGIL_OPEN_BODIES_PER_TENANT) (RATE_LIMIT_EXCEEDED)',
    );
  }
  if (!isPublic) {
    // Dashboard sessions (SSO): a role without the right, a cookie request without its CSRF token, key sign-in where SSO is required.
    responses[403] ??= errorResponse(
      403,
      'FORBIDDEN',
      'A dashboard session whose role does not allow this (FORBIDDEN), a cookie request without its CSRF token (CSRF_TOKEN_INVALID), or key sign-in where the tenant requires SSO (SSO_REQUIRED)',
    );
  }
  // Idempotency-Key on authenticated POSTs (DESIGN.md round 3): the first answer is replayed with Idempotent-Replayed.
  const idempotent = !isPublic && method === 'POST';
  if (idempotent) {
    responses[409] ??= errorResponse(
      409,
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being answered; retry with the same key (IDEMPOTENCY_KEY_IN_USE)',
    );
    responses[422] ??= errorResponse(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used with another body in the last 24 h (IDEMPOTENCY_KEY_REUSED)',
    );
  }
  const limited = !isPublic || LIMITED_PER_CLIENT.has(key);
  for (const [status, response] of Object.entries(responses)) {
    if (!response || typeof response !== 'object') continue;
    let headers = { ...(response.headers ?? {}) };
    // A 401 is answered before the tenant is known, so it carries no rate-limit headers; others may.
    if (limited && status !== '401') headers = { ...rateLimitHeaders, ...headers };
    if (status === '429') headers = { ...headers, ...RETRY_AFTER };
    // A 503 for an unreachable database or an unready server says when to retry.
    if (status === '503') headers = { ...headers, 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying, when known' } };
    // IDEMPOTENCY_KEY_IN_USE says when to try the same key again.
    if (idempotent && status === '409')
      headers = {
        ...headers,
        'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying with the same Idempotency-Key (IDEMPOTENCY_KEY_IN_USE)' },
      };
    if (idempotent && status.startsWith('2'))
      headers = {
        ...headers,
        'Idempotent-Replayed': {
          type: 'string',
          enum: ['true'],
          description: 'This is the first answer to an earlier request with the same Idempotency-Key and body',
        },
      };
    responses[status] = Object.keys(headers).length > 0 ? { ...response, headers } : response;
  }
  out.response = responses;
  return out;
}

/** Schemas with a `title` move to components/schemas, referenced from where they were. */
export function hoistNamedSchemas(document: Record<string, any>): Record<string, any> {
  const components: Record<string, unknown> = { ...(document.components?.schemas ?? {}) };
  const visit = (node: unknown, path: string): unknown => {
    if (Array.isArray(node)) return node.map((item, i) => visit(item, `${path}/${i}`));
    if (!node || typeof node !== 'object') return node;
    const entries = Object.entries(node as Record<string, unknown>).map(
      ([k, v]) => [k, k === 'examples' || k === 'example' ? v : visit(v, `${path}/${k}`)] as const,
    );
    const copy = Object.fromEntries(entries) as Record<string, unknown>;
    const title = copy.title;
    if (typeof title === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(title) && (copy.type !== undefined || copy.anyOf !== undefined)) {
      const { description, examples, ...shape } = copy;
      components[title] ??= shape;
      const ref: Record<string, unknown> = { $ref: `#/components/schemas/${title}` };
      if (description !== undefined && description !== (shape as { description?: unknown }).description) ref.description = description;
      if (examples !== undefined) ref.examples = examples;
      return ref;
    }
    return copy;
  };
  const paths = visit(document.paths, '#/paths') as Record<
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, Record<string, unknown>> }> }>
  >;
  // Every 429 carries Retry-After (the contract's rule 4): required, not merely possible.
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      const retryAfter = op.responses?.['429']?.headers?.['Retry-After'];
      if (retryAfter) retryAfter.required = true;
    }
  }
  return { ...document, paths, components: { ...document.components, schemas: components } };
}
