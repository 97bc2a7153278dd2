import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Plan } from '../domain/plans.js';

/** What X-RateLimit-Limit says for a plan without a limit (the largest 32-bit integer, so clients can parse it). */
export const UNLIMITED_RATE = 2_147_483_647;

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
 * One fixed-window counter per tenant; the plan's limit is applied to the count at decision time,
 * so a plan change takes effect on the next request.
 */
export class TenantRateLimiter {
  private readonly counter: RateLimiterAbstract;

  constructor(
    private readonly limits: Record<Plan, number | null>,
    windowSeconds: number,
    redis?: Redis,
  ) {
    // The counter itself never refuses; the plan limit decides.
    const options = { points: Number.MAX_SAFE_INTEGER, duration: windowSeconds, keyPrefix: 'vigil:rl' };
    this.counter = redis
      ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
      : new RateLimiterMemory(options);
  }

  /**
   * Counts the request and decides. An unlimited plan is still counted, so the headers stay meaningful,
   * and reports UNLIMITED_RATE as its limit; it is never refused.
   */
  async consume(tenantId: string, plan: Plan): Promise<RateDecision> {
    const configured = this.limits[plan];
    const limit = configured ?? UNLIMITED_RATE;
    let res: RateLimiterRes;
    try {
      res = await this.counter.consume(tenantId, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    const msBeforeNext = Math.max(0, res.msBeforeNext);
    return {
      allowed: configured === null || res.consumedPoints <= limit,
      limit,
      remaining: Math.max(0, limit - res.consumedPoints),
      resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
    };
  }
}
