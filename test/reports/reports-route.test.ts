import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/**
 * GET /scan/{id}/reports/{format}: the report registry over HTTP, on a real server (test engine). The same
 * registry renders GET /scan/{id}/export, so the contract's three formats are the same bytes on both routes.
 */
describe(`report formats through the API (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  let otherKey: string;
  let completed: string;
  let failed: string;
  beforeAll(async () => {
    server = await startServer();
    key = (await server.createTenant('pro')).apiKey;
    otherKey = (await server.createTenant('pro')).apiKey;
    const start = async (url: string) => (await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url } })).body.scan_id as string;
    completed = await start('http://target.test/?outcome=findings&tasks=4');
    failed = await start('http://target.test/?outcome=fail');
    await waitForScan(server.api, key, completed);
    await waitForScan(server.api, key, failed);
  });
  afterAll(async () => server?.stop());

  const get = (id: string, format: string, apiKey = key) => fetch(`${server.api}/scan/${id}/reports/${format}`, { headers: { 'X-API-Key': apiKey } });

  it('serves SARIF and JUnit of a completed scan, with their content types and file names', async () => {
    const sarif = await get(completed, 'sarif');
    expect(sarif.status).toBe(200);
    expect(sarif.headers.get('content-type')).toMatch(/^application\/sarif\+json/);
    expect(sarif.headers.get('content-disposition')).toContain(`vigil-scan-${completed}.sarif`);
    const doc = (await sarif.json()) as any;
    expect(doc.version).toBe('2.1.0');
    expect(doc.runs[0].invocations[0].executionSuccessful).toBe(true);
    expect(doc.runs[0].results.length).toBeGreaterThan(0);

    const junit = await get(completed, 'junit');
    expect(junit.status).toBe(200);
    expect(junit.headers.get('content-disposition')).toContain(`vigil-scan-${completed}.xml`);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(await junit.text());
    expect(parsed.testsuites).toBeDefined();
  });

  it('html, json and csv are the same bytes as GET /scan/{id}/export', async () => {
    for (const format of ['json', 'csv']) {
      const viaRegistry = await (await get(completed, format)).text();
      const viaExport = await (await fetch(`${server.api}/scan/${completed}/export?format=${format}`, { headers: { 'X-API-Key': key } })).text();
      expect(viaRegistry, format).toBe(viaExport);
    }
    const html = await get(completed, 'html');
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain(completed);
  });

  it('never serves a SARIF of a failed scan (it would close every open alert); its JUnit says it failed', async () => {
    const sarif = await get(failed, 'sarif');
    expect(sarif.status).toBe(409);
    const body = (await sarif.json()) as { error: string; message: string };
    expect(body.error).toBe('SCAN_NOT_COMPLETE');
    expect(body.message).toMatch(/failed/);
    const junit = await get(failed, 'junit');
    expect(junit.status).toBe(200);
    expect(await junit.text()).toContain('<error');
  });

  it("an unknown format is 422 VALIDATION_ERROR, another tenant's scan 404; /export still refuses sarif", async () => {
    for (const format of ['pdf', 'SARIF', 'xml']) {
      const res = await get(completed, format);
      expect(res.status, format).toBe(422);
      expect(((await res.json()) as { error: string }).error).toBe('VALIDATION_ERROR');
    }
    expect((await get(completed, 'sarif', otherKey)).status).toBe(404);
    const viaExport = await fetch(`${server.api}/scan/${completed}/export?format=sarif`, { headers: { 'X-API-Key': key } });
    expect(viaExport.status).toBe(422);
  });

  it('is in the OpenAPI document with every registered format', async () => {
    const res = await fetch(`${server.api}/openapi.json`);
    const doc = (await res.json()) as any;
    const op = doc.paths['/api/v1/scan/{id}/reports/{format}']?.get ?? doc.paths['/scan/{id}/reports/{format}']?.get;
    expect(
      op,
      Object.keys(doc.paths)
        .filter((p) => p.includes('scan/'))
        .join(', '),
    ).toBeDefined();
    const format = op.parameters.find((p: any) => p.name === 'format');
    expect(format.schema.enum).toEqual(['html', 'json', 'csv', 'sarif', 'junit']);
  });
});
