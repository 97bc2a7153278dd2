import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { planHasFeature } from '../../domain/plans.js';
import { SsoError } from '../../sso/service-error.js';
import { ApiError } from '../errors.js';
import { actorOf, setSessionCookie, tenantOf } from '../plugins/auth.js';
import { featureNotAvailable, publicBase } from '../route-context.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../schemas/common.js';
import { LoginQuery, SsoConfigBody, SsoConfigView, TenantParams, TenantQuery } from '../schemas/sso.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';
import { API_PREFIX } from '../plugins/docs.js';

/** Binds a sign-in under way to the browser that started it (OIDC login CSRF). */
const SIGN_IN_COOKIE = 'vigil_sso_request';

export function asApiError(error: unknown): unknown {
  return error instanceof SsoError ? new ApiError(error.status, error.code, error.message) : error;
}

/** Where a browser whose sign-in was refused lands: the dashboard's sign-in page, which explains the code in plain words. */
export const SIGN_IN_REFUSED_PATH = '/app/sign-in';

/**
 * Whether the request is a browser's page navigation (a link, a redirect from the IdP, the SAML form's
 * post): `Sec-Fetch-Mode: navigate`, or a browser too old for fetch metadata asking for HTML first.
 * Only such requests are sent to the sign-in page when refused; API clients keep the JSON error.
 */
export function isBrowserNavigation(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-mode'] === 'navigate') return true;
  return request.headers['sec-fetch-mode'] === undefined && /^text\/html\b/.test(String(request.headers.accept ?? ''));
}

/**
 * A refused sign-in: a browser navigation lands on the dashboard's sign-in page with the error code
 * (`?sso_error=SSO_STATE_MISMATCH`...; never the message, which may carry the IdP's words), anything else
 * gets the JSON error body.
 */
export function refuseSignIn(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const failure = asApiError(error);
  if (!(failure instanceof ApiError) || failure.status >= 500 || !isBrowserNavigation(request) || wantsJson(request)) throw failure;
  return reply.redirect(`${SIGN_IN_REFUSED_PATH}?sso_error=${encodeURIComponent(failure.code)}`, 302);
}

/** Where the IdP sends the browser back, for the IdP admin and the flows. */
export function serviceProviderUrls(services: Services, request: FastifyRequest, tenantId: string) {
  const base = `${publicBase(services, request)}${API_PREFIX}`;
  return {
    oidc_redirect_uri: `${base}/sso/oidc/callback`,
    saml_acs_url: `${base}/sso/saml/acs/${encodeURIComponent(tenantId)}`,
    saml_entity_id: `${base}/sso/saml/metadata?tenant=${encodeURIComponent(tenantId)}`,
    saml_metadata_url: `${base}/sso/saml/metadata?tenant=${encodeURIComponent(tenantId)}`,
    sign_in_url: `${base}/sso/login?tenant=${encodeURIComponent(tenantId)}`,
  };
}

export function requireEnterprise(services: Services, request: FastifyRequest): string {
  const tenant = tenantOf(request);
  if (!planHasFeature(tenant.plan, 'sso'))
    throw featureNotAvailable(services, 'sso', `Single sign-on (SAML 2.0, OpenID Connect) is part of the enterprise plan; this tenant is on ${tenant.plan}`);
  return tenant.id;
}

/** The `sso` group: the identity provider configuration (admin, enterprise plan) and the sign-in flows (public). */
export async function ssoRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/sso/config',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: "The tenant's single sign-on configuration",
        description: 'Admin only. With the values to give the identity provider (redirect URI, ACS URL, entity id). The client secret is never returned.',
        response: {
          200: SsoConfigView,
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            402: 'Not on the enterprise plan (FEATURE_NOT_AVAILABLE, upgrade_url)',
            403: "The session's role is not admin (FORBIDDEN)",
            404: 'Not configured (SSO_NOT_CONFIGURED)',
          }),
        },
      },
    },
    async (request) => {
      const tenantId = requireEnterprise(services, request);
      const view = await services.sso.view(tenantId);
      if (!view) throw new ApiError(404, 'SSO_NOT_CONFIGURED', 'Single sign-on is not set up for this tenant');
      return { ...view, service_provider: serviceProviderUrls(services, request, tenantId) };
    },
  );

  app.put(
    '/sso/config',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Set up single sign-on (OpenID Connect or SAML 2.0)',
        description:
          'Admin only, enterprise plan. OpenID Connect: the issuer is discovered at once (422 SSO_ISSUER_UNREACHABLE when it cannot be). ' +
          'SAML: the IdP metadata XML must name a SingleSignOnService and a signing certificate (422 otherwise). Members are provisioned at their first sign-in ' +
          'with the role their groups map to (`group_claim`, `role_mapping`), else `default_role`. `sso_required` ends key sign-in sessions at once and refuses new ones. Recorded in the audit log.',
        body: SsoConfigBody,
        response: {
          200: SsoConfigView,
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            402: 'Not on the enterprise plan (FEATURE_NOT_AVAILABLE, upgrade_url)',
            403: "The session's role is not admin (FORBIDDEN), or no CSRF token (CSRF_TOKEN_INVALID)",
            409: 'One of `email_domains` is verified by another tenant (EMAIL_DOMAIN_TAKEN)',
            422: 'Invalid configuration',
          }),
        },
      },
    },
    async (request) => {
      const tenantId = requireEnterprise(services, request);
      const actor = actorOf(request);
      try {
        const view = await services.sso.configure(tenantId, request.body, { type: actor.type, name: actor.name }, request.ip);
        return { ...view, service_provider: serviceProviderUrls(services, request, tenantId) };
      } catch (error) {
        throw asApiError(error);
      }
    },
  );

  app.delete(
    '/sso/config',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['sso'],
        summary: 'Turn single sign-on off',
        description: 'Admin only. Members and their sessions stay until removed; no one can sign in through the IdP any more. Recorded in the audit log.',
        response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses({ ...AUTHENTICATED_ERRORS, 403: 'Not admin', 404: 'Not configured' }) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request).id;
      const actor = actorOf(request);
      if (!(await services.sso.remove(tenantId, { type: actor.type, name: actor.name }, request.ip)))
        throw new ApiError(404, 'SSO_NOT_CONFIGURED', 'Single sign-on is not set up for this tenant');
      return reply.code(204).send();
    },
  );

  app.get(
    '/sso/login',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        summary: 'Start a single sign-on (browser)',
        description:
          "Public: the dashboard's sign-in page sends the browser here with `tenant` or `email` (its verified domain finds the tenant). " +
          'Answers 302 to the identity provider (OIDC: authorization code + PKCE, state and nonce; SAML: an AuthnRequest by HTTP-Redirect). ' +
          '`return_to` is kept only when it is a dashboard path (/app/...), never another site.',
        querystring: LoginQuery,
        response: {
          200: {
            type: 'object',
            properties: { authorization_url: { type: 'string' } },
            required: ['authorization_url'],
            description: 'With `Accept: application/json`: where to send the browser (for a page that navigates itself)',
          },
          302: {
            type: 'null',
            description: "To the identity provider; or, when a browser navigation is refused, to the dashboard's sign-in page with `?sso_error=<code>`",
          },
          ...errorResponses({
            402: 'The tenant is not on the enterprise plan',
            404: 'No single sign-on for this tenant or email domain (SSO_NOT_CONFIGURED)',
            422: 'Neither tenant nor email',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenant, email, return_to } = request.query;
      if (!tenant && !email)
        throw new ApiError(422, 'VALIDATION_ERROR', 'Give tenant or email', { fields: [{ field: 'tenant', message: 'tenant or email is required' }] });
      try {
        const tenantId = await services.sso.tenantFor({ tenant, email });
        const owner = await services.tenants.get(tenantId);
        const row = await services.sso.config(tenantId);
        if (!owner || owner.status !== 'active') throw new ApiError(404, 'SSO_NOT_CONFIGURED', `Single sign-on is not set up for tenant ${tenantId}`);
        if (!planHasFeature(owner.plan, 'sso')) throw featureNotAvailable(services, 'sso', 'Single sign-on is part of the enterprise plan');
        const urls = serviceProviderUrls(services, request, tenantId);
        if (row.protocol === 'oidc') {
          const { url, requestId } = await services.sso.startOidc(row, urls.oidc_redirect_uri, return_to);
          reply.setCookie(SIGN_IN_COOKIE, requestId, {
            path: `${API_PREFIX}/sso`,
            httpOnly: true,
            sameSite: 'lax',
            secure: request.protocol === 'https',
            maxAge: 600,
          });
          return wantsJson(request) ? { authorization_url: url } : reply.redirect(url, 302);
        }
        const url = await services.sso.startSaml(row, { acsUrl: urls.saml_acs_url, entityId: urls.saml_entity_id }, return_to);
        return wantsJson(request) ? { authorization_url: url } : reply.redirect(url, 302);
      } catch (error) {
        return refuseSignIn(request, reply, error);
      }
    },
  );

  app.get(
    '/sso/oidc/callback',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        summary: 'OpenID Connect redirect URI',
        description:
          'Public: the identity provider sends the browser here. The state must be the one this browser started with (cookie), the code is exchanged with the PKCE verifier, ' +
          "and the ID token's signature, issuer, audience, expiry and nonce are verified. Then the member is provisioned (just in time), the session cookie is set and the browser lands on `return_to`. " +
          "Refused: 400 SSO_STATE_MISMATCH or SSO_SIGN_IN_REFUSED; a browser navigation (Sec-Fetch-Mode: navigate) is sent instead to the dashboard's sign-in page with `?sso_error=<code>`.",
        response: {
          200: {
            type: 'object',
            properties: { return_to: { type: 'string' } },
            required: ['return_to'],
            description: 'Signed in, with `Accept: application/json`: the session cookie is set; the dashboard path to open',
          },
          302: {
            type: 'null',
            description:
              "Signed in: to the dashboard. Refused, to a browser navigation: to the dashboard's sign-in page, /app/sign-in?sso_error=<code>, which says why in plain words",
          },
          ...errorResponses({ 400: 'State mismatch, expired or replayed sign-in, or the ID token was refused' }),
        },
      },
    },
    async (request, reply) => {
      const url = new URL(request.url, 'http://callback.invalid');
      try {
        if (url.searchParams.has('error'))
          throw new ApiError(400, 'SSO_SIGN_IN_REFUSED', `The identity provider refused the sign-in: ${url.searchParams.get('error')}`);
        const signedIn = await services.sso.finishOidc(url, request.cookies[SIGN_IN_COOKIE], request.ip);
        reply.clearCookie(SIGN_IN_COOKIE, { path: `${API_PREFIX}/sso` });
        return finishSignIn(services, request, reply, signedIn.token, signedIn.returnTo);
      } catch (error) {
        // The sign-in cookie stays: a forged callback must not spoil the genuine one still under way.
        return refuseSignIn(request, reply, error);
      }
    },
  );
}

function wantsJson(request: FastifyRequest): boolean {
  return /^application\/json\b/.test(String(request.headers.accept ?? ''));
}

/** The SAML routes: the assertion consumer service (HTTP-POST) and the SP metadata. */
export async function samlRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The IdP posts an HTML form: read it in this scope only.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post(
    '/sso/saml/acs/:tenant',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        summary: 'SAML assertion consumer service (HTTP-POST binding)',
        description:
          "Public: the IdP posts `SAMLResponse` (and `RelayState`) here. Required: a signed assertion (the IdP's certificate from its metadata), audience = the SP entity id, recipient = this URL, " +
          'NotBefore/NotOnOrAfter, InResponseTo = a request this server made (once); an assertion id accepted before is refused as a replay. Then as the OIDC callback: member provisioned, session cookie, to `RelayState` (a dashboard path).',
        consumes: ['application/x-www-form-urlencoded'],
        params: TenantParams,
        response: {
          200: {
            type: 'object',
            properties: { return_to: { type: 'string' } },
            required: ['return_to'],
            description: 'Signed in, with `Accept: application/json`',
          },
          302: { type: 'null', description: 'Signed in: to the dashboard. Refused, to a browser navigation: to /app/sign-in?sso_error=<code>' },
          ...errorResponses({
            400: 'The response was refused (SSO_SIGN_IN_REFUSED) or SAML is not set up (SSO_NOT_CONFIGURED)',
            404: 'No single sign-on for this tenant',
          }),
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const urls = serviceProviderUrls(services, request, request.params.tenant);
      try {
        if (typeof body.SAMLResponse !== 'string' || body.SAMLResponse.length === 0)
          throw new ApiError(400, 'SSO_SIGN_IN_REFUSED', 'No SAMLResponse in the form');
        const signedIn = await services.sso.finishSaml(
          request.params.tenant,
          { acsUrl: urls.saml_acs_url, entityId: urls.saml_entity_id },
          body.SAMLResponse,
          body.RelayState,
          request.ip,
        );
        return finishSignIn(services, request, reply, signedIn.token, signedIn.returnTo);
      } catch (error) {
        return refuseSignIn(request, reply, error);
      }
    },
  );

  app.get(
    '/sso/saml/metadata',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        summary: 'SAML service provider metadata of a tenant',
        description: 'Public: the XML to import at the IdP (entity id, assertion consumer service URL, HTTP-POST binding, signed assertions wanted).',
        querystring: TenantQuery,
        response: {
          200: {
            description: 'SP metadata XML',
            content: {
              'application/samlmetadata+xml': {
                schema: { type: 'string', contentMediaType: 'application/samlmetadata+xml', description: 'SAML 2.0 SP metadata' },
              },
            },
          },
          ...errorResponses({
            400: 'SAML is not set up for this tenant',
            404: 'No single sign-on for this tenant',
            422: 'The tenant query parameter is missing or not a tenant id',
          }),
        },
      },
    },
    async (request, reply) => {
      const urls = serviceProviderUrls(services, request, request.query.tenant);
      try {
        const row = await services.sso.config(request.query.tenant);
        const xml = services.sso.spMetadata(row, { acsUrl: urls.saml_acs_url, entityId: urls.saml_entity_id });
        return reply.type('application/samlmetadata+xml').send(xml);
      } catch (error) {
        throw asApiError(error);
      }
    },
  );
}

/** Sets the session cookie and sends the browser to its dashboard path (or names it, to a page asking for JSON). */
export function finishSignIn(services: Services, request: FastifyRequest, reply: FastifyReply, token: string, returnTo: string) {
  setSessionCookie(reply, request, services, token, services.config.sessions.absoluteSeconds);
  return wantsJson(request) ? { return_to: returnTo } : reply.redirect(returnTo, 302);
}
