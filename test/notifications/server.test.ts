import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

describe(`server-side notifications (${storeLabel})`, () => {
  let server: TestServer;
  let team: string;
  let pro: string;
  const hits: Array<{ headers: any; body: string }> = [];
  let status = 200;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      res.statusCode = status;
      res.end();
    });
  });
  let hook: string;

  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as any).port}/hook`;
    server = await startServer({ env: { VIGIL_APP_URL: 'https://dash.example' } });
    ({ apiKey: team } = await server.createTenant('team'));
    ({ apiKey: pro } = await server.createTenant('pro'));
  });
  afterAll(async () => {
    await server?.stop();
    receiver.close();
  });

  const h = (key: string) => ({ 'X-API-Key': key });

  it('is refused below the team plan with 402 FEATURE_NOT_AVAILABLE and upgrade_url', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await call(`${server.api}/notifications`, { method, headers: h(pro), ...(method === 'PUT' ? { json: { channels: [] } } : {}) });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: 'FEATURE_NOT_AVAILABLE', status: 402 });
      expect(res.body.upgrade_url).toMatch(/upgrade=team/);
    }
  });

  it('stores channels sealed and shows them redacted', async () => {
    const put = await call(`${server.api}/notifications`, {
      method: 'PUT',
      headers: h(team),
      json: { channels: [{ kind: 'webhook', url: hook, headers: { Authorization: 'Token t0p' }, secret: 'shared-secret' }] },
    });
    expect(put.status, put.text).toBe(200);
    const get = await call(`${server.api}/notifications`, { headers: h(team) });
    expect(get.body).toEqual({
      enabled: true,
      channels: [
        {
          kind: 'webhook',
          url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/\*\*\*$/),
          events: null,
          headers: { Authorization: '***' },
          has_secret: true,
        },
      ],
    });
    expect(get.text).not.toContain('shared-secret');
    expect(get.text).not.toContain('t0p');
    const bad = await call(`${server.api}/notifications`, { method: 'PUT', headers: h(team), json: { channels: [{ kind: 'pager', url: hook }] } });
    expect(bad.status).toBe(422);
  });

  it('the worker sends the scan events when a scan finishes, and compliance_report_ready when a security scan completed', async () => {
    hits.length = 0;
    const start = await call(`${server.api}/scan`, { headers: h(team), json: { url: 'http://target.test/?outcome=findings&delay_ms=20' } });
    expect(start.status).toBe(202);
    await waitForScan(server.api, team, start.body.scan_id);
    for (let i = 0; i < 100 && hits.length < 3; i += 1) await new Promise((r) => setTimeout(r, 50));
    const events = hits.map((x) => JSON.parse(x.body));
    expect(events.map((e) => e.event).sort()).toEqual(['compliance_report_ready', 'finding_critical', 'scan_complete']);
    const complete = events.find((e) => e.event === 'scan_complete');
    expect(complete).toMatchObject({
      scan_id: start.body.scan_id,
      target: 'http://target.test/?outcome=findings&delay_ms=20',
      status: 'completed',
      dashboard_url: `https://dash.example/scans/${start.body.scan_id}`,
      summary: { critical: 1, total: 1 },
    });
    const report = await call(`${server.api}/scan/${start.body.scan_id}/compliance`, { headers: h(team) });
    expect(events.find((e) => e.event === 'compliance_report_ready')).toEqual({
      event: 'compliance_report_ready',
      timestamp: expect.any(String),
      report: {
        framework: 'owasp-api-2023',
        scan_id: start.body.scan_id,
        score: report.body.score,
        download_url: `${server.api}/scan/${start.body.scan_id}/compliance?framework=owasp-api-2023&format=html`,
      },
    });
    for (const x of hits) expect(x.headers['x-vigil-signature']).toBe(`sha256=${createHmac('sha256', 'shared-secret').update(x.body).digest('hex')}`);
  });

  it('a failing receiver never changes the scan outcome', async () => {
    status = 500;
    const start = await call(`${server.api}/scan`, { headers: h(team), json: { url: 'http://target.test/?outcome=pass&delay_ms=20' } });
    const done = await waitForScan(server.api, team, start.body.scan_id);
    expect(done.status).toBe('completed');
    status = 200;
  });

  it('hosted deployments refuse private notification URLs', async () => {
    const hosted = await startServer({ env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x' } });
    try {
      const { apiKey } = await hosted.createTenant('team');
      for (const url of [hook, 'https://127.0.0.1/x', 'https://169.254.169.254/latest']) {
        const res = await call(`${hosted.api}/notifications`, { method: 'PUT', headers: h(apiKey), json: { channels: [{ kind: 'slack', url }] } });
        expect(res.status, url).toBe(422);
      }
    } finally {
      await hosted.stop();
    }
  });
});
