import type { FastifyRequest } from 'fastify';
import { isWellFormedApiKey } from '../domain/api-keys.js';
import type { Tenant, TenantRepository } from '../store/tenants.js';
import { ApiError } from './errors.js';

/**
 * The key as presented. Whitespace the HTTP parser strips around a header line is not part of the value
 * (RFC 9110 5.5); any whitespace left inside it fails the exact format check. A header sent twice is joined
 * with ", " by Node and so is refused too.
 */
function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The key of a request: X-API-Key, or Authorization (Bearer) where `acceptBearer` (self-hosted). */
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

/**
 * The active tenant a key belongs to; undefined for a missing, malformed, unknown, revoked or suspended
 * key. Looked up in the store on every call, never cached, so a rotated key is refused by every instance
 * on its very next request.
 */
export async function resolveTenant(tenants: Pick<TenantRepository, 'findByApiKey'>, key: string | undefined): Promise<Tenant | undefined> {
  if (key === undefined || !isWellFormedApiKey(key)) return undefined;
  const tenant = await tenants.findByApiKey(key);
  return tenant?.status === 'active' ? tenant : undefined;
}

/**
 * `resolveTenant` for a lookup that reads the key's tenant together with what the route shows (the latest
 * usage period, a scan's status) in one statement; as uncached as `resolveTenant`.
 */
export async function resolveTenantWith<T extends { tenant: Tenant }>(
  key: string | undefined,
  lookup: (key: string) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (key === undefined || !isWellFormedApiKey(key)) return undefined;
  const found = await lookup(key);
  return found?.tenant.status === 'active' ? found : undefined;
}
