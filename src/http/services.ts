import type { Logger } from 'pino';
import type { Config } from '../app/config.js';
import type { Store } from '../store/database.js';
import type { TenantRepository } from '../store/tenants.js';
import type { TenantRateLimiter } from './rate-limiter.js';

/** What route plugins are given: the composition root builds it once per process. */
export interface Services {
  config: Config;
  store: Store;
  tenants: TenantRepository;
  rateLimiter: TenantRateLimiter;
  logger: Logger;
}
