/**
 * A JSON body is validated as sent: a value of the wrong JSON type is 422 VALIDATION_ERROR in the
 * contract's shape naming the field, never coerced and accepted. Query strings, which are text by
 * nature, are still read as the numbers their schema asks for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';

describe(`strict request types (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  const as = () => ({ 'X-API-Key': apiKey });

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_CONCURRENT_SCANS: 'free=50,pro=50,team=50,enterprise=50' } });
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => server?.stop());

  it.each([
    ['options.concurrency', { url: TARGET, options: { concurrency: '5' } }],
    ['options.timeout', { url: TARGET, options: { timeout: '30' } }],
    ['reset_baseline', { url: TARGET, mode: 'functional', reset_baseline: 'true' }],
    ['options.exclude', { url: TARGET, options: { exclude: '/admin' } }],
    ['url', { url: [TARGET] }],
    ['options.concurrency', { url: TARGET, options: { concurrency: true } }],
    ['reset_baseline', { url: TARGET, mode: 'functional', reset_baseline: 1 }],
  ])('POST /scan with a wrongly typed %s: 422 VALIDATION_ERROR naming it, nothing started', async (field, body) => {
    const res = await call(`${server.api}/scan`, { headers: as(), json: body });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422, message: expect.any(String) });
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('the same fields correctly typed are accepted (202)', async () => {
    const res = await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, options: { concurrency: 5, timeout: 30, exclude: ['/admin'] } } });
    expect(res.status).toBe(202);
    const none = await call(`${server.api}/scans`, { headers: as() });
    expect(none.body.total).toBe(1);
  });

  it('query strings are still read as numbers: GET /scans?page=1&per_page=5', async () => {
    const res = await call(`${server.api}/scans?page=1&per_page=5`, { headers: as() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, per_page: 5 });
  });

  it('other JSON bodies are strict too: POST /baselines/approve with a number for scan_id is 422 naming it', async () => {
    const res = await call(`${server.api}/baselines/approve`, { headers: as(), json: { scan_id: 12345, page: '/pricing' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain('scan_id');
  });
});
