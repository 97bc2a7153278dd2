import type { FastifyInstance } from 'fastify';
import type { Member } from '../../store/members.js';
import { recordAudit } from '../audit.js';
import { ApiError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, errorResponses, pageBody } from '../schemas/common.js';
import { AuditList, AuditQuery, MemberBody, MemberIdParams, MemberList, MemberListQuery, MemberPatch } from '../schemas/sso.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

function memberBody(m: Member) {
  return { member_id: m.id, email: m.email, name: m.name, role: m.role, created_at: m.created_at, last_sign_in_at: m.last_sign_in_at };
}

const ADMIN_ERRORS = { ...AUTHENTICATED_ERRORS, 403: "The session's role is not admin (FORBIDDEN), or no CSRF token (CSRF_TOKEN_INVALID)" };

/** Members (admin) and the audit log (admin). */
export async function memberRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/members',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Members of the tenant',
        description: 'Admin only. People provisioned at their first single sign-on, oldest first.',
        querystring: MemberListQuery,
        response: { 200: MemberList, ...errorResponses({ ...ADMIN_ERRORS, 422: 'Bad page or per_page' }) },
      },
    },
    async (request) => {
      const { items, total } = await services.members.list(tenantOf(request).id, request.query.page ?? 1, request.query.per_page ?? 20);
      return pageBody('members', items.map(memberBody), total, request.query);
    },
  );

  app.patch(
    '/members/:id',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: "Change a member's role",
        description:
          "Admin only; applies to the member's open sessions at once. Recorded in the audit log. The IdP's group mapping sets it again at the member's next sign-in when their groups map to a role.",
        params: MemberIdParams,
        body: MemberPatch,
        response: { 200: MemberBody, ...errorResponses({ ...ADMIN_ERRORS, 404: 'No such member', 422: 'Unknown role' }) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request).id;
      const before = await services.members.get(tenantId, request.params.id);
      const member = await services.members.setRole(tenantId, request.params.id, request.body.role);
      if (!member || !before) throw new ApiError(404, 'NOT_FOUND', `Member ${request.params.id} not found`);
      await recordAudit(services, request, 'member.role_changed', member.id, { email: member.email, from: before.role, to: member.role });
      return memberBody(member);
    },
  );

  app.delete(
    '/members/:id',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Remove a member',
        description:
          "Admin only. The member's sessions end at once; a later single sign-on provisions them again with the mapped or default role. Recorded in the audit log.",
        params: MemberIdParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses({ ...ADMIN_ERRORS, 404: 'No such member' }) },
      },
    },
    async (request, reply) => {
      const member = await services.members.remove(tenantOf(request).id, request.params.id);
      if (!member) throw new ApiError(404, 'NOT_FOUND', `Member ${request.params.id} not found`);
      await recordAudit(services, request, 'member.removed', member.id, { email: member.email, role: member.role });
      return reply.code(204).send();
    },
  );

  app.get(
    '/audit-log',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Audit log of the tenant, most recent first',
        description:
          "Admin only. Who (a member's email or an API key prefix), what (`scan.started`, `scan.cancelled`, `baseline.approved`, `baseline.deleted`, `key.rotated`, `sso.configured`, `sso.removed`, `sso.domain_added`, `sso.domain_verified`, `sso.domain_removed`, " +
          '`member.provisioned`, `member.role_changed`, `member.removed`, `session.signed_in`, `session.signed_out`, `plan.changed`, `suppression.created`, `suppression.deleted`), when and from which address. Filters: action, actor, from, to.',
        querystring: AuditQuery,
        response: { 200: AuditList, ...errorResponses({ ...ADMIN_ERRORS, 422: 'Bad paging or filter' }) },
      },
    },
    async (request) => {
      const { action, actor, from, to } = request.query;
      const { items, total } = await services.audit.list(
        tenantOf(request).id,
        { action, actor, from: from && new Date(from).toISOString(), to: to && new Date(to).toISOString() },
        request.query.page ?? 1,
        request.query.per_page ?? 20,
      );
      const entries = items.map((e) => ({
        entry_id: e.id,
        at: e.at,
        actor_type: e.actor_type,
        actor: e.actor,
        action: e.action,
        target: e.target,
        detail: e.detail ? (JSON.parse(e.detail) as Record<string, unknown>) : null,
        address: e.address,
      }));
      return pageBody('entries', entries, total, request.query);
    },
  );
}
