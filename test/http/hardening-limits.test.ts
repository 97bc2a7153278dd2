/**
 * Every number a client sends has a documented maximum: huge, `1e400`-style and otherwise absurd
 * values are 422 VALIDATION_ERROR naming the field, never a 500 from the store (both stores).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const LIST_ENDPOINTS = ['/scans', '/usage/alerts', '/usage/history'];
const OUT_OF_RANGE = ['99999999999999999999', '1e400', '-1e400', '1000001', '9007199254740993', '0', '-1', '1.5', 'NaN', 'Infinity', 'abc', ''];

describe(`bounded numbers (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  const as = () => ({ 'X-API-Key': apiKey });

  beforeAll(async () => {
    server = await startServer();
    ({ apiKey } = await server.createTenant('pro'));
    // A scan, so the list queries really reach the store.
    expect((await call(`${server.api}/scan`, { headers: as(), json: { url: 'http://target.test/app' } })).status).toBe(202);
  });
  afterAll(async () => server?.stop());

  it.each(LIST_ENDPOINTS)('%s: page and per_page outside their ranges are 422 naming the parameter', async (path) => {
    for (const param of ['page', 'per_page']) {
      for (const value of OUT_OF_RANGE) {
        const res = await call(`${server.api}${path}?${param}=${encodeURIComponent(value)}`, { headers: as() });
        expect(res.status, `${path}?${param}=${value}: ${res.text}`).toBe(422);
        expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
        expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(`querystring.${param}`);
      }
    }
    const per101 = await call(`${server.api}${path}?per_page=101`, { headers: as() });
    expect(per101.status).toBe(422);
  });

  it.each(LIST_ENDPOINTS)('%s: the largest page is served (empty)', async (path) => {
    const res = await call(`${server.api}${path}?page=1000000&per_page=100`, { headers: as() });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ page: 1_000_000, per_page: 100 });
  });

  it('signed artifact link with an absurd expiry: 422, not 500', async () => {
    for (const value of ['99999999999999999999', '1e400', '4294967296']) {
      const res = await call(`${server.api}/artifacts/art_x?tenant=t&signature=s&expires=${value}`);
      expect(res.status, `${value}: ${res.text}`).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain('querystring.expires');
    }
  });

  it('numbers in JSON bodies beyond their maximum, including 1e400 (parsed as Infinity), are 422 naming the field', async () => {
    const cases: Array<[string, string, string]> = [
      ['/scan', '{"url":"http://target.test/app","options":{"timeout":1e400}}', 'options.timeout'],
      ['/scan', '{"url":"http://target.test/app","options":{"concurrency":99999999999999999999}}', 'options.concurrency'],
      ['/scan', '{"url":"http://target.test/app","options":{"diff_threshold_percent":1e400}}', 'options.diff_threshold_percent'],
      ['/scan', '{"url":"http://target.test/app","options":{"max_pages":-1e400}}', 'options.max_pages'],
      ['/scan', '{"url":"http://target.test/app","options":{"viewport":{"width":1e400,"height":800}}}', 'options.viewport.width'],
      ['/llm/generate', '{"prompt":"hi","max_tokens":1e400}', 'max_tokens'],
      ['/llm/generate', '{"prompt":"hi","temperature":1e400}', 'temperature'],
    ];
    for (const [path, body, field] of cases) {
      const res = await call(`${server.api}${path}`, { headers: { ...as(), 'content-type': 'application/json' }, body });
      expect(res.status, `${body}: ${res.text}`).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it('numbers in an upload form beyond their maximum are 422 naming the field', async () => {
    for (const [name, value, field] of [
      ['timeout', '1e400', 'options.timeout'],
      ['options.concurrency', '99999999999999999999', 'options.concurrency'],
      ['options.viewport.width', 'Infinity', 'options.viewport.width'],
      // Not truncated to 1 any more.
      ['timeout', '1.5', 'options.timeout'],
      ['concurrency', '1e1000', 'options.concurrency'],
    ] as const) {
      const form = new FormData();
      form.append('base_url', 'http://target.test/app');
      form.append(name, value);
      form.append('spec_file', new Blob(['{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}']), 'openapi.json');
      const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(), body: form });
      const body = (await res.json()) as { fields: Array<{ field: string }> };
      expect(res.status, `${name}=${value}`).toBe(422);
      expect(body.fields.map((f) => f.field)).toContain(field);
    }
  });
});
