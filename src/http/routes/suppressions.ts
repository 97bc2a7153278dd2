import type { FastifyInstance } from 'fastify';
import { resolveFingerprintPrefix, suppressionActive, type StoredSuppression } from '../../domain/suppressions.js';
import { recordAudit } from '../audit.js';
import { ApiError } from '../errors.js';
import { actorOf, tenantOf } from '../plugins/auth.js';
import { errorResponses, pageBody } from '../schemas/common.js';
import {
  CREATE_ERRORS,
  CreateSuppressionBody,
  DELETE_ERRORS,
  LIST_ERRORS,
  SuppressionBody,
  SuppressionIdParams,
  SuppressionList,
  SuppressionListQuery,
} from '../schemas/suppressions.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

const TRIAGE =
  "Triage is one thing: a suppression applies to the results body, every report (HTML, JSON, CSV, SARIF, JUnit) and the CLI's gate, whatever the fail_on threshold.";

/** Server-side suppressions: findings a team accepted, with reason, author and optional expiry (docs/api.md, Triage). */
export async function suppressionRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const view = (s: StoredSuppression) => ({
    suppression_id: s.id,
    fingerprint: s.fingerprint,
    target: s.target,
    reason: s.reason,
    author: s.author,
    created_at: s.created_at,
    expires_at: s.expires_at,
    active: suppressionActive(s, services.clock()),
  });

  app.get(
    '/suppressions',
    {
      schema: {
        tags: ['triage'],
        summary: 'List suppressions',
        description: `The tenant's suppressions, newest first, expired ones included (\`active: false\`). ${TRIAGE}`,
        querystring: SuppressionListQuery,
        response: { 200: SuppressionList, ...errorResponses(LIST_ERRORS) },
      },
    },
    async (request) => {
      const { items, total } = await services.suppressions.list(tenantOf(request).id, request.query.page ?? 1, request.query.per_page ?? 20);
      return pageBody('suppressions', items.map(view), total, request.query);
    },
  );

  app.post(
    '/suppressions',
    {
      schema: {
        tags: ['triage'],
        summary: 'Suppress a finding',
        description:
          "Accepts one finding, named by its fingerprint or a unique prefix of it (8+ characters) among the findings of the tenant's recent scans; the full fingerprint is stored. " +
          `Optionally only on one target, and until \`expires_at\`. The author is the request's actor (a member's email or the API key's prefix). Recorded in the audit log (\`suppression.created\`). ${TRIAGE}`,
        body: CreateSuppressionBody,
        response: { 201: { ...SuppressionBody, description: 'Created' }, ...errorResponses(CREATE_ERRORS) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request).id;
      const { fingerprint: prefix, reason, expires_at, target } = request.body;
      let expiresAt: string | null = null;
      if (expires_at !== undefined) {
        const at = new Date(expires_at);
        if (at.getTime() <= services.clock().getTime())
          throw new ApiError(422, 'VALIDATION_ERROR', 'expires_at must be in the future', {
            fields: [{ field: 'expires_at', message: 'must be in the future' }],
          });
        expiresAt = at.toISOString();
      }
      const resolved = resolveFingerprintPrefix(prefix, await services.suppressions.findingFingerprints(tenantId));
      if ('error' in resolved) {
        if (resolved.error === 'unknown')
          throw new ApiError(422, 'FINGERPRINT_UNKNOWN', `No finding of this tenant's recent scans has a fingerprint starting with "${prefix}"`, {
            fields: [{ field: 'fingerprint', message: 'names no finding' }],
          });
        throw new ApiError(
          422,
          'FINGERPRINT_AMBIGUOUS',
          `"${prefix}" is the start of ${resolved.candidates.length} findings' fingerprints (${resolved.candidates
            .slice(0, 5)
            .map((c) => c.slice(0, 12))
            .join(', ')}); give more characters`,
          {
            fields: [{ field: 'fingerprint', message: 'names more than one finding' }],
          },
        );
      }
      const suppression = await services.suppressions.create(tenantId, {
        fingerprint: resolved.fingerprint,
        target: target ?? null,
        reason: reason.trim(),
        author: actorOf(request).name,
        expires_at: expiresAt,
      });
      await recordAudit(services, request, 'suppression.created', suppression.id, {
        fingerprint: suppression.fingerprint,
        target: suppression.target,
        reason: suppression.reason,
        expires_at: suppression.expires_at,
      });
      return reply.code(201).send(view(suppression));
    },
  );

  app.delete(
    '/suppressions/:id',
    {
      schema: {
        tags: ['triage'],
        summary: 'Delete a suppression (un-suppress)',
        description:
          'The finding counts again in the next results and reports, and fails gates at their threshold. Recorded in the audit log (`suppression.deleted`).',
        params: SuppressionIdParams,
        response: { 204: { description: 'Deleted', type: 'null' }, ...errorResponses(DELETE_ERRORS) },
      },
    },
    async (request, reply) => {
      const removed = await services.suppressions.delete(tenantOf(request).id, request.params.id);
      if (!removed) throw new ApiError(404, 'NOT_FOUND', `Suppression ${request.params.id} not found`);
      await recordAudit(services, request, 'suppression.deleted', removed.id, {
        fingerprint: removed.fingerprint,
        target: removed.target,
        reason: removed.reason,
      });
      return reply.code(204).send();
    },
  );
}
