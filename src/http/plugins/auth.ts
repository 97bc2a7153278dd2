import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Tenant } from '../../store/tenants.js';
import { presentedKey, resolveTenant } from '../api-key.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant | null;
  }
  interface FastifyInstance {
    /** The onRequest hook that resolves the tenant from the key; the first hook of every non-public route. */
    authenticate: onRequestHookHandler;
  }
  interface FastifyContextConfig {
    /** Routes open without an API key (health, webhook, docs, sync-tenant with its own secret). */
    public?: boolean;
  }
}

const UNAUTHORIZED = 'Missing or invalid API key: send it in the X-API-Key header';

/** A route's hooks of one kind as a fresh array (Fastify takes one function or an array). */
export function routeHooks<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? [...hooks] : [hooks];
}

/**
 * Resolves the tenant from the key on every non-public route. The hook is attached to each such route
 * when it is declared, so public routes and unknown paths do not pay for a per-request check.
 */
export const authPlugin = fp(
  async (app: FastifyInstance, services: Services) => {
    app.decorateRequest('tenant', null);
    const acceptBearer = services.config.deployment === 'self-hosted';

    const authenticate: onRequestHookHandler = async (request) => {
      const tenant = await resolveTenant(services.tenants, presentedKey(request, acceptBearer));
      if (!tenant) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
      request.tenant = tenant;
    };
    app.decorate('authenticate', authenticate);

    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.config?.public) return;
      const hooks = routeHooks(route.onRequest);
      // Fastify declares HEAD from GET with the same options: attach once.
      if (!hooks.includes(authenticate)) route.onRequest = [authenticate, ...hooks];
    });
  },
  { name: 'vigil-auth' },
);

/** The authenticated tenant of a request on a non-public route. */
export function tenantOf(request: FastifyRequest): Tenant {
  if (!request.tenant) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
  return request.tenant;
}
