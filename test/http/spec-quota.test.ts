import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

/** An OpenAPI document whose identity is set by `title`; `reorder` writes the same document with its keys reversed. */
function spec(title: string, reorder = false): string {
  const doc = {
    openapi: '3.0.3',
    info: { title, version: '1.0.0' },
    servers: [{ url: 'https://api.example.test' }],
    paths: { '/items': { get: { responses: { 200: { description: 'ok' } } }, post: { responses: { 201: { description: 'made' } } } } },
  };
  const text = reorder
    ? JSON.stringify(
        {
          paths: { '/items': { post: doc.paths['/items'].post, get: doc.paths['/items'].get } },
          servers: doc.servers,
          info: { version: '9.9.9', title },
          openapi: '3.0.3',
        },
        null,
        2,
      )
    : JSON.stringify(doc);
  return Buffer.from(text).toString('base64');
}

describe(`API-specification quota (${storeLabel})`, () => {
  let server: TestServer;
  const as = (key: string) => ({ 'X-API-Key': key });
  const start = (key: string, json: unknown) => call(`${server.api}/scan`, { headers: as(key), json });
  const usage = async (key: string) => (await call(`${server.api}/usage`, { headers: as(key) })).body;

  beforeAll(async () => {
    // 50 starts at once from one tenant and address: the cap on request bodies still being received (16 per tenant by
    // default, tested in open-bodies.test.ts) would refuse some with 429 depending on timing; this file counts quotas.
    server = await startServer({
      env: { VIGIL_CONCURRENT_SCANS: 'free=1,pro=1000,team=1000,enterprise=1000', VIGIL_OPEN_BODIES_PER_TENANT: '1000', VIGIL_OPEN_BODIES_PER_ADDRESS: '1000' },
    });
  });
  afterAll(async () => server?.stop());

  it('pro: the first scan of each new specification counts; known ones, renamed or reordered, do not; the sixth new one is 402', async () => {
    const t = await server.createTenant('pro');
    const before = await usage(t.apiKey);
    expect(before).toMatchObject({ api_specifications_used: 0, api_specifications_limit: 5 });

    for (let i = 1; i <= 5; i += 1) expect((await start(t.apiKey, { url: TARGET, mode: 'security', spec_content: spec(`API ${i}`) })).status).toBe(202);
    // The same document again, reordered with another version, uploaded under another file name, or in a full scan: known
    expect((await start(t.apiKey, { url: TARGET, mode: 'security', spec_content: spec('API 1', true) })).status).toBe(202);
    const form = new FormData();
    form.append('base_url', TARGET);
    form.append('mode', 'security');
    form.append('spec_file', new Blob([Buffer.from(spec('API 2', true), 'base64')]), 'renamed-copy.json');
    const upload = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(t.apiKey), body: form });
    expect(upload.status).toBe(202);
    expect((await start(t.apiKey, { url: TARGET, mode: 'full', spec_content: spec('API 3') })).status).toBe(202);
    // Functional scans never touch the quota
    expect((await start(t.apiKey, { url: TARGET, mode: 'functional' })).status).toBe(202);

    const full = await usage(t.apiKey);
    expect(full).toMatchObject({ api_specifications_used: 5, api_specifications_limit: 5, approaching_limit: true, security_scan_count: 8 });

    const refused = await start(t.apiKey, { url: TARGET, mode: 'security', spec_content: spec('API 6') });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'QUOTA_EXCEEDED', status: 402, quota_reset_date: full.quota_reset_date });
    expect(refused.body.message).toMatch(/API specification quota of 5/);
    // A spec_url and a scan with no specification (discovery at the target) are new specifications too
    expect((await start(t.apiKey, { url: TARGET, mode: 'security', spec_url: 'https://api.example.test/openapi.json' })).status).toBe(402);
    expect((await start(t.apiKey, { url: 'https://new-target.test/', mode: 'security' })).status).toBe(402);
    // A known one still runs; nothing was counted by the refusals
    expect((await start(t.apiKey, { url: TARGET, mode: 'security', spec_content: spec('API 4', true) })).status).toBe(202);
    expect(await usage(t.apiKey)).toMatchObject({ api_specifications_used: 5, security_scan_count: 9 });

    const alerts = (await call(`${server.api}/usage/alerts`, { headers: as(t.apiKey) })).body.alerts.filter(
      (a: { quota: string }) => a.quota === 'specifications',
    );
    expect(alerts.map((a: { type: string }) => a.type).sort()).toEqual(['approaching_limit', 'quota_exceeded']);
    expect(alerts.find((a: { type: string }) => a.type === 'quota_exceeded')).toMatchObject({ scans_used: 5, scans_limit: 5 });

    const history = (await call(`${server.api}/usage/history`, { headers: as(t.apiKey) })).body.periods[0];
    expect(history).toMatchObject({ current: true, api_specifications_used: 5, api_specifications_limit: 5 });
  });

  it('50 concurrent starts with new specifications admit exactly the limit (pro: 5) and count every one on team (unlimited)', async () => {
    const pro = await server.createTenant('pro');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => start(pro.apiKey, { url: TARGET, mode: 'security', spec_content: spec(`Concurrent ${i}`) })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(45);
    expect(await usage(pro.apiKey)).toMatchObject({ api_specifications_used: 5, security_scan_count: 5 });
    const rows = await server.vigil.services.store.db
      .selectFrom('period_specifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', pro.tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(5);
    const alerts = (await call(`${server.api}/usage/alerts`, { headers: as(pro.apiKey) })).body.alerts.filter(
      (a: { quota: string }) => a.quota === 'specifications',
    );
    expect(alerts).toHaveLength(2);

    const team = await server.createTenant('team');
    const teamResults = await Promise.all(
      Array.from({ length: 50 }, (_, i) => start(team.apiKey, { url: TARGET, mode: 'security', spec_content: spec(`Team ${i % 25}`) })),
    );
    expect(teamResults.every((r) => r.status === 202)).toBe(true);
    // 25 distinct specifications, each scanned twice: 25 counted, no limit, no alert
    expect(await usage(team.apiKey)).toMatchObject({ api_specifications_used: 25, api_specifications_limit: null });
  });

  it('free: the plan has no security scans, so the specification quota is never reached through them', async () => {
    const t = await server.createTenant('free');
    expect(await usage(t.apiKey)).toMatchObject({ api_specifications_used: 0, api_specifications_limit: 1 });
    const res = await start(t.apiKey, { url: TARGET, mode: 'security', spec_content: spec('Free') });
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('FEATURE_NOT_AVAILABLE');
    expect(await usage(t.apiKey)).toMatchObject({ api_specifications_used: 0 });
  });
});
