import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../schemas/common.js';
import { EmailDomainBody, EmailDomainList, EmailDomainParams, EmailDomainView } from '../schemas/sso.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';
import { asApiError, requireEnterprise } from './sso.js';

const ADMIN_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  402: 'Not on the enterprise plan (FEATURE_NOT_AVAILABLE, upgrade_url)',
  403: "The session's role is not admin (FORBIDDEN), or no CSRF token (CSRF_TOKEN_INVALID)",
} as const;

/**
 * Email domains for sign-in by email (docs/sso.md): an admin claims a domain, publishes the TXT record the
 * answer names, and asks Vigil to verify it. Admin only, enterprise plan; every change is in the audit log.
 */
export async function ssoDomainRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const who = (request: FastifyRequest) => ({ by: { type: actorOf(request).type, name: actorOf(request).name }, address: request.ip });

  app.get(
    '/sso/domains',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: "The tenant's email domains and their DNS proof",
        description:
          'Admin only. Each claimed domain with the TXT record that proves it and whether it was found (only verified domains route sign-in by email).',
        response: { 200: EmailDomainList, ...errorResponses(ADMIN_ERRORS) },
      },
    },
    async (request) => ({ domains: await services.emailDomains.list(requireEnterprise(services, request)) }),
  );

  app.post(
    '/sso/domains',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Claim an email domain',
        description:
          'Admin only, enterprise plan. Answers the TXT record to publish (`_vigil-challenge.<domain>`, value `vigil-domain-verification=<token>`); ' +
          'then call verify. A domain another tenant has verified is 409 EMAIL_DOMAIN_TAKEN. Claiming a domain already claimed by this tenant answers that claim (200). ' +
          'Recorded in the audit log (`sso.domain_added`).',
        body: EmailDomainBody,
        response: {
          201: { ...EmailDomainView, description: 'Claimed: publish the TXT record, then verify' },
          200: { ...EmailDomainView, description: 'Already claimed by this tenant' },
          ...errorResponses({ ...ADMIN_ERRORS, 409: 'Verified by another tenant (EMAIL_DOMAIN_TAKEN)' }),
        },
      },
    },
    async (request, reply) => {
      const tenantId = requireEnterprise(services, request);
      try {
        const { view, created } = await services.emailDomains.claim(tenantId, request.body.domain.toLowerCase(), who(request));
        return reply.code(created ? 201 : 200).send(view);
      } catch (error) {
        throw asApiError(error);
      }
    },
  );

  app.post(
    '/sso/domains/:domain/verify',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: "Verify an email domain's TXT record",
        description:
          "Admin only, enterprise plan. Looks up the TXT records at `_vigil-challenge.<domain>` (through VIGIL_DNS_SERVERS when set); the domain is verified when one of them is exactly the claim's value. " +
          'Not found (or the lookup failed): 422 DOMAIN_NOT_VERIFIED saying what was expected. Verified by another tenant: 409 EMAIL_DOMAIN_TAKEN. ' +
          'Recorded in the audit log (`sso.domain_verified`).',
        params: EmailDomainParams,
        response: {
          200: { ...EmailDomainView, description: 'Verified: email addresses of this domain now sign in to this tenant' },
          ...errorResponses({
            ...ADMIN_ERRORS,
            404: 'The domain is not claimed by this tenant (NOT_FOUND)',
            409: 'Verified by another tenant (EMAIL_DOMAIN_TAKEN)',
            422: 'The TXT record was not found (DOMAIN_NOT_VERIFIED), or the path holds no domain name (VALIDATION_ERROR)',
          }),
        },
      },
    },
    async (request) => {
      const tenantId = requireEnterprise(services, request);
      try {
        return await services.emailDomains.verify(tenantId, request.params.domain.toLowerCase(), who(request));
      } catch (error) {
        throw asApiError(error);
      }
    },
  );

  app.delete(
    '/sso/domains/:domain',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Release an email domain',
        description:
          'Admin only. Sign-in by email of this domain stops routing to the tenant; another tenant may then verify it. Recorded in the audit log (`sso.domain_removed`).',
        params: EmailDomainParams,
        response: {
          204: { type: 'null', description: 'Released' },
          ...errorResponses({
            ...ADMIN_ERRORS,
            404: 'The domain is not claimed by this tenant (NOT_FOUND)',
            422: 'The path holds no domain name (VALIDATION_ERROR)',
          }),
        },
      },
    },
    async (request, reply) => {
      const tenantId = requireEnterprise(services, request);
      if (!(await services.emailDomains.release(tenantId, request.params.domain.toLowerCase(), who(request))))
        throw new ApiError(404, 'NOT_FOUND', `The email domain ${request.params.domain} is not claimed by this tenant`);
      return reply.code(204).send();
    },
  );
}
