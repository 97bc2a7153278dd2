import type { FastifyRequest } from 'fastify';
import { actorOf } from './plugins/auth.js';
import type { Services } from './services.js';

/** Records what the request's actor did, with the client's address (the audit log, docs/sso.md). */
export async function recordAudit(
  services: Services,
  request: FastifyRequest,
  action: string,
  target?: string | null,
  detail?: Record<string, unknown>,
): Promise<void> {
  const actor = actorOf(request);
  await services.audit.record(request.tenant!.id, { type: actor.type, name: actor.name }, action, { target: target ?? null, detail, address: request.ip });
}
