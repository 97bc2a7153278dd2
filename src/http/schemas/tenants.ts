/** Schemas of tenant provisioning (sync-tenant) and key rotation. */
import { Type } from '@sinclair/typebox';
import { CUSTOMER_ID_PATTERN, PROVIDER_ID_MAX_LENGTH, SUBSCRIPTION_ID_PATTERN } from '../../billing/snapshot.js';
import { PLANS } from '../../domain/plans.js';
import { TENANT_ID_MAX_LENGTH, TENANT_ID_PATTERN } from '../../store/tenants.js';
import { StringEnum } from './common.js';

export const SyncTenantBody = Type.Object(
  {
    tenant_id: Type.String({ minLength: 1, maxLength: TENANT_ID_MAX_LENGTH, pattern: TENANT_ID_PATTERN, description: 'Your identifier for the tenant' }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    plan: StringEnum(PLANS, { description: 'free, pro, team or enterprise' }),
    payment_customer_id: Type.Optional(
      Type.String({
        maxLength: PROVIDER_ID_MAX_LENGTH,
        pattern: CUSTOMER_ID_PATTERN,
        description:
          "The tenant's provider customer (`cus_` then letters, digits, `_` or `-`; at most 255 characters): its events apply to this tenant and checkouts reuse it",
      }),
    ),
    payment_subscription_id: Type.Optional(
      Type.String({
        maxLength: PROVIDER_ID_MAX_LENGTH,
        pattern: SUBSCRIPTION_ID_PATTERN,
        description: "The customer's current provider subscription (`sub_...`, same rules); only together with payment_customer_id",
      }),
    ),
  },
  { examples: [{ tenant_id: 'acme', email: 'ops@acme.example', plan: 'pro', payment_customer_id: 'cus_Q1w2e3', payment_subscription_id: 'sub_9i8u7y' }] },
);

export const TenantResource = Type.Object(
  {
    tenant_id: Type.String(),
    api_key: Type.String({ description: "The tenant's API key (prefix svc_pk_); shown only in this response" }),
    plan: Type.String(),
    status: Type.String(),
  },
  { examples: [{ tenant_id: 'acme', api_key: 'svc_pk_4Xb0...', plan: 'pro', status: 'active' }] },
);

export const RotatedKey = Type.Object(
  {
    tenant_id: Type.String(),
    api_key: Type.String({ description: 'The new key; the old one stops working at once' }),
    key_prefix: Type.String(),
  },
  { examples: [{ tenant_id: 'acme', api_key: 'svc_pk_9fQ2...', key_prefix: 'svc_pk_9fQ2' }] },
);
