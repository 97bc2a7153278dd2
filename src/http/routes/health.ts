import type { FastifyInstance } from 'fastify';
import { storeIsHealthy } from '../../store/database.js';
import { Healthy, Unhealthy } from '../schemas/health.js';
import type { Services } from '../services.js';

export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'Liveness and store health',
        description: 'No authentication. 200 when the service and its database answer, 503 otherwise.',
        security: [],
        response: { 200: Healthy, 503: Unhealthy },
      },
    },
    async (_request, reply) => {
      if (await storeIsHealthy(services.store)) return { status: 'ok' as const };
      return reply.code(503).send({ status: 'unavailable', error: 'STORE_UNAVAILABLE', message: 'The database does not answer' });
    },
  );
}
