import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { rateLimitRefusals } from '../../observability/metrics.js';
import type { Tenant } from '../../store/tenants.js';
import { tooManyRequests, type ApiError } from '../errors.js';
import type { ClientRateLimiter, RateDecision, TenantRateLimiter } from '../rate-limiter.js';
import { routeHooks } from './auth.js';

/**
 * Counts one request against the tenant's rate limit and sets the X-RateLimit-* headers; a request over
 * the limit is refused with 429 RATE_LIMIT_EXCEEDED and Retry-After. The live socket's upgrade calls it too.
 */
export async function consumeRateLimit(limiter: TenantRateLimiter, tenant: Tenant, reply: FastifyReply): Promise<void> {
  const refusal = tenantRefusal(applyDecision(reply, await limiter.consume(tenant.id, tenant.plan)), tenant.plan);
  if (refusal) throw refusal;
}

/**
 * The hook of a public route limited per client address (`request.ip`: the proxy's X-Forwarded-For on a
 * hosted deployment, which trusts its proxy): over the limit, 429 RATE_LIMIT_EXCEEDED with Retry-After.
 */
export function limitPerClient(limiter: ClientRateLimiter, scope: string): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const refused = rateLimitRefusals.labels(scope, 'none');
  return async (request, reply) => {
    const refusal = applyDecision(reply, await limiter.consume(scope, request.ip));
    if (refusal) {
      refused.inc();
      throw refusal;
    }
  };
}

/** A refusal of a tenant's request, counted in vigil_rate_limit_refusals_total by the tenant's plan. */
function tenantRefusal(refusal: ApiError | undefined, plan: string): ApiError | undefined {
  if (refusal) rateLimitRefusals.inc({ scope: 'tenant', plan });
  return refusal;
}

/** Sets the X-RateLimit-* headers of a decision; the 429 to answer with when it refuses. */
function applyDecision(reply: FastifyReply, decision: RateDecision): ApiError | undefined {
  reply.header('X-RateLimit-Limit', String(decision.limit));
  reply.header('X-RateLimit-Remaining', String(decision.remaining));
  reply.header('X-RateLimit-Reset', String(decision.resetAt));
  return decision.allowed ? undefined : rateLimitExceeded(decision);
}

/** 429 RATE_LIMIT_EXCEEDED for a refused decision, with `retry_after` and the Retry-After header. */
function rateLimitExceeded(decision: RateDecision): ApiError {
  return tooManyRequests(
    'RATE_LIMIT_EXCEEDED',
    `Rate limit of ${decision.limit} requests per window exceeded; retry in ${decision.retryAfterSeconds} s`,
    decision.retryAfterSeconds,
  );
}

/**
 * The tenant's rate limit on every authenticated route, right after authentication (so before any hook
 * of the route itself). Registered after the auth plugin.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, limiter: TenantRateLimiter) => {
    // A callback hook: the in-process counter decides at once, and an async hook would cost a promise per request.
    const limitRate: onRequestHookHandler = (request, reply, done) => {
      if (!request.tenant) return done();
      const { plan } = request.tenant;
      const decision = limiter.consume(request.tenant.id, plan);
      if (decision instanceof Promise) decision.then((d) => done(tenantRefusal(applyDecision(reply, d), plan)), done);
      else done(tenantRefusal(applyDecision(reply, decision), plan));
    };
    app.addHook('onRoute', (route: RouteOptions) => {
      const hooks = routeHooks(route.onRequest);
      const authentication = hooks.indexOf(app.authenticate);
      if (authentication < 0 || hooks.includes(limitRate)) return;
      hooks.splice(authentication + 1, 0, limitRate);
      route.onRequest = hooks;
    });
  },
  { name: 'vigil-rate-limit', dependencies: ['vigil-auth'] },
);
