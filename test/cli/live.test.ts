import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { call, waitForScan, startServer, storeLabel, type TestServer } from '../helpers/server.js';

describe(`vigil live and billing status (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    const { apiKey } = await server.createTenant('pro');
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('vigil live prints the usage_update of a finished scan as a JSON line', async () => {
    const live = runVigil(['live', '--json', '--count', '1'], env);
    await live.waitFor(/^connected to /m);
    const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': env.VIGIL_API_KEY! }, json: { url: 'http://target.test/?delay_ms=20' } });
    expect(start.status).toBe(202);
    expect(await live.exited).toBe(0);
    const line = live
      .output()
      .trim()
      .split('\n')
      .find((l) => l.startsWith('{'))!;
    expect(JSON.parse(line).type).toBe('usage_update');
  });

  it('vigil live with a bad key exits 4 with one error line', async () => {
    const live = runVigil(['live'], { ...env, VIGIL_API_KEY: 'svc_pk_bad' });
    expect(await live.exited).toBe(4);
    expect(live.output()).toMatch(/^error INVALID_API_KEY: /m);
  });

  it('vigil live refused by the socket cap (429) exits 4, like every other refusal', async () => {
    const capped = await startServer({ env: { VIGIL_LIVE_SOCKETS: 'pro=1' } });
    try {
      const { apiKey } = await capped.createTenant('pro');
      const capEnv = { VIGIL_URL: capped.vigil.url!, VIGIL_API_KEY: apiKey };
      const first = runVigil(['live'], capEnv);
      await first.waitFor(/^connected to /m);
      const second = runVigil(['live'], capEnv);
      expect(await second.exited).toBe(4);
      expect(second.output()).toMatch(/^error TOO_MANY_SOCKETS: /m);
      first.child.kill();
      await first.exited;
    } finally {
      await capped.stop();
    }
  });

  it('vigil billing status on a server without billing prints its 503 as an error line and exits 2', async () => {
    const res = await call(`${server.api}/billing/status`, { headers: { 'X-API-Key': env.VIGIL_API_KEY! } });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('PAYMENT_NOT_CONFIGURED');
    const p = runVigil(['billing', 'status'], env);
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/^error PAYMENT_NOT_CONFIGURED: Billing is not configured/m);
  });

  it('vigil billing status --json prints the server answer and exits 0 where billing is configured', async () => {
    const billed = await startServer({ env: { PAYMENT_SECRET_KEY: 'sk_test_unused', PAYMENT_WEBHOOK_SECRET: 'whsec_unused' } });
    try {
      const { apiKey } = await billed.createTenant('pro');
      const p = runVigil(['billing', 'status', '--json'], { VIGIL_URL: billed.vigil.url!, VIGIL_API_KEY: apiKey });
      expect(await p.exited, p.output()).toBe(0);
      // A tenant without a subscription: its plan, active, no provider ids, no payment failure.
      expect(JSON.parse(p.output().slice(p.output().indexOf('{')))).toMatchObject({
        plan: 'pro',
        subscription_status: 'active',
        cancel_at_period_end: false,
        payment_customer_id: null,
        payment_subscription_id: null,
        payment_failed: null,
      });
    } finally {
      await billed.stop();
    }
  });

  it('vigil scans export writes server formats and SARIF/JUnit built locally', async () => {
    const start = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': env.VIGIL_API_KEY! },
      json: { url: 'http://target.test/?delay_ms=20&outcome=findings' },
    });
    await waitForScan(server.api, env.VIGIL_API_KEY!, start.body.scan_id);
    const dir = mkdtempSync(join(tmpdir(), 'vigil-export-'));
    for (const name of ['r.json', 'r.csv', 'r.sarif', 'r.xml']) {
      const p = runVigil(['scans', 'export', start.body.scan_id, '--output', join(dir, name)], env);
      expect(await p.exited, p.output()).toBe(0);
    }
    expect(JSON.parse(readFileSync(join(dir, 'r.sarif'), 'utf8')).version).toBe('2.1.0');
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toMatch(/<testsuites/);
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'))).toMatchObject({ scan_id: start.body.scan_id, status: 'completed' });
  });
});
