import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { timingSafeEqual } from 'node:crypto';
import { roleAllows, type Permission, type Role } from '../../domain/access.js';
import { displayPrefix } from '../../domain/api-keys.js';
import type { Tenant } from '../../store/tenants.js';
import type { ScanStatusView } from '../../store/scans.js';
import type { UsagePeriod } from '../../store/usage.js';
import { presentedKey, resolveTenant, resolveTenantWith } from '../api-key.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';

/** Who makes a request: an API key (full power, as always) or a dashboard session of a member or of a key sign-in. */
export interface Actor {
  type: 'api_key' | 'member';
  /** The key's display prefix, or the member's email (else subject). */
  name: string;
  role: Role;
  memberId?: string;
  /** Set for cookie sessions. */
  session?: { method: 'oidc' | 'saml' | 'key'; csrfToken: string; expiresAt: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant | null;
    actor: Actor | null;
    /** On a `latestPeriod` route authenticated by key: the tenant's latest stored usage period, read with the key. */
    latestPeriod: { period: UsagePeriod | undefined } | null;
    /** On a `scanStatus` route authenticated by key: the status of the tenant's scan with the path's id, read with the key. */
    scanStatus: { id: string; scan: ScanStatusView | undefined } | null;
  }
  interface FastifyInstance {
    /** The onRequest hook that resolves the tenant from the key or the session cookie; the first hook of every non-public route. */
    authenticate: onRequestHookHandler;
  }
  interface FastifyContextConfig {
    /** Routes open without an API key (health, webhook, docs, sync-tenant with its own secret). */
    public?: boolean;
    /** What the route needs of a session's role (docs/sso.md): default `read` for GET and HEAD, `operate` for the rest. */
    permission?: Permission;
    /** Routes that show the current usage period: the key lookup reads the tenant's latest period in the same statement (request.latestPeriod). */
    latestPeriod?: boolean;
    /** Routes that show the status of the scan in the path (`:id`): the key lookup reads it in the same statement (request.scanStatus). */
    scanStatus?: boolean;
  }
}

/** The dashboard session cookie (HttpOnly; SameSite=Lax; Secure over HTTPS). */
export const SESSION_COOKIE = 'vigil_session';
/** The header a cookie request must carry on every state-changing method, with the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

const UNAUTHORIZED = 'Missing or invalid API key: send it in the X-API-Key header';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A route's hooks of one kind as a fresh array (Fastify takes one function or an array). */
export function routeHooks<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? [...hooks] : [hooks];
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Whether the request reached this server over HTTPS (directly, or through the hosted deployment's proxy). */
export function isHttps(request: FastifyRequest, services: Services): boolean {
  return request.protocol === 'https' || (services.config.publicUrl?.startsWith('https:') ?? false);
}

/** Sets the session cookie. */
export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, services: Services, token: string, maxAgeSeconds: number): void {
  reply.setCookie(SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(request, services), maxAge: maxAgeSeconds });
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, services: Services): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(request, services) });
}

/**
 * Resolves the tenant on every non-public route: from the API key (X-API-Key; unchanged for CI and the
 * API), else from the dashboard session cookie, which needs the session's CSRF token in X-CSRF-Token on
 * every state-changing method. Then checks the route's permission against the session's role. The hook is
 * attached to each such route when it is declared, so public routes and unknown paths do not pay for it.
 */
export const authPlugin = fp(
  async (app: FastifyInstance, services: Services) => {
    await app.register(cookie);
    app.decorateRequest('tenant', null);
    app.decorateRequest('actor', null);
    app.decorateRequest('latestPeriod', null);
    app.decorateRequest('scanStatus', null);
    const acceptBearer = services.config.deployment === 'self-hosted';

    const fromSession = async (request: FastifyRequest): Promise<void> => {
      const token = request.cookies[SESSION_COOKIE];
      if (!token) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
      const resolved = await services.members.resolveSession(token);
      const tenant = resolved && (await services.tenants.get(resolved.session.tenant_id));
      if (!resolved || !tenant || tenant.status !== 'active')
        throw new ApiError(401, 'SESSION_EXPIRED', 'The dashboard session has ended or expired: sign in again');
      if (!SAFE_METHODS.has(request.method)) {
        const given = request.headers[CSRF_HEADER];
        if (typeof given !== 'string' || !sameToken(given, resolved.session.csrf_token)) {
          throw new ApiError(
            403,
            'CSRF_TOKEN_INVALID',
            `A request made with the session cookie that changes something needs the session's CSRF token in the X-CSRF-Token header (GET /session gives it)`,
          );
        }
      }
      request.tenant = tenant;
      const { session, member } = resolved;
      request.actor = {
        type: member ? 'member' : 'api_key',
        name: member ? (member.email ?? member.subject) : (session.key_prefix ?? 'key'),
        role: resolved.role,
        ...(member ? { memberId: member.id } : {}),
        session: { method: session.method, csrfToken: session.csrf_token, expiresAt: session.expires_at },
      };
    };

    const authenticate: onRequestHookHandler = async (request) => {
      const key = presentedKey(request, acceptBearer);
      if (key === undefined && request.headers.cookie !== undefined) {
        await fromSession(request);
      } else {
        // One round trip: the key, its tenant and, on the routes that ask for it, what the route shows.
        const { config } = request.routeOptions;
        const scanId = config.scanStatus ? (request.params as { id?: unknown }).id : undefined;
        let tenant: Tenant | undefined;
        if (config.latestPeriod) {
          const found = await resolveTenantWith(key, (k) => services.tenants.findByApiKeyWithPeriod(k));
          tenant = found?.tenant;
          if (found) request.latestPeriod = { period: found.latestPeriod };
        } else if (typeof scanId === 'string') {
          const found = await resolveTenantWith(key, (k) => services.tenants.findByApiKeyWithScan(k, scanId));
          tenant = found?.tenant;
          if (found) request.scanStatus = { id: scanId, scan: found.scan };
        } else {
          tenant = await resolveTenant(services.tenants, key);
        }
        if (!tenant || key === undefined) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
        request.tenant = tenant;
        request.actor = { type: 'api_key', name: displayPrefix(key), role: 'admin' };
      }
      const permission = request.routeOptions.config.permission ?? (SAFE_METHODS.has(request.method) ? 'read' : 'operate');
      const role = request.actor!.role;
      if (!roleAllows(role, permission)) {
        const what =
          permission === 'administer'
            ? 'administer the tenant (SSO, members, keys, billing, notifications)'
            : 'change anything (scans, baselines, suppressions)';
        throw new ApiError(403, 'FORBIDDEN', `The ${role} role cannot ${what}; ask an admin of the tenant`, { role });
      }
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

/** Who made an authenticated request. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ApiError(401, 'INVALID_API_KEY', UNAUTHORIZED);
  return request.actor;
}
