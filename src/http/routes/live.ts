import { fastifyCookie } from '@fastify/cookie';
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { SlotRefusal } from '../../events/live-slots.js';
import { liveSocketsOpen, liveUpgrades, type LiveUpgradeOutcome } from '../../observability/metrics.js';
import { presentedKey, resolveTenant } from '../api-key.js';
import { ApiError, tooManyRequests } from '../errors.js';
import { SESSION_COOKIE } from '../plugins/auth.js';
import { consumeRateLimit } from '../plugins/rate-limit.js';
import type { Services } from '../services.js';

/**
 * `{ws_base_url}/ws/live`: the key in query `api_key` or header `X-API-Key` (Bearer too when self-hosted),
 * or, with no key, the dashboard's session cookie (single sign-on) from a page of this same origin.
 * A bad key refuses the upgrade with 401. An upgrade is a request against the tenant's rate limit (429
 * RATE_LIMIT_EXCEEDED) and takes one of the tenant's live-socket slots (429 TOO_MANY_SOCKETS) and one of
 * this process's (429 SOCKET_CAPACITY_REACHED) until the connection closes. Every socket of a tenant gets
 * that tenant's usage_update messages, published by whichever process finished the scan. Pings every
 * VIGIL_WS_PING_SECONDS; a socket that has not answered the previous ping is dropped.
 */
export async function liveRoute(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(websocket, { options: { maxPayload: 4096 } });
  const sockets = new Map<string, Set<WebSocket>>();
  const alive = new WeakMap<WebSocket, boolean>();

  // A scan's finish can be announced twice (its finisher died between publishing and recording it, and a
  // reaper announced it again): the repeat is dropped here, so each socket gets one usage_update per scan.
  const delivered = new RecentIds(Math.max(600, 3 * services.config.scanLeaseSeconds) * 1000);
  const unsubscribe = services.bus.subscribe('usage', ({ tenant_id, payload }) => {
    const target = sockets.get(tenant_id);
    if (!target) return;
    const scanId = payload.type === 'usage_update' && typeof payload.scan_id === 'string' ? payload.scan_id : undefined;
    if (scanId !== undefined && !delivered.add(scanId)) return;
    const message = JSON.stringify(payload);
    for (const socket of target) if (socket.readyState === socket.OPEN) socket.send(message);
  });

  const ping = setInterval(() => {
    void services.liveSlots.refresh();
    for (const set of sockets.values()) {
      for (const socket of set) {
        if (alive.get(socket) === false) {
          socket.terminate();
          continue;
        }
        alive.set(socket, false);
        socket.ping();
      }
    }
  }, services.config.wsPingSeconds * 1000);
  ping.unref();

  app.addHook('onClose', async () => {
    clearInterval(ping);
    unsubscribe();
    for (const set of sockets.values()) for (const socket of set) socket.close(1001, 'server shutting down');
    await services.liveSlots.close();
  });

  app.get<{ Querystring: { api_key?: string } }>(
    '/ws/live',
    {
      websocket: true,
      config: { public: true },
      schema: { hide: true },
      preValidation: async (request, reply) => {
        try {
          if (!request.ws) throw new ApiError(426, 'UPGRADE_REQUIRED', 'This address takes WebSocket connections only', {}, { Upgrade: 'websocket' });
          const key = request.query.api_key ?? presentedKey(request, services.config.deployment === 'self-hosted');
          const tenant = key !== undefined ? await resolveTenant(services.tenants, key) : await sessionTenant(services, request);
          if (!tenant) throw new ApiError(401, 'INVALID_API_KEY', 'Missing or invalid API key: pass it as ?api_key= or in the X-API-Key header');
          request.tenant = tenant;
          await consumeRateLimit(services.rateLimiter, tenant, reply);

          const slot = await services.liveSlots.acquire(tenant.id, tenant.plan);
          if (!slot.ok) throw socketLimitError(slot);
          // The slot belongs to the connection, upgraded or not: it is given back when the connection closes.
          const connection = request.raw.socket;
          if (connection.destroyed) return void (await services.liveSlots.release(slot.slotId));
          connection.once('close', () => void services.liveSlots.release(slot.slotId));
        } catch (error) {
          liveUpgrades.inc({ outcome: refusalOutcome(error) });
          throw error;
        }
      },
    },
    (socket, request) => {
      const tenantId = request.tenant?.id;
      if (!tenantId) return socket.close(1008, 'unauthorized');
      liveUpgrades.inc({ outcome: 'accepted' });
      liveSocketsOpen.inc();
      const set = sockets.get(tenantId) ?? new Set<WebSocket>();
      sockets.set(tenantId, set);
      set.add(socket);
      alive.set(socket, true);
      socket.on('pong', () => alive.set(socket, true));
      socket.on('close', () => {
        liveSocketsOpen.dec();
        set.delete(socket);
        if (set.size === 0) sockets.delete(tenantId);
      });
    },
  );
}

/** The metric's outcome of an upgrade refused by `error`. */
function refusalOutcome(error: unknown): LiveUpgradeOutcome {
  if (!(error instanceof ApiError)) return 'error';
  switch (error.code) {
    case 'UPGRADE_REQUIRED':
      return 'not_websocket';
    case 'INVALID_API_KEY':
      return 'invalid_key';
    case 'RATE_LIMIT_EXCEEDED':
      return 'rate_limited';
    case 'TOO_MANY_SOCKETS':
      return 'tenant_sockets';
    case 'SOCKET_CAPACITY_REACHED':
      return 'process_sockets';
    default:
      return 'error';
  }
}

function socketLimitError(refusal: SlotRefusal): ApiError {
  if (refusal.reason === 'process') {
    return tooManyRequests('SOCKET_CAPACITY_REACHED', `This server holds the most live sockets it accepts (${refusal.limit}); retry later`, 5);
  }
  // Retry-After: a socket of the tenant's may close at any moment; 5 s is a polite interval to try again.
  return tooManyRequests(
    'TOO_MANY_SOCKETS',
    `The plan allows ${refusal.limit} live socket${refusal.limit === 1 ? '' : 's'} open at once; close one before opening another`,
    5,
    { limit: refusal.limit },
  );
}

/** Ids seen within the last `windowMs`; `add` is false for one already there. */
class RecentIds {
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  add(id: string): boolean {
    const now = Date.now();
    // Insertion order is age order: drop the expired ones from the front.
    for (const [old, at] of this.seen) {
      if (now - at < this.windowMs) break;
      this.seen.delete(old);
    }
    if (this.seen.has(id)) return false;
    this.seen.set(id, now);
    return true;
  }
}

/**
 * The tenant of the dashboard session cookie sent with the upgrade. Only from a page of this origin: a
 * WebSocket is not bound by CORS, so another site's page must not ride the cookie (cross-site hijacking).
 */
async function sessionTenant(services: Services, request: FastifyRequest) {
  const token = fastifyCookie.parse(request.headers.cookie ?? '')[SESSION_COOKIE];
  if (!token || !sameOrigin(request)) return undefined;
  const resolved = await services.members.resolveSession(token);
  const tenant = resolved && (await services.tenants.get(resolved.session.tenant_id));
  return tenant && tenant.status === 'active' ? tenant : undefined;
}

function sameOrigin(request: FastifyRequest): boolean {
  try {
    return new URL(String(request.headers.origin)).host === request.headers.host;
  } catch {
    return false;
  }
}
