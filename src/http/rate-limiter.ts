import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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

/** Requests counted in a tenant's current window and the milliseconds until it ends. */
interface WindowCount {
  consumed: number;
  msLeft: number;
}

/**
 * Requests per window per tenant, shared by every endpoint and (with Redis) every api instance.
 * One fixed-window counter per tenant; the plan's limit is applied to the count at decision time,
 * so a plan change takes effect on the next request.
 */
export class TenantRateLimiter {
  private readonly shared?: RateLimiterRedis;
  private readonly local: LocalWindows;

  constructor(
    private readonly limits: Record<Plan, number | null>,
    windowSeconds: number,
    redis?: Redis,
    keyPrefix = 'vigil:rl',
  ) {
    this.local = new LocalWindows(windowSeconds * 1000);
    if (redis) {
      // The counter itself never refuses; the plan limit decides. Without Redis, each process counts alone.
      const options = { points: Number.MAX_SAFE_INTEGER, duration: windowSeconds, keyPrefix };
      this.shared = new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) });
    }
  }

  /**
   * Counts the request and decides. An unlimited plan is still counted, so the headers stay meaningful,
   * and reports UNLIMITED_RATE as its limit; it is never refused. Without Redis the decision is made at
   * once (no promise on the hot path); with Redis it waits for the shared counter.
   */
  consume(tenantId: string, plan: Plan): RateDecision | Promise<RateDecision> {
    if (!this.shared) return this.decide(plan, this.local.hit(tenantId));
    return this.consumeShared(this.shared, tenantId).then((count) => this.decide(plan, count));
  }

  private async consumeShared(counter: RateLimiterRedis, tenantId: string): Promise<WindowCount> {
    let res: RateLimiterRes;
    try {
      res = await counter.consume(tenantId, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    return { consumed: res.consumedPoints, msLeft: res.msBeforeNext };
  }

  private decide(plan: Plan, { consumed, msLeft }: WindowCount): RateDecision {
    const configured = this.limits[plan];
    const limit = configured ?? UNLIMITED_RATE;
    const msBeforeNext = Math.max(0, msLeft);
    return {
      allowed: configured === null || consumed <= limit,
      limit,
      remaining: Math.max(0, limit - consumed),
      resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
    };
  }
}

/**
 * Requests per window per client address, for the public routes a browser calls without a key (the
 * dashboard's sign-up and key claim): the same fixed-window counter as the tenants' (shared through Redis
 * when configured), with one limit for every client and its own key space.
 */
export class ClientRateLimiter {
  private readonly counter: TenantRateLimiter;

  constructor(limit: number, windowSeconds: number, redis?: Redis) {
    this.counter = new TenantRateLimiter({ free: limit, pro: limit, team: limit, enterprise: limit }, windowSeconds, redis, 'vigil:rl-client');
  }

  /** Counts a request of `scope` (a route) from `client` (its address) and decides. */
  consume(scope: string, client: string): RateDecision | Promise<RateDecision> {
    return this.counter.consume(`${scope}|${client}`, 'free');
  }
}

/** In-process fixed windows: a tenant's window opens with its first request and lasts `windowMs`. */
class LocalWindows {
  private readonly windows = new Map<string, { consumed: number; endsAt: number }>();
  private nextSweep = 0;

  constructor(private readonly windowMs: number) {}

  hit(key: string): WindowCount {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.consumed += 1;
    return { consumed: window.consumed, msLeft: window.endsAt - now };
  }

  /** Forgets ended windows (tenants that stopped sending), at most once per window length. */
  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.nextSweep = now + this.windowMs;
  }
}
