import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isWellFormedApiKey } from '../../domain/api-keys.js';
import type { Tenant } from '../../store/tenants.js';
import { ApiError } from '../errors.js';
import { rateLimitExceeded, rateLimitHeaders } from '../rate-limiter.js';
import type { Services } from '../services.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant | null;
  }
  interface FastifyContextConfig {
    /** Routes open without an API key (health, webhook, docs, sync-tenant with its own secret). */
    public?: boolean;
  }
}

const UNAUTHORIZED = 'Missing or invalid API key: send it in the X-API-Key header';

/**
 * The key as presented. Whitespace the HTTP parser strips around a header line is not part of the value
 * (RFC 9110 5.5); any whitespace left inside it fails the exact format check. A header sent twice is joined
 * with ", " by Node and so is refused too.
 */
function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function presentedKey(request: FastifyRequest, acceptBearer: boolean): string | undefined {
  const apiKey = header(request, 'x-api-key');
  const authorization = header(request, 'authorization');
  if (authorization !== undefined && !acceptBearer) {
    throw new ApiError(401, 'INVALID_API_KEY', 'Authorization: Bearer is not accepted here; send the key in the X-API-Key header');
  }
  if (apiKey !== undefined) return apiKey;
  if (authorization !== undefined) {
    const match = /^Bearer (.*)$/.exec(authorization);
    return match ? match[1] : authorization;
  }
  return undefined;
}

/** Resolves the tenant from the key on every non-public route, then applies the tenant's rate limit. */
export const authPlugin = fp(async (app: FastifyInstance, services: Services) => {
  app.decorateRequest('tenant', null);
  const acceptBearer = services.config.deployment === 'self-hosted';

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public || !request.routeOptions.url) return;
    const key = presentedKey(request, acceptBearer);
    if (key === undefined || !isWellFormedApiKey(key)) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
    const tenant = await services.tenants.findByApiKey(key);
    if (!tenant || tenant.status !== 'active') throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
    request.tenant = tenant;

    const decision = await services.rateLimiter.consume(tenant.id, tenant.plan);
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) throw rateLimitExceeded(decision);
  });
});

/** The authenticated tenant of a request on a non-public route. */
export function tenantOf(request: FastifyRequest): Tenant {
  if (!request.tenant) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
  return request.tenant;
}
