import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PLANS, type Plan } from '../domain/plans.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfterSeconds: number;
}

/**
 * Requests per window per tenant, shared by every endpoint and (with Redis) every api instance.
 * One limiter per plan over the same counter key, so a plan change applies on the next request.
 */
export class TenantRateLimiter {
  private readonly limiters = new Map<Plan, RateLimiterAbstract>();

  constructor(
    private readonly limits: Record<Plan, number | null>,
    windowSeconds: number,
    redis?: Redis,
  ) {
    for (const plan of PLANS) {
      const points = limits[plan];
      if (points === null) continue;
      const options = { points, duration: windowSeconds, keyPrefix: 'vigil:rl' };
      this.limiters.set(
        plan,
        redis
          ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
          : new RateLimiterMemory(options),
      );
    }
  }

  /** Undefined when the plan is unlimited: nothing is counted and no headers are sent. */
  async consume(tenantId: string, plan: Plan): Promise<RateDecision | undefined> {
    const limiter = this.limiters.get(plan);
    const limit = this.limits[plan];
    if (!limiter || limit === null) return undefined;
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await limiter.consume(tenantId, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
      allowed = false;
    }
    const msBeforeNext = Math.max(0, res.msBeforeNext);
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - res.consumedPoints),
      resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
    };
  }
}
