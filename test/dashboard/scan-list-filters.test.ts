import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/** What the dashboard's scan filters use: GET /scans by mode and target, with each row's progress. */
describe(`GET /scans filters by mode and target (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  const headers = () => ({ 'X-API-Key': key });
  const started: Record<string, string> = {};

  beforeAll(async () => {
    server = await startServer();
    key = (await server.createTenant('team')).apiKey;
    for (const [name, url, mode] of [
      ['a-sec', 'http://a.test/', 'security'],
      ['a-fun', 'http://a.test/', 'functional'],
      ['b-sec', 'http://b.test/', 'security'],
    ] as const) {
      const res = await call(`${server.api}/scan`, { headers: headers(), json: { url, mode } });
      expect(res.status, res.text).toBe(202);
      started[name] = res.body.scan_id;
      await waitForScan(server.api, key, res.body.scan_id);
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  const list = async (query: string) => {
    const res = await call(`${server.api}/scans?${query}`, { headers: headers() });
    expect(res.status, res.text).toBe(200);
    return res.body as { scans: { scan_id: string; mode: string; url: string; progress_percent: number }[]; total: number };
  };

  it('by mode, by target, and both', async () => {
    expect((await list('mode=security')).scans.map((s) => s.scan_id).sort()).toEqual([started['a-sec'], started['b-sec']].sort());
    expect((await list(`target=${encodeURIComponent('http://a.test/')}`)).scans.map((s) => s.scan_id).sort()).toEqual(
      [started['a-sec'], started['a-fun']].sort(),
    );
    const both = await list(`mode=functional&target=${encodeURIComponent('http://a.test/')}`);
    expect(both.total).toBe(1);
    expect(both.scans[0]).toMatchObject({ scan_id: started['a-fun'], mode: 'functional', url: 'http://a.test/', progress_percent: 100 });
    expect((await list(`target=${encodeURIComponent('http://nowhere.test/')}`)).total).toBe(0);
  });

  it('an unknown mode is 422 VALIDATION_ERROR', async () => {
    const res = await call(`${server.api}/scans?mode=visual`, { headers: headers() });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_ERROR');
  });
});
