/** Schemas of the billing routes: checkout, sign-up, portal, status, the checkout key hand-over and the provider webhook. */
import { Type } from '@sinclair/typebox';
import { PLANS, type PaidPlan } from '../../domain/plans.js';
import { StringEnum } from './common.js';

const AbsoluteUrl = (description: string) => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

export const CheckoutBody = Type.Object(
  {
    success_url: AbsoluteUrl('Where the provider sends the user after paying (absolute http(s) URL)'),
    cancel_url: AbsoluteUrl('Where the provider sends the user when they cancel (absolute http(s) URL)'),
    plan: Type.Optional(StringEnum(PLANS, { description: 'pro, team or enterprise (free has no price: 400 INVALID_PRICE_ID)' })),
    price_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'One of the configured PAYMENT_PRICE_ID_* values; alternative to plan' })),
  },
  { examples: [{ success_url: 'https://app.example.com/billing/done', cancel_url: 'https://app.example.com/billing', plan: 'pro' }] },
);

/** A new customer's plan; the return addresses are the server's own (no caller-chosen redirect). */
export const SignupBody = Type.Object(
  {
    plan: Type.Optional(StringEnum(PLANS, { description: 'pro, team or enterprise (free has no price: 400 INVALID_PRICE_ID)' })),
    price_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'One of the configured PAYMENT_PRICE_ID_* values; alternative to plan' })),
  },
  { additionalProperties: false, examples: [{ plan: 'pro' }] },
);

export const SignupOptions = Type.Object(
  {
    available: Type.Boolean({ description: 'False on a server without a payment provider: POST /billing/signup answers 503' }),
    plans: Type.Array(StringEnum(PLANS.filter((p): p is PaidPlan => p !== 'free')), { description: 'The plans with a configured price, cheapest first' }),
  },
  { examples: [{ available: true, plans: ['pro', 'team', 'enterprise'] }] },
);

export const ClaimBody = Type.Object(
  { claim_token: Type.Optional(Type.String({ maxLength: 256, description: 'The claim_token POST /billing/signup returned for this checkout' })) },
  { examples: [{ claim_token: 'q0Jz1m7cJ0x2T1bqk6nC9w0yJXr8Yp3VhLzq2m4N5sE' }] },
);

export const PortalBody = Type.Object(
  { return_url: AbsoluteUrl('Where the portal sends the user back (absolute http(s) URL)') },
  { examples: [{ return_url: 'https://app.example.com/billing' }] },
);

export const BillingStatusBody = Type.Object(
  {
    plan: StringEnum(PLANS),
    subscription_status: StringEnum(['active', 'trialing', 'past_due', 'canceled'] as const, {
      description: 'Of the provider subscription; `active` for a tenant without one (its plan is managed outside the provider)',
    }),
    current_period_end: Type.String({ format: 'date-time', description: 'End of the subscription period (of the usage period without a subscription)' }),
    cancel_at_period_end: Type.Boolean(),
    payment_customer_id: Type.Union([Type.String(), Type.Null()], { description: 'Provider customer id; null before the first checkout' }),
    payment_subscription_id: Type.Union([Type.String(), Type.Null()], { description: 'Provider subscription id; null without one' }),
    payment_failed: Type.Union(
      [
        Type.Object(
          {
            failed_at: Type.Union([Type.String(), Type.Null()]),
            invoice_id: Type.Union([Type.String(), Type.Null()]),
            amount_due: Type.Union([Type.Integer(), Type.Null()]),
            currency: Type.Union([Type.String(), Type.Null()]),
            attempt_count: Type.Union([Type.Integer(), Type.Null()]),
            next_payment_attempt: Type.Union([Type.String(), Type.Null()]),
            hosted_invoice_url: Type.Union([Type.String(), Type.Null()]),
          },
          { additionalProperties: true },
        ),
        Type.Null(),
      ],
      { description: 'The last failed payment not yet settled by a later one; null when payments are in order' },
    ),
  },
  {
    examples: [
      {
        plan: 'pro',
        subscription_status: 'active',
        current_period_end: '2026-12-15T00:00:00.000Z',
        cancel_at_period_end: false,
        payment_customer_id: 'cus_Q1w2e3',
        payment_subscription_id: 'sub_9i8u7y',
        payment_failed: null,
      },
    ],
  },
);

export const CheckoutSessionParams = Type.Object({
  session_id: Type.String({ minLength: 1, description: 'The provider checkout session id (an unknown one, of any length, is 404)' }),
});

export const IssuedKey = Type.Object(
  {
    tenant_id: Type.String(),
    api_key: Type.String({ description: "The new tenant's key (prefix svc_pk_); returned only once" }),
    plan: Type.String(),
    status: Type.String(),
  },
  { examples: [{ tenant_id: 'ten_x1y2', api_key: 'svc_pk_4Xb0...', plan: 'pro', status: 'active' }] },
);

export const WebhookAck = Type.Object(
  {
    received: Type.Boolean(),
    event_id: Type.String(),
    type: Type.String(),
    outcome: StringEnum(['applied', 'duplicate', 'stale', 'ignored'] as const, {
      description:
        'applied; duplicate (this event id was handled before); stale (older than the state it would change); ignored (type not handled, no tenant for the customer, or an object Vigil cannot use; see reason)',
    }),
    tenant_id: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String({ description: 'Why the event was ignored (also logged)' })),
  },
  { examples: [{ received: true, event_id: 'evt_1Q2w3E', type: 'invoice.paid', outcome: 'applied', tenant_id: 'acme' }] },
);

export const NOT_CONFIGURED = 'Self-hosted server without PAYMENT_SECRET_KEY / PAYMENT_WEBHOOK_SECRET (PAYMENT_NOT_CONFIGURED)';

export const CheckoutSession = Type.Object({
  checkout_url: Type.String({ description: 'Redirect the user here' }),
  session_id: Type.String({ description: 'Provider checkout session id' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const SignupSession = Type.Object({
  ...CheckoutSession.properties,
  claim_token: Type.String({
    description:
      "One-time secret (32 random bytes, base64url) that claims the new tenant's key; only its hash is stored. Keep it in the browser that started the checkout",
  }),
});

export const PortalSession = Type.Object({ portal_url: Type.String() });

export const WebhookHeaders = Type.Object({ 'provider-signature': Type.Optional(Type.String({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256>' })) });
