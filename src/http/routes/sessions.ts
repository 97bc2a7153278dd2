import type { FastifyInstance } from 'fastify';
import { planHasFeature } from '../../domain/plans.js';
import { ApiError } from '../errors.js';
import { actorOf, clearSessionCookie, SESSION_COOKIE, setSessionCookie, tenantOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../schemas/common.js';
import { SessionBody } from '../schemas/sso.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

/** Dashboard sessions: who is signed in, signing out, and the explicit key sign-in. */
export async function sessionRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const ssoRequired = async (tenantId: string, plan: Parameters<typeof planHasFeature>[0]) =>
    planHasFeature(plan, 'sso') && (await services.sso.view(tenantId))?.sso_required === true;

  app.get(
    '/session',
    {
      schema: {
        tags: ['sso'],
        summary: 'Who is signed in',
        description:
          'With the session cookie: the member, role, CSRF token (send it in X-CSRF-Token on every state-changing request) and expiry. With X-API-Key: the tenant, role admin and method `api_key`.',
        response: { 200: SessionBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 401: 'No key and no live session (INVALID_API_KEY, SESSION_EXPIRED)' }) },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const actor = actorOf(request);
      const member = actor.memberId ? await services.members.get(tenant.id, actor.memberId) : undefined;
      return {
        tenant_id: tenant.id,
        plan: tenant.plan,
        role: actor.role,
        method: actor.session?.method ?? 'api_key',
        member: member ? { member_id: member.id, email: member.email, name: member.name } : null,
        csrf_token: actor.session?.csrfToken ?? null,
        expires_at: actor.session?.expiresAt ?? null,
        sso_required: await ssoRequired(tenant.id, tenant.plan),
      };
    },
  );

  app.delete(
    '/session',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['sso'],
        summary: 'Sign out',
        description:
          "Ends the cookie's session on every api process at once and clears the cookie. Needs X-CSRF-Token like every state-changing cookie request.",
        response: {
          204: { type: 'null', description: 'Signed out' },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 403: 'No or wrong CSRF token (CSRF_TOKEN_INVALID)' }),
        },
      },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token && actorOf(request).session) {
        await services.members.endSession(token);
        await services.audit.record(tenantOf(request).id, { type: actorOf(request).type, name: actorOf(request).name }, 'session.signed_out', {
          address: request.ip,
        });
      }
      clearSessionCookie(reply, request, services);
      return reply.code(204).send();
    },
  );

  app.post(
    '/session/key',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['sso'],
        summary: 'Sign in to the dashboard with the API key',
        description:
          'Send the key in X-API-Key: answers with the session (role admin) and sets the HttpOnly session cookie, so the dashboard need not keep the key. ' +
          'Refused with 403 SSO_REQUIRED when the tenant requires single sign-on (the key keeps working for the API).',
        response: { 200: SessionBody, ...errorResponses({ ...AUTHENTICATED_ERRORS, 403: 'The tenant requires single sign-on (SSO_REQUIRED)' }) },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const actor = actorOf(request);
      if (actor.session) throw new ApiError(422, 'VALIDATION_ERROR', 'Send the API key in X-API-Key to sign in with it');
      if (await ssoRequired(tenant.id, tenant.plan))
        throw new ApiError(403, 'SSO_REQUIRED', 'This tenant requires single sign-on for the dashboard: sign in through your identity provider');
      const { token, session } = await services.members.openSession(tenant.id, { keyPrefix: actor.name }, 'key');
      await services.audit.record(tenant.id, { type: 'api_key', name: actor.name }, 'session.signed_in', { detail: { method: 'key' }, address: request.ip });
      setSessionCookie(reply, request, services, token, services.config.sessions.absoluteSeconds);
      return {
        tenant_id: tenant.id,
        plan: tenant.plan,
        role: 'admin' as const,
        method: 'key',
        member: null,
        csrf_token: session.csrf_token,
        expires_at: session.expires_at,
        sso_required: false,
      };
    },
  );
}
