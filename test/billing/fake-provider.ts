import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small stand-in for the payment provider's HTTP API: the endpoints Vigil calls (customers, checkout
 * sessions, billing portal sessions, subscriptions, prices) with state, in the provider's wire format
 * (form-encoded requests with bracketed keys, JSON objects and error bodies). The real SDK talks to it
 * through PAYMENT_API_BASE.
 */

type Obj = Record<string, any>;

/** A canned answer given instead of the fake's own handling (a provider outage, a missing field...). */
export interface Fault {
  method: string;
  path: RegExp;
  status: number;
  body: Obj;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: Obj;
  idempotencyKey?: string;
}

/** `a[b][0][c]=1` -> { a: { b: { 0: { c: '1' } } } } (numeric keys stay object keys; readers index them). */
export function parseForm(text: string): Obj {
  const out: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = rawKey.replace(/\]/g, '').split('[');
    let node = out;
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value;
      else node = node[segment] ??= {};
    });
  }
  return out;
}

function id(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

const now = () => Math.floor(Date.now() / 1000);

export class FakeProvider {
  readonly customers = new Map<string, Obj>();
  readonly sessions = new Map<string, Obj>();
  readonly portalSessions = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  readonly prices = new Map<string, Obj>();
  readonly requests: RecordedRequest[] = [];
  readonly faults: Fault[] = [];
  private readonly idempotent = new Map<string, { status: number; body: Obj }>();
  private server?: Server;
  url = '';

  constructor(readonly secretKey = 'sk_test_fake') {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.route(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Answers every matching request with `status` and `body` until the returned function is called. */
  inject(
    method: string,
    path: RegExp,
    status: number,
    body: Obj = { error: { type: 'api_error', message: 'Something went wrong on the provider' } },
  ): () => void {
    const fault: Fault = { method, path, status, body };
    this.faults.push(fault);
    return () => {
      const i = this.faults.indexOf(fault);
      if (i >= 0) this.faults.splice(i, 1);
    };
  }

  addPrice(priceId: string, unitAmount = 4900): Obj {
    const price = {
      id: priceId,
      object: 'price',
      active: true,
      currency: 'usd',
      unit_amount: unitAmount,
      recurring: { interval: 'month', interval_count: 1 },
      type: 'recurring',
    };
    this.prices.set(priceId, price);
    return price;
  }

  /** What the provider does when the user pays: a subscription for the session's price, the session completed. */
  completeCheckout(sessionId: string, options: { email?: string; periodStart?: number; periodEnd?: number } = {}): { session: Obj; subscription: Obj } {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const customer: string =
      session.customer ?? this.createCustomer({ email: options.email ?? session.customer_email ?? 'buyer@example.test', metadata: {} }).id;
    const priceId = session.line_items?.[0]?.price ?? session.line_items?.['0']?.price;
    const subscription = this.createSubscription({
      customer,
      price: priceId,
      metadata: session.subscription_data?.metadata ?? {},
      periodStart: options.periodStart,
      periodEnd: options.periodEnd,
    });
    Object.assign(session, {
      status: 'complete',
      payment_status: 'paid',
      customer,
      subscription: subscription.id,
      customer_details: { email: options.email ?? this.customers.get(customer)?.email ?? null },
    });
    return { session: { ...session, line_items: undefined, subscription_data: undefined }, subscription };
  }

  /** Where the provider sends the browser after payment: the session's success_url with its `{CHECKOUT_SESSION_ID}` template filled in. */
  successUrl(sessionId: string): string {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    return String(session.success_url).replaceAll('{CHECKOUT_SESSION_ID}', sessionId);
  }

  createCustomer(params: Obj): Obj {
    const customer = { id: id('cus'), object: 'customer', email: params.email ?? null, metadata: params.metadata ?? {}, created: now() };
    this.customers.set(customer.id, customer);
    return customer;
  }

  createSubscription(params: { customer: string; price: string; metadata?: Obj; periodStart?: number; periodEnd?: number; status?: string }): Obj {
    const start = params.periodStart ?? now();
    const end = params.periodEnd ?? start + 30 * 86400;
    const subscription = {
      id: id('sub'),
      object: 'subscription',
      customer: params.customer,
      status: params.status ?? 'active',
      cancel_at_period_end: false,
      created: now(),
      metadata: params.metadata ?? {},
      items: {
        object: 'list',
        data: [
          {
            id: id('si'),
            object: 'subscription_item',
            price: this.prices.get(params.price) ?? { id: params.price, object: 'price' },
            quantity: 1,
            current_period_start: start,
            current_period_end: end,
          },
        ],
      },
    };
    this.subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  /** Changes a subscription as the provider would (a plan change in the portal, a cancellation...). */
  updateSubscription(
    subscriptionId: string,
    change: { price?: string; status?: string; cancel_at_period_end?: boolean; periodStart?: number; periodEnd?: number },
  ): Obj {
    const sub = this.subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`no subscription ${subscriptionId}`);
    const item = sub.items.data[0];
    if (change.price) item.price = this.prices.get(change.price) ?? { id: change.price, object: 'price' };
    if (change.status) sub.status = change.status;
    if (change.cancel_at_period_end !== undefined) sub.cancel_at_period_end = change.cancel_at_period_end;
    if (change.periodStart) item.current_period_start = change.periodStart;
    if (change.periodEnd) item.current_period_end = change.periodEnd;
    return structuredClone(sub);
  }

  /** An invoice for the subscription's current period (paid or failed). */
  invoice(subscriptionId: string, options: { paid?: boolean; periodStart?: number; periodEnd?: number; amount?: number } = {}): Obj {
    const sub = this.subscriptions.get(subscriptionId)!;
    const item = sub.items.data[0];
    const start = options.periodStart ?? item.current_period_start;
    const end = options.periodEnd ?? item.current_period_end;
    const amount = options.amount ?? item.price.unit_amount ?? 4900;
    return {
      id: id('in'),
      object: 'invoice',
      customer: sub.customer,
      status: options.paid === false ? 'open' : 'paid',
      amount_due: amount,
      amount_paid: options.paid === false ? 0 : amount,
      currency: 'usd',
      attempt_count: 1,
      next_payment_attempt: options.paid === false ? now() + 3 * 86400 : null,
      hosted_invoice_url: 'https://invoice.provider.test/i/1',
      period_start: start - 30 * 86400,
      period_end: start,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: {
        object: 'list',
        data: [
          {
            id: id('il'),
            object: 'line_item',
            amount,
            period: { start, end },
            parent: { type: 'subscription_item_details', subscription_item_details: { subscription: sub.id, subscription_item: item.id } },
          },
        ],
      },
    };
  }

  charge(customerId: string, options: { amount?: number; refunded?: number } = {}): Obj {
    const amount = options.amount ?? 4900;
    const refunded = options.refunded ?? amount;
    return { id: id('ch'), object: 'charge', customer: customerId, amount, amount_refunded: refunded, refunded: refunded >= amount, currency: 'usd' };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = req.method === 'GET' ? Object.fromEntries(url.searchParams) : parseForm(text);
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, body, idempotencyKey });
    const send = (status: number, payload: Obj) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      res.end(JSON.stringify(payload));
    };
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const fault = this.faults.find((f) => f.method === req.method && f.path.test(url.pathname));
    if (fault) return send(fault.status, fault.body);
    const cacheKey = idempotencyKey && req.method === 'POST' ? `${url.pathname}|${idempotencyKey}` : undefined;
    if (cacheKey && this.idempotent.has(cacheKey)) {
      const cached = this.idempotent.get(cacheKey)!;
      return send(cached.status, cached.body);
    }
    const [status, payload] = this.handle(req.method ?? 'GET', url.pathname, body);
    // Like the provider, only settled answers are replayed for the same idempotency key.
    if (cacheKey && status < 500) this.idempotent.set(cacheKey, { status, body: payload });
    send(status, payload);
  }

  private handle(method: string, path: string, body: Obj): [number, Obj] {
    const missing = (what: string, param?: string): [number, Obj] => [
      404,
      { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}`, ...(param ? { param } : {}) } },
    ];
    const invalid = (message: string, param: string): [number, Obj] => [400, { error: { type: 'invalid_request_error', message, param } }];
    let m: RegExpExecArray | null;

    if (method === 'POST' && path === '/v1/customers') return [200, this.createCustomer(body)];
    if (method === 'GET' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const c = this.customers.get(m[1]);
      return c ? [200, c] : missing(`customer: '${m[1]}'`, 'id');
    }
    if (method === 'POST' && path === '/v1/prices') {
      return [200, this.addPrice(body.id ?? id('price'), Number(body.unit_amount ?? 4900))];
    }
    if (method === 'GET' && (m = /^\/v1\/prices\/([^/]+)$/.exec(path))) {
      const p = this.prices.get(m[1]);
      return p ? [200, p] : missing(`price: '${m[1]}'`, 'price');
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (!body.success_url) return invalid('Missing required param: success_url.', 'success_url');
      if (body.mode !== 'subscription' && body.mode !== 'payment') return invalid('Invalid mode', 'mode');
      const priceId = body.line_items?.['0']?.price;
      if (!priceId || !this.prices.has(priceId)) return invalid(`No such price: '${priceId}'`, 'line_items[0][price]');
      if (body.customer && !this.customers.has(body.customer)) return missing(`customer: '${body.customer}'`, 'customer');
      const sessionId = id('cs_test');
      const session = {
        id: sessionId,
        object: 'checkout.session',
        mode: body.mode,
        status: 'open',
        payment_status: 'unpaid',
        customer: body.customer ?? null,
        customer_email: body.customer_email ?? null,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        success_url: body.success_url,
        cancel_url: body.cancel_url ?? null,
        subscription: null,
        url: `https://checkout.provider.test/c/pay/${sessionId}`,
        expires_at: now() + 24 * 3600,
        created: now(),
        line_items: [{ price: priceId, quantity: Number(body.line_items['0'].quantity ?? 1) }],
        subscription_data: body.subscription_data ?? {},
      };
      this.sessions.set(sessionId, session);
      return [200, { ...session, line_items: undefined, subscription_data: undefined }];
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const s = this.sessions.get(m[1]);
      return s ? [200, { ...s, line_items: undefined, subscription_data: undefined }] : missing(`checkout.session: '${m[1]}'`, 'session');
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!body.customer || !this.customers.has(body.customer)) return missing(`customer: '${body.customer}'`, 'customer');
      const portal = {
        id: id('bps'),
        object: 'billing_portal.session',
        customer: body.customer,
        return_url: body.return_url ?? null,
        url: `https://billing.provider.test/p/session/${id('x')}`,
        created: now(),
      };
      this.portalSessions.set(portal.id, portal);
      return [200, portal];
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      if (!this.customers.has(body.customer)) return missing(`customer: '${body.customer}'`, 'customer');
      return [200, this.createSubscription({ customer: body.customer, price: body.items?.['0']?.price, metadata: body.metadata })];
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]);
      if (!sub) return missing(`subscription: '${m[1]}'`, 'id');
      if (method === 'GET') return [200, sub];
      if (method === 'DELETE') {
        sub.status = 'canceled';
        sub.canceled_at = now();
        return [200, sub];
      }
      if (method === 'POST') {
        if (body.cancel_at_period_end !== undefined) sub.cancel_at_period_end = body.cancel_at_period_end === 'true';
        if (body.metadata) Object.assign(sub.metadata, body.metadata);
        return [200, sub];
      }
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
  }
}

/** An event as the provider delivers it. */
export function providerEvent(type: string, object: Obj, created = now(), eventId = id('evt')): Obj {
  return {
    id: eventId,
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object: structuredClone(object) },
  };
}
