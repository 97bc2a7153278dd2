import { statfs } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { storeIsHealthy } from '../../store/database.js';
import { errorBody } from '../errors.js';
import type { Services } from '../services.js';

/** Below this much free space in the data directory, the process is not ready (scans would fail writing). */
export const MIN_FREE_DISK_BYTES = 64 * 1024 * 1024;

const Ready = Type.Object(
  { status: Type.Literal('ready'), checks: Type.Record(Type.String(), Type.Literal('ok')) },
  { description: 'Every dependency is usable' },
);
const NotReady = Type.Object(
  {
    error: Type.Literal('SERVICE_UNAVAILABLE'),
    message: Type.String(),
    status: Type.Literal(503),
    checks: Type.Record(Type.String(), Type.String(), { description: 'Each dependency: `ok` or why it is not usable' }),
  },
  { description: 'A dependency is not usable: the error shape, with each check' },
);

/**
 * `GET /health/ready` (DESIGN.md round 3) for load balancers: 200 when the store, Redis (when
 * configured), the data directory's disk and, in a process that runs scans, the browser are usable,
 * else 503 in the error shape naming each check.
 * `/health` keeps the contract's liveness answer.
 */
export async function healthReadyRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const probes = services.readiness;
  {
    app.get(
      '/health/ready',
      {
        config: { public: true },
        schema: {
          tags: ['health'],
          summary: 'Readiness: store, Redis, disk and (workers) the browser usable',
          description:
            'No authentication. 200 when the database answers, Redis answers (when configured), the data directory has at least 64 MB free and, in a process that runs scans (role `all` or `worker`), Chromium can be found, its running browser is connected and its last launch did not fail (check `browser`; an api-only process has no such check); 503 SERVICE_UNAVAILABLE in the error shape otherwise, with `checks` naming what failed. Use it for load balancer health checks; `/health` is liveness.',
          security: [],
          response: { 200: Ready, 503: NotReady },
        },
      },
      async (_request, reply) => {
        const checks: Record<string, string> = {};
        checks.store = (await storeIsHealthy(services.store)) ? 'ok' : 'the database does not answer';
        if (probes.redis)
          checks.redis = await withTimeout(probes.redis(), 2000).then(
            () => 'ok',
            (err: Error) => `redis does not answer: ${err.message}`,
          );
        if (probes.browser) checks.browser = probes.browser();
        checks.disk = await statfs(probes.dataDir).then(
          (s) => (s.bavail * s.bsize >= MIN_FREE_DISK_BYTES ? 'ok' : `less than ${MIN_FREE_DISK_BYTES / 1024 / 1024} MB free in the data directory`),
          (err: Error) => `the data directory is not readable: ${err.message}`,
        );
        const failed = Object.entries(checks).filter(([, v]) => v !== 'ok');
        if (failed.length === 0) return { status: 'ready' as const, checks };
        return reply
          .code(503)
          .header('Retry-After', '5')
          .send({ ...errorBody(503, 'SERVICE_UNAVAILABLE', `Not ready: ${failed.map(([k, v]) => `${k}: ${v}`).join('; ')}`), checks });
      },
    );
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
