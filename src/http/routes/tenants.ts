import type { FastifyInstance } from 'fastify';
import { displayPrefix } from '../../domain/api-keys.js';
import { PaymentLinkConflictError, TenantExistsError } from '../../store/tenants.js';
import { recordAudit } from '../audit.js';
import { tenantOf } from '../plugins/auth.js';
import { requireSyncKey } from '../plugins/sync-key.js';
import { ApiError, validationError } from '../errors.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses } from '../schemas/common.js';
import { RotatedKey, SyncTenantBody, TenantResource } from '../schemas/tenants.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';

export async function tenantRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/billing/sync-tenant',
    {
      config: { public: true },
      schema: {
        tags: ['billing'],
        summary: 'Provision a tenant (called by the web application)',
        description:
          'Creates a tenant and issues its API key. Authenticated by the server-side sync secret in the `X-Sync-Key` header ' +
          '(not by a tenant key). The response is the only time the key is shown in full. Plan changes of existing tenants ' +
          'arrive through billing webhooks, so an existing tenant_id answers 409. With `payment_customer_id` (and `payment_subscription_id`) ' +
          "the tenant is linked to its provider customer: that customer's webhook events apply to it and its checkouts reuse the customer.",
        security: [{ SyncKey: [] }],
        body: SyncTenantBody,
        response: {
          200: { ...TenantResource, description: 'Tenant created; api_key is shown only here' },
          ...errorResponses({
            400: 'Body is not JSON or not an object',
            401: 'Missing or wrong X-Sync-Key',
            409: 'A tenant with this tenant_id already exists (TENANT_EXISTS); or the payment customer or subscription is already linked to another tenant (PAYMENT_LINK_CONFLICT)',
            422: 'Missing tenant_id or email, invalid email, plan not free/pro/team/enterprise, a payment id of the wrong shape, or payment_subscription_id without payment_customer_id',
            503: 'SERVICE_APP_SYNC_KEY is not configured (SYNC_NOT_CONFIGURED)',
          }),
        },
      },
      onRequest: requireSyncKey(services.config.syncKey),
    },
    async (request) => {
      const body = request.body;
      if (body.payment_subscription_id !== undefined && body.payment_customer_id === undefined) {
        throw validationError([{ field: 'payment_subscription_id', message: 'requires payment_customer_id (events are matched by customer)' }]);
      }
      const payment = body.payment_customer_id ? { customerId: body.payment_customer_id, subscriptionId: body.payment_subscription_id } : undefined;
      try {
        const { tenant, apiKey } = await services.tenants.create({ id: body.tenant_id, email: body.email, plan: body.plan, payment });
        return { tenant_id: tenant.id, api_key: apiKey, plan: tenant.plan, status: tenant.status };
      } catch (error) {
        if (error instanceof TenantExistsError) throw new ApiError(409, 'TENANT_EXISTS', `Tenant ${body.tenant_id} already exists`);
        if (error instanceof PaymentLinkConflictError) throw new ApiError(409, 'PAYMENT_LINK_CONFLICT', error.message, { field: error.field });
        throw error;
      }
    },
  );

  app.post(
    '/keys/rotate',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['billing'],
        summary: 'Rotate the API key',
        description:
          'Issues a new API key for the calling tenant and revokes the old one, on every instance, at once; dashboard sessions opened with the old key (POST /session/key) end too.',
        response: { 200: { ...RotatedKey, description: 'The new key', headers: RATE_LIMIT_HEADERS }, ...errorResponses(AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const apiKey = await services.tenants.rotateKey(tenant.id);
      if (!apiKey) throw new ApiError(401, 'INVALID_API_KEY', 'Tenant no longer exists');
      // Dashboard sessions opened with the old key end with it (a leaked key is rotated to lock it out).
      await services.members.endKeySessions(tenant.id);
      await recordAudit(services, request, 'key.rotated', displayPrefix(apiKey));
      return { tenant_id: tenant.id, api_key: apiKey, key_prefix: displayPrefix(apiKey) };
    },
  );
}
