import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLabel } from '../helpers/server.js';
import { startBilling, type BillingHarness } from './harness.js';

/**
 * A signed event whose type is the name of an Object.prototype member is an unknown type like any
 * other: 200 ignored, not a 500 from calling `constructor` as a handler (found by the fuzz suite).
 */
describe(`webhook event types that name prototype members (${storeLabel})`, () => {
  let billing: BillingHarness;

  beforeAll(async () => {
    billing = await startBilling();
  });
  afterAll(async () => billing?.stop());

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('type %s is ignored', async (type) => {
    const res = await billing.deliver(billing.event(type, { id: 'in_1', object: 'invoice', customer: 'cus_1' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, type, outcome: 'ignored' });
  });
});
