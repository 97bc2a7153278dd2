import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerErrorHandling } from './errors.js';
import { healthReadyRoutes } from './routes/health-ready.js';
import { metricsRoute } from './routes/metrics.js';
import type { Services } from './services.js';

/**
 * The VIGIL_METRICS_PORT listener, on every role (a worker serves nothing else): `GET /metrics`, `GET
 * /health/ready` (the readiness of a process that may serve no API: a worker's browser included; no
 * token), and 404 in the error shape for anything else. /metrics needs no token unless VIGIL_METRICS_TOKEN is set too.
 */
export async function buildMetricsServer(options: { token?: string; logger: FastifyBaseLogger; appUrl: string; services: Services }): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: options.logger, disableRequestLogging: true, forceCloseConnections: true });
  registerErrorHandling(app, { appUrl: options.appUrl });
  await app.register(async (root) => metricsRoute(root, { token: options.token }));
  await app.register(async (root) => healthReadyRoutes(root, options.services));
  return app;
}
