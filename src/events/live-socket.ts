import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { isWellFormedApiKey } from '../domain/api-keys.js';
import { ApiError } from '../http/errors.js';
import { presentedKey } from '../http/plugins/auth.js';
import type { Services } from '../http/services.js';

/**
 * `{ws_base_url}/ws/live`: the key in query `api_key` or header `X-API-Key` (Bearer too when self-hosted).
 * A bad key refuses the upgrade with 401. Every socket of a tenant gets that tenant's usage_update
 * messages, published by whichever process finished the scan. Pings every VIGIL_WS_PING_SECONDS; a
 * socket that has not answered the previous ping is dropped.
 */
export async function liveSocket(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(websocket, { options: { maxPayload: 4096 } });
  const sockets = new Map<string, Set<WebSocket>>();
  const alive = new WeakMap<WebSocket, boolean>();

  const unsubscribe = services.bus.subscribe('usage', ({ tenant_id, payload }) => {
    const message = JSON.stringify(payload);
    for (const socket of sockets.get(tenant_id) ?? []) if (socket.readyState === socket.OPEN) socket.send(message);
  });

  const ping = setInterval(() => {
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
  });

  app.get<{ Querystring: { api_key?: string } }>(
    '/ws/live',
    {
      websocket: true,
      config: { public: true },
      schema: { hide: true },
      preValidation: async (request) => {
        const key = request.query.api_key ?? presentedKey(request, services.config.deployment === 'self-hosted');
        const tenant = key && isWellFormedApiKey(key) ? await services.tenants.findByApiKey(key) : undefined;
        if (!tenant || tenant.status !== 'active') throw new ApiError(401, 'INVALID_API_KEY', 'Missing or invalid API key: pass it as ?api_key= or in the X-API-Key header');
        request.tenant = tenant;
      },
    },
    (socket, request) => {
      const tenantId = request.tenant?.id;
      if (!tenantId) return socket.close(1008, 'unauthorized');
      const set = sockets.get(tenantId) ?? new Set<WebSocket>();
      sockets.set(tenantId, set);
      set.add(socket);
      alive.set(socket, true);
      socket.on('pong', () => alive.set(socket, true));
      socket.on('close', () => {
        set.delete(socket);
        if (set.size === 0) sockets.delete(tenantId);
      });
    },
  );
}
