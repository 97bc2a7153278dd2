import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BillingService } from '../../billing/service.js';
import { tenantOf } from '../plugins/auth.js';
import { limitPerClient } from '../plugins/rate-limit.js';
import { requireSyncKey } from '../plugins/sync-key.js';
import { ApiError } from '../errors.js';
import { dashboardBase } from '../route-context.js';
import {
  BillingStatusBody,
  CheckoutBody,
  ClaimBody,
  CheckoutSession,
  CheckoutSessionParams,
  IssuedKey,
  NOT_CONFIGURED,
  PortalBody,
  PortalSession,
  SignupBody,
  SignupOptions,
  SignupSession,
  WebhookAck,
  WebhookHeaders,
} from '../schemas/billing.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses } from '../schemas/common.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

/** Billing: checkout, the dashboard's sign-up, portal, status, the provider's webhook, and the key hand-over of checkout-created tenants. */
export async function billingRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const billing: BillingService = services.billing;
  const requireConfigured = async () => {
    if (!billing.configured)
      throw new ApiError(503, 'PAYMENT_NOT_CONFIGURED', 'Billing is not configured on this server (PAYMENT_SECRET_KEY, PAYMENT_WEBHOOK_SECRET)');
  };

  app.post(
    '/billing/checkout',
    {
      config: { permission: 'administer' },
      onRequest: requireConfigured,
      schema: {
        tags: ['billing'],
        summary: 'Start a hosted checkout for a plan',
        description:
          "Creates a subscription-mode checkout session for the tenant's provider customer (created on first use) and returns the URL " +
          'to redirect the user to. Give `plan` or `price_id` (a configured PAYMENT_PRICE_ID_* value); both must agree when both are given. ' +
          "A checkout for another plan than the active subscription's replaces that subscription when it completes. The session expires after 24 hours.",
        body: CheckoutBody,
        response: {
          200: {
            ...CheckoutSession,
            description: 'Checkout session created',
            headers: RATE_LIMIT_HEADERS,
            examples: [
              { checkout_url: 'https://checkout.provider.example/c/pay/cs_test_a1', session_id: 'cs_test_a1', expires_at: '2026-11-24T10:00:00.000Z' },
            ],
          },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            400: 'INVALID_PRICE_ID: price_id is not a configured price, or the plan has no configured price; or the body is not JSON',
            409: 'ALREADY_SUBSCRIBED: the tenant already has an active subscription to this plan',
            422: 'VALIDATION_ERROR: success_url / cancel_url missing or not absolute URLs, unknown plan, neither plan nor price_id, or they disagree',
            502: 'PAYMENT_PROVIDER_ERROR: the payment provider failed',
            503: NOT_CONFIGURED,
          }),
        },
      },
    },
    async (request) => billing.checkout(tenantOf(request), request.body),
  );

  const perClient =
    'Rate-limited per client address (on a hosted deployment, as its proxy reports it): VIGIL_SIGNUP_RATE_LIMIT requests (default 30) per 10 minutes.';

  app.get(
    '/billing/signup',
    {
      config: { public: true },
      schema: {
        tags: ['billing'],
        summary: 'Whether a new customer can sign up here, and for which plans',
        description:
          'No API key. What the dashboard\'s sign-in page asks before it offers "New to Vigil? Choose a plan": `available` is false on a server without a payment provider.',
        response: {
          200: { ...SignupOptions, description: 'Sign-up availability' },
          ...errorResponses({ 500: 'Unexpected server error (no internals disclosed)' }),
        },
      },
    },
    async () => {
      const plans = billing.signupPlans();
      return { available: plans.length > 0, plans };
    },
  );

  app.post(
    '/billing/signup',
    {
      config: { public: true },
      onRequest: [requireConfigured, limitPerClient(services.clientRateLimiter, 'signup')],
      schema: {
        tags: ['billing'],
        summary: 'Start a checkout for a new customer (no API key)',
        description:
          "The dashboard's sign-up: a subscription-mode checkout with no tenant yet (the provider collects the email and creates the customer). " +
          "Give `plan` or `price_id` as for POST /billing/checkout. The return addresses are the server's own and cannot be chosen: " +
          'success `<VIGIL_APP_URL>/welcome?session_id={CHECKOUT_SESSION_ID}` (the provider fills in the id), cancel `<VIGIL_APP_URL>/?signup=cancelled`. ' +
          'When the checkout completes, Vigil creates the tenant (checkout.session.completed); the `claim_token` returned here, once, ' +
          "then fetches its key once from POST /billing/checkout-sessions/{session_id}/claim. Only the token's SHA-256 is stored: keep it in the browser that started the checkout. " +
          perClient,
        body: SignupBody,
        response: {
          200: {
            ...SignupSession,
            description: 'Checkout session created; redirect the browser to checkout_url',
            headers: RATE_LIMIT_HEADERS,
            examples: [
              {
                checkout_url: 'https://checkout.provider.example/c/pay/cs_test_a1',
                session_id: 'cs_test_a1',
                expires_at: '2026-11-25T10:00:00.000Z',
                claim_token: 'q0Jz1m7cJ0x2T1bqk6nC9w0yJXr8Yp3VhLzq2m4N5sE',
              },
            ],
          },
          ...errorResponses({
            400: 'INVALID_PRICE_ID: price_id is not a configured price, or the plan has no configured price; or the body is not JSON',
            422: 'VALIDATION_ERROR: unknown plan, neither plan nor price_id, they disagree, or another field (such as success_url) was given',
            429: 'RATE_LIMIT_EXCEEDED: too many sign-ups from this address; see Retry-After',
            500: 'Unexpected server error (no internals disclosed)',
            502: 'PAYMENT_PROVIDER_ERROR: the payment provider failed',
            503: NOT_CONFIGURED,
          }),
        },
      },
    },
    async (request) => {
      const dashboard = dashboardBase(services, request);
      return billing.signup(request.body, {
        success_url: `${dashboard}/welcome?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${dashboard}/?signup=cancelled`,
      });
    },
  );

  app.post(
    '/billing/checkout-sessions/:session_id/claim',
    {
      config: { public: true },
      onRequest: [requireConfigured, limitPerClient(services.clientRateLimiter, 'claim')],
      schema: {
        tags: ['billing'],
        summary: 'Retrieve, once, the key of the tenant a dashboard sign-up created (no API key)',
        description:
          'The browser that started the checkout with POST /billing/signup presents its `claim_token`. The token is checked first (constant time): ' +
          'a missing or wrong one is 403 and changes nothing. Until the checkout.session.completed webhook has been processed the answer is 404: retry after a few seconds. ' +
          "The first successful call returns the new tenant's key and forgets it; later calls answer 410. " +
          perClient,
        params: CheckoutSessionParams,
        body: ClaimBody,
        response: {
          200: { ...IssuedKey, description: 'The new tenant and its key (only this once)', headers: RATE_LIMIT_HEADERS },
          ...errorResponses({
            400: 'The body is not JSON or not an object',
            403: 'INVALID_CLAIM_TOKEN: claim_token missing or wrong, or no dashboard sign-up started this checkout; nothing changes',
            404: 'NOT_FOUND: the checkout is not completed yet (the webhook has not arrived): retry in a few seconds',
            409: 'KEY_NOT_ISSUED: the checkout was linked to an existing tenant, whose key is unchanged',
            410: 'KEY_ALREADY_RETRIEVED: the key was already handed over (rotate it from Account if it was lost)',
            422: 'VALIDATION_ERROR: claim_token is not a string or too long',
            429: 'RATE_LIMIT_EXCEEDED: too many claims from this address; see Retry-After',
            500: 'Unexpected server error (no internals disclosed)',
            503: NOT_CONFIGURED,
          }),
        },
      },
    },
    async (request) => billing.claimWithToken(request.params.session_id, request.body.claim_token),
  );

  app.post(
    '/billing/portal',
    {
      config: { permission: 'administer' },
      onRequest: requireConfigured,
      schema: {
        tags: ['billing'],
        summary: 'Open the billing portal',
        description: 'Returns a provider billing-portal URL where the tenant changes plan, updates payment methods, downloads invoices or cancels.',
        body: PortalBody,
        response: {
          200: {
            ...PortalSession,
            description: 'Portal session created',
            headers: RATE_LIMIT_HEADERS,
            examples: [{ portal_url: 'https://billing.provider.example/p/session/bps_1' }],
          },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            400: 'Body is not JSON or not an object',
            409: 'NO_PAYMENT_CUSTOMER: the tenant has no provider customer yet (no checkout started, none given to sync-tenant)',
            422: 'VALIDATION_ERROR: return_url missing or not an absolute URL',
            502: 'PAYMENT_PROVIDER_ERROR: the payment provider failed or returned no portal URL',
            503: NOT_CONFIGURED,
          }),
        },
      },
    },
    async (request) => billing.portal(tenantOf(request), request.body.return_url),
  );

  app.get(
    '/billing/status',
    {
      onRequest: requireConfigured,
      schema: {
        tags: ['billing'],
        summary: 'Billing status',
        description: "Plan and subscription state as last reported by the provider's webhooks (read from the store; no provider call).",
        response: {
          200: { ...BillingStatusBody, description: 'Billing status', headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 503: NOT_CONFIGURED }),
        },
      },
    },
    async (request) => billing.status(tenantOf(request)),
  );

  app.get(
    '/billing/checkout-sessions/:session_id/key',
    {
      config: { public: true },
      onRequest: [requireConfigured, requireSyncKey(services.config.syncKey)],
      schema: {
        tags: ['billing'],
        summary: 'Retrieve, once, the key of a tenant created by a checkout (web application)',
        description:
          'When a completed checkout names no existing tenant, Vigil creates one and keeps its API key sealed until the web application ' +
          'fetches it here with the sync secret (`X-Sync-Key`). The first successful call returns the key and forgets it; later calls answer 410. ' +
          'Until the checkout.session.completed webhook has been processed the answer is 404: retry after a few seconds.',
        security: [{ SyncKey: [] }],
        params: CheckoutSessionParams,
        response: {
          200: { ...IssuedKey, description: 'The new tenant and its key (only this once)' },
          ...errorResponses({
            401: 'Missing or wrong X-Sync-Key',
            404: 'NOT_FOUND: no completed checkout with this id (yet)',
            409: 'KEY_NOT_ISSUED: the checkout was linked to an existing tenant, whose key is unchanged',
            410: 'KEY_ALREADY_RETRIEVED: the key was already handed over',
            503: 'PAYMENT_NOT_CONFIGURED or SYNC_NOT_CONFIGURED',
          }),
        },
      },
    },
    async (request) => billing.claimKey(request.params.session_id),
  );

  // The webhook needs the exact bytes that were signed: in this encapsulated scope every body is kept as a Buffer.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: Buffer) => void) =>
      done(null, body),
    );
    scope.post(
      '/billing/webhook',
      {
        config: { public: true },
        onRequest: requireConfigured,
        schema: {
          tags: ['billing'],
          summary: 'Receive payment-provider events',
          description:
            'No API key: the `Provider-Signature` header (`t=<unix>,v1=<hex>`, HMAC-SHA256 of `t.rawBody` with PAYMENT_WEBHOOK_SECRET; several v1 values allowed) ' +
            'is verified on the raw body by the provider SDK (`constructEvent`). Timestamps more than 300 s old, or (the timestamp the SDK verified) more than 300 s in the future, are refused. Any failure: 400 and nothing changes. ' +
            'A signed event whose object Vigil cannot use (no id, no customer, a subscription unknown to the provider, a client_reference_id that is not a tenant id...) is answered 200 `ignored` with a `reason` and logged. ' +
            'Each event id is applied at most once; an event older than the last change applied to its subscription does not roll it back. ' +
            'Handled: checkout.session.completed, customer.subscription.created/updated/deleted, invoice.paid, invoice.payment_failed, charge.refunded; others: 200, ignored.',
          headers: WebhookHeaders,
          response: {
            200: { ...WebhookAck, description: 'Event accepted (applied, duplicate, stale or ignored)' },
            ...errorResponses({
              400: 'INVALID_SIGNATURE: missing or wrong signature, body changed, timestamp outside the tolerance; INVALID_REQUEST: the signed body is not an event (id, type, created, data.object); nothing was changed',
              500: "The event could not be applied (store failure); nothing was recorded, so the provider's retry applies it",
              502: "PAYMENT_PROVIDER_ERROR: reading the event's subscription from the provider failed; nothing was recorded, so the provider's retry applies it",
              503: NOT_CONFIGURED,
            }),
          },
        },
      },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers['provider-signature'] ?? request.headers['stripe-signature'];
        const event = billing.verify(raw, Array.isArray(header) ? header.join(',') : header);
        return { received: true, ...(await billing.handle(event)) };
      },
    );
  });
}
