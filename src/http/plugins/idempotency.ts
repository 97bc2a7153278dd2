import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { IdempotencyKeys } from '../../store/idempotency-keys.js';
import { ApiError } from '../errors.js';
import { routeHooks } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds (it runs for the first time, or again after its holder died). */
    idempotencyKey?: string;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Printable ASCII, 1 to 255 characters (a UUID fits; Stripe's limit). */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the authenticated POST routes (DESIGN.md round 3, Stripe's semantics): the first
 * answer to a key is stored per tenant for 24 h; the same key with the same request (method, path and
 * body) is answered with it again and `Idempotent-Replayed: true`; the same key with another request is
 * 422 IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE (retry). A server
 * error (5xx) or a retry-later answer (409, 429) is not stored: the key is freed so the retry runs again. A first request whose process died
 * leaves its key locked 15 s; the retry then runs again, and scan admission finds the scan that key
 * admitted (scan-states.ts), so nothing is charged twice. Registered after the auth plugin.
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance, keys: IdempotencyKeys) => {
    app.decorateRequest('idempotencyKey', undefined);

    const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers[IDEMPOTENCY_HEADER];
      if (header === undefined || !request.tenant) return;
      const key = Array.isArray(header) ? header[0] : header;
      if (typeof key !== 'string' || !KEY_SHAPE.test(key)) {
        throw new ApiError(400, 'INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID, for instance)');
      }
      const claim = await keys.claim(request.tenant.id, key, requestHash(request));
      if (claim.kind === 'run') {
        request.idempotencyKey = key;
        return;
      }
      if (claim.kind === 'mismatch') {
        throw new ApiError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with another request (method, path or body) in the last 24 h; use a new key for a new request',
        );
      }
      if (claim.kind === 'in-progress') {
        throw new ApiError(
          409,
          'IDEMPOTENCY_KEY_IN_USE',
          'A request with this Idempotency-Key is still running; retry shortly',
          { retry_after: 1 },
          { 'Retry-After': '1' },
        );
      }
      return reply.code(claim.status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(claim.body);
    };

    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (route.config?.public || !methods.includes('POST')) return;
      route.preHandler = [claimKey, ...routeHooks(route.preHandler)];
    });

    // The answer is stored before it is sent: a client that saw it always gets it again.
    app.addHook('onSend', async (request, reply, payload) => {
      const key = request.idempotencyKey;
      if (!key || !request.tenant) return payload;
      request.idempotencyKey = undefined;
      try {
        if (!storable(reply.statusCode) || typeof payload !== 'string') await keys.abandon(request.tenant.id, key);
        else await keys.finish(request.tenant.id, key, reply.statusCode, payload);
      } catch (err) {
        // The key stays pending and is taken over after its lock: a retry then runs again (scans are deduplicated at admission).
        request.log.warn({ err }, 'idempotency answer not stored');
      }
      return payload;
    });
  },
  { name: 'vigil-idempotency', dependencies: ['vigil-auth'] },
);

/** Server errors and "retry later" answers (409, 429) are not kept: a retry with the key runs again. */
function storable(status: number): boolean {
  return status < 500 && status !== 409 && status !== 429;
}

/** What makes two requests "the same": method, path with query, and the body (a multipart body by its length). */
function requestHash(request: FastifyRequest): string {
  const body = request.isMultipart?.() ? `multipart:${request.headers['content-length'] ?? ''}` : (request.body ?? null);
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.url, body]))
    .digest('hex');
}
