import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../domain/api-keys.js';
import { ApiError } from '../errors.js';

/**
 * The check of the routes the web application calls with the server-side sync secret (`X-Sync-Key`,
 * SERVICE_APP_SYNC_KEY) instead of a tenant key. Registered as an onRequest hook: the secret is checked
 * before the body is validated, so an unauthenticated caller learns nothing about the schema.
 */
export function requireSyncKey(syncKey: string | undefined): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    if (!syncKey) throw new ApiError(503, 'SYNC_NOT_CONFIGURED', 'SERVICE_APP_SYNC_KEY is not set on this server');
    const presented = request.headers['x-sync-key'];
    if (typeof presented !== 'string' || !constantTimeEqual(presented, syncKey))
      throw new ApiError(401, 'INVALID_API_KEY', 'Missing or wrong X-Sync-Key header');
  };
}
