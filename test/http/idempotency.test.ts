/**
 * Idempotency-Key on creating POSTs (DESIGN.md round 3, Stripe's semantics): the same key and body
 * replay the first answer with `Idempotent-Replayed: true` and charge nothing again; another body is
 * 422 IDEMPOTENCY_KEY_REUSED; concurrent requests with one key admit one scan; a key whose first
 * request died after admitting its scan is answered with that scan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const body = { url: 'http://target.test/app?delay_ms=50', mode: 'functional' };

describe(`Idempotency-Key (${storeLabel})`, () => {
  let server: TestServer;
  let a: { tenantId: string; apiKey: string };
  let b: { tenantId: string; apiKey: string };
  const start = (apiKey: string, key: string | undefined, json: unknown = body) =>
    call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey, ...(key === undefined ? {} : { 'Idempotency-Key': key }) }, json });
  const used = async (apiKey: string) => (await call(`${server.api}/usage`, { headers: { 'X-API-Key': apiKey } })).body.scans_used as number;

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_CONCURRENT_SCANS: 'free=1,pro=3,team=10,enterprise=50' } });
    a = await server.createTenant('enterprise');
    b = await server.createTenant('enterprise');
  });
  afterAll(async () => server?.stop());

  it('replays the first answer for the same key and body, and charges once', async () => {
    const first = await start(a.apiKey, 'key-replay-1');
    expect(first.status, first.text).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await start(a.apiKey, 'key-replay-1');
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await used(a.apiKey)).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body or path', async () => {
    await start(a.apiKey, 'key-reused');
    const other = await start(a.apiKey, 'key-reused', { ...body, url: 'http://target.test/other' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    const otherPath = await call(`${server.api}/functional/run`, { headers: { 'X-API-Key': a.apiKey, 'Idempotency-Key': 'key-reused' }, json: body });
    expect(otherPath.status).toBe(422);
  });

  it('keeps keys per tenant: another tenant with the same key gets its own scan', async () => {
    const mine = await start(a.apiKey, 'shared-key');
    const theirs = await start(b.apiKey, 'shared-key');
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.scan_id).not.toBe(mine.body.scan_id);
  });

  it('admits one scan for concurrent requests with one key', async () => {
    const before = await used(a.apiKey);
    const answers = await Promise.all(Array.from({ length: 8 }, () => start(a.apiKey, 'key-concurrent')));
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.every((s) => s === 202 || s === 409),
      statuses.join(','),
    ).toBe(true);
    for (const r of answers.filter((r) => r.status === 409)) expect(r.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_USE', retry_after: 1 });
    expect(new Set(answers.filter((r) => r.status === 202).map((r) => r.body.scan_id)).size).toBe(1);
    expect(await used(a.apiKey)).toBe(before + 1);
  });

  it('answers a retry whose first attempt died after admission with the scan it admitted', async () => {
    const first = await start(a.apiKey, 'key-died');
    const before = await used(a.apiKey);
    // As if the process had died before storing the answer: the key is pending and its lock has lapsed.
    await server.vigil.services.store.db
      .updateTable('idempotency_keys')
      .set({ state: 'pending', response_status: null, response_body: null, locked_at: new Date(Date.now() - 60_000).toISOString() })
      .where('tenant_id', '=', a.tenantId)
      .where('idem_key', '=', 'key-died')
      .execute();
    const retry = await start(a.apiKey, 'key-died');
    expect(retry.status).toBe(202);
    expect(retry.body.scan_id).toBe(first.body.scan_id);
    expect(await used(a.apiKey)).toBe(before);
  });

  it('does not keep retry-later answers, and refuses malformed keys with 400', async () => {
    const bad = await start(a.apiKey, 'x'.repeat(256));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'INVALID_REQUEST', status: 400 });
    const noKey = [await start(a.apiKey, undefined), await start(a.apiKey, undefined)];
    expect(noKey[0]!.body.scan_id).not.toBe(noKey[1]!.body.scan_id);
  });

  it('replays other creating POSTs too (cancel)', async () => {
    const scan = await start(a.apiKey, undefined);
    const cancel = () =>
      call(`${server.api}/scan/${scan.body.scan_id}/cancel`, { method: 'POST', headers: { 'X-API-Key': a.apiKey, 'Idempotency-Key': 'key-cancel' } });
    const first = await cancel();
    const again = await cancel();
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
