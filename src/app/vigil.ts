import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { TenantRateLimiter } from '../http/rate-limiter.js';
import { buildServer } from '../http/server.js';
import type { Services } from '../http/services.js';
import { openStore } from '../store/database.js';
import { TenantRepository } from '../store/tenants.js';
import { publicBaseUrl, type Config } from './config.js';
import { createLogger } from './logger.js';
import { VERSION } from './version.js';

export interface Vigil {
  services: Services;
  /** Present when the role serves HTTP (all, api). */
  http?: FastifyInstance;
  /** Base URL clients use, once listening. */
  url?: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface VigilOptions {
  logger?: Logger;
  /** Where the bootstrap key is printed (stdout by default). */
  announce?: (line: string) => void;
}

/** The composition root: builds every part for the configured role, starts and stops them in order. */
export async function createVigil(config: Config, options: VigilOptions = {}): Promise<Vigil> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const announce = options.announce ?? ((line: string) => process.stdout.write(`${line}\n`));
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));

  const tenants = new TenantRepository(store.db);
  const services: Services = {
    config,
    store,
    tenants,
    rateLimiter: new TenantRateLimiter(config.rateLimits, config.rateLimitWindowSeconds, redis),
    logger,
  };

  const servesHttp = config.role === 'all' || config.role === 'api';
  const http = servesHttp ? await buildServer(services, VERSION) : undefined;

  const vigil: Vigil = {
    services,
    http,
    async start() {
      if (servesHttp && config.deployment === 'self-hosted') await bootstrapDefaultTenant(tenants, logger, announce);
      if (http) {
        await http.listen({ port: config.port, host: config.host });
        const port = (http.server.address() as AddressInfo).port;
        vigil.url = publicBaseUrl(config, port);
        announce(`Vigil ${VERSION} (${config.role}, ${store.dialect}${redis ? ' + redis' : ''}) listening on ${vigil.url}/api/v1 — docs at ${vigil.url}/api/v1/docs`);
      } else {
        announce(`Vigil ${VERSION} worker started (${store.dialect}${redis ? ' + redis' : ''})`);
      }
    },
    async stop() {
      // Stop accepting connections and let in-flight requests finish, then close shared resources.
      if (http) await http.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await store.close();
    },
  };
  return vigil;
}

/** First start of a self-hosted instance with no tenants: a `default` enterprise tenant, key printed once. */
async function bootstrapDefaultTenant(tenants: TenantRepository, logger: Logger, announce: (line: string) => void): Promise<void> {
  if ((await tenants.count()) > 0) return;
  try {
    const { apiKey } = await tenants.create({ id: 'default', plan: 'enterprise' });
    announce(`Created tenant "default" (enterprise). Its API key, shown only this once:\n\n    ${apiKey}\n`);
  } catch (error) {
    // Another instance bootstrapped at the same moment.
    logger.debug({ err: error }, 'default tenant already created');
  }
}
