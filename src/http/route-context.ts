/** What several route groups read from a request: the tenant's own scan, the report view, links, upgrade refusals. */
import type { FastifyRequest } from 'fastify';
import type { Feature } from '../domain/plans.js';
import type { StoredScan } from '../domain/stored-scan.js';
import { ApiError, featureNotAvailableError } from './errors.js';
import { tenantOf } from './plugins/auth.js';
import type { ViewContext } from './scan-views.js';
import type { Services } from './services.js';

/** The address clients reach this service at: the configured public URL, else the request's own. */
export function publicBase(services: Services, request: FastifyRequest): string {
  return services.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * The dashboard's address for links a browser follows back here (the sign-up checkout's return): the
 * configured VIGIL_APP_URL, or this server's /app when that is only a guess of the listening address.
 */
export function dashboardBase(services: Services, request: FastifyRequest): string {
  return services.config.appUrlGuessed ? `${publicBase(services, request)}/app` : services.config.appUrl.replace(/\/+$/, '');
}

export function viewContext(services: Services, request: FastifyRequest): ViewContext {
  return { plan: tenantOf(request).plan, baseUrl: publicBase(services, request), links: services.artifactLinks };
}

/** viewContext with the tenant's suppressions, for bodies and reports of a finished scan. */
export async function triagedViewContext(services: Services, request: FastifyRequest): Promise<ViewContext> {
  return { ...viewContext(services, request), triage: { suppressions: await services.suppressions.all(tenantOf(request).id), now: services.clock() } };
}

export function featureNotAvailable(services: Services, feature: Feature, message: string): ApiError {
  return featureNotAvailableError(services.config.appUrl, feature, message);
}

/** The tenant's scan or 404 (another tenant's scan is indistinguishable from a missing one). */
export async function ownScan(services: Services, request: FastifyRequest, id: string): Promise<StoredScan> {
  const scan = await services.scans.get(tenantOf(request).id, id);
  if (!scan) throw new ApiError(404, 'NOT_FOUND', `Scan ${id} not found`);
  return scan;
}
