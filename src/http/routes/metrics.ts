/**
 * `GET /metrics`: this process's metrics in the Prometheus text format (DESIGN.md round 3, docs/operators.md).
 * Outside /api/v1, at the path Prometheus scrapes by default: it is an operator's view of one process, not
 * part of the tenant API (no API key, no tenant rate limit, not versioned with the contract). Registered
 * only when configured: behind VIGIL_METRICS_TOKEN on the API server, or on the VIGIL_METRICS_PORT listener.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../domain/api-keys.js';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../observability/metrics.js';
import { ApiError } from '../errors.js';
import { errorResponses } from '../schemas/common.js';

export const METRICS_PATH = '/metrics';

const EXAMPLE =
  '# HELP vigil_scan_queue_depth Scans queued and not yet claimed, by the tenant\'s plan\n# TYPE vigil_scan_queue_depth gauge\nvigil_scan_queue_depth{plan="free"} 0\n';

/** `Authorization: Bearer <token>`, compared in constant time; anything else is 401 in the error shape. */
function requireBearer(token: string): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match || !constantTimeEqual(match[1]!, token)) {
      throw new ApiError(
        401,
        'INVALID_API_KEY',
        'Missing or wrong metrics token: send Authorization: Bearer <VIGIL_METRICS_TOKEN>',
        {},
        { 'WWW-Authenticate': 'Bearer realm="vigil-metrics"' },
      );
    }
  };
}

export async function metricsRoute(app: FastifyInstance, options: { token?: string }): Promise<void> {
  const { token } = options;
  app.get(
    METRICS_PATH,
    {
      config: { public: true },
      onRequest: token ? requireBearer(token) : undefined,
      schema: {
        tags: ['metrics'],
        summary: 'Prometheus metrics of this process',
        description:
          'Served only when configured (docs/operators.md): with VIGIL_METRICS_TOKEN on this server, with `Authorization: Bearer <VIGIL_METRICS_TOKEN>`; ' +
          'with VIGIL_METRICS_PORT on a listener of its own instead. Requests by route and status, scan queue depth and wait by plan, scan durations by mode and outcome, ' +
          'worker slots, lease losses, Chromium pages, notification deliveries, rate-limit refusals, and Node process metrics.',
        security: token ? [{ MetricsToken: [] }] : [],
        response: {
          200: {
            description: 'The metrics in the Prometheus text exposition format, version 0.0.4',
            content: { 'text/plain; version=0.0.4': { schema: { type: 'string', contentMediaType: 'text/plain', examples: [EXAMPLE] } } },
          },
          ...(token
            ? {
                401: {
                  description: 'Missing or wrong metrics token (INVALID_API_KEY)',
                  headers: { 'WWW-Authenticate': { type: 'string', description: 'Bearer realm="vigil-metrics"' } },
                  content: { 'application/json': { schema: errorResponses({ 401: 'Missing or wrong metrics token (INVALID_API_KEY)' })[401] } },
                },
              }
            : {}),
          ...errorResponses({ 500: 'Unexpected server error (no internals disclosed)' }),
        },
      },
    },
    async (_request, reply) =>
      reply
        .type(METRICS_CONTENT_TYPE)
        .header('Cache-Control', 'no-store')
        .send(await renderMetrics()),
  );
}
