import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complianceReport } from '../../src/reports/compliance/index.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

describe('compliance reports (unit)', () => {
  const tasks: any[] = [
    { task_id: 'a', name: 'bola', status: 'failed', severity: 'critical', owasp: 'API1:2023', cwe: 'CWE-639', endpoint: 'GET /o/{id}', parameter: 'id' },
    { task_id: 'b', name: 'auth', status: 'passed', severity: 'high', owasp: 'API2:2023' },
    { task_id: 'c', name: 'misconfig', status: 'failed', severity: 'low', owasp: 'API8:2023' },
  ];
  it('scores each tested control and the report 0-100', () => {
    const r = complianceReport({ scan_id: 's', url: 'https://x', tasks }, 'owasp-api-2023', new Date(0));
    const byId = Object.fromEntries(r.controls.map((c) => [c.id, c]));
    expect(byId['API1:2023']).toMatchObject({ status: 'fail', score: 50, findings: [{ id: 'a', severity: 'critical', endpoint: 'GET /o/{id}' }] });
    expect(byId['API2:2023']).toMatchObject({ status: 'pass', score: 100 });
    expect(byId['API8:2023']).toMatchObject({ status: 'fail', score: 95 });
    expect(byId['API4:2023']).toMatchObject({ status: 'not_tested', score: null });
    expect(r.score).toBe(Math.round((50 + 100 + 95) / 3));
    expect(r.coverage).toEqual({ controls: 10, tested: 3 });
  });
  it('maps to PCI DSS 4.0 req. 6 and SOC 2', () => {
    const pci = complianceReport({ scan_id: 's', url: 'https://x', tasks }, 'pci-dss-4');
    expect(pci.controls.find((c) => c.id === '6.3.1')!.findings).toHaveLength(2);
    const soc = complianceReport({ scan_id: 's', url: 'https://x', tasks }, 'soc2');
    expect(soc.controls.find((c) => c.id === 'CC6.1')!.status).toBe('fail');
    // Tasks a (failed critical, API1), b (passed, API2), c (failed low, API8): PCI 6.2.4 = 50, 6.3.1 (all) = 45, 6.4.1 = 95;
    // SOC 2 CC6.1 = 50, CC7.1 = 95, CC8.1 (all) = 45; the controls nothing tested do not count.
    expect(pci.score).toBe(Math.round((50 + 45 + 95) / 3));
    expect(soc.score).toBe(Math.round((50 + 95 + 45) / 3));
  });
});

describe(`GET /scan/{id}/compliance (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  const hits: string[] = [];
  const receiver = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      hits.push(b);
      res.end();
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    server = await startServer();
    ({ apiKey: key } = await server.createTenant('team'));
  });
  afterAll(async () => {
    await server?.stop();
    receiver.close();
  });

  it('serves JSON and self-contained HTML; compliance_report_ready went out once, when the scan completed, and reading the report sends nothing', async () => {
    const h = { 'X-API-Key': key };
    await call(`${server.api}/notifications`, {
      method: 'PUT',
      headers: h,
      json: { channels: [{ kind: 'webhook', url: `http://127.0.0.1:${(receiver.address() as any).port}/`, events: ['compliance_report_ready'] }] },
    });
    const start = await call(`${server.api}/scan`, { headers: h, json: { url: 'http://target.test/?outcome=findings&delay_ms=20' } });
    await waitForScan(server.api, key, start.body.scan_id);
    for (let i = 0; i < 100 && hits.length < 1; i += 1) await new Promise((r) => setTimeout(r, 50));
    const json = await call(`${server.api}/scan/${start.body.scan_id}/compliance?framework=owasp-api-2023`, { headers: h });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toMatchObject({ framework: 'owasp-api-2023', scan_id: start.body.scan_id });
    // The test engine's findings outcome: three API1 tasks, one failed critical (-50); no other control tested.
    expect(json.body.score).toBe(50);
    expect(json.body.controls.find((c: any) => c.id === 'API1:2023').status).toBe('fail');
    const html = await call(`${server.api}/scan/${start.body.scan_id}/compliance?framework=soc2&format=html`, { headers: h });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(html.text).toMatch(/<html/);
    expect(html.text).not.toMatch(/(src|href)=["']https?:/);
    // Time for a notification the reads above might have sent to arrive: none may.
    await new Promise((r) => setTimeout(r, 500));
    const events = hits.map((b) => JSON.parse(b));
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({
      event: 'compliance_report_ready',
      timestamp: expect.any(String),
      report: {
        framework: 'owasp-api-2023',
        scan_id: start.body.scan_id,
        score: json.body.score,
        download_url: expect.stringContaining(`/api/v1/scan/${start.body.scan_id}/compliance?framework=owasp-api-2023&format=html`),
      },
    });
    expect((await call(`${server.api}/scan/${start.body.scan_id}/compliance?framework=iso`, { headers: h })).status).toBe(422);
  });

  it('409 for functional or unfinished scans', async () => {
    const h = { 'X-API-Key': key };
    const f = await call(`${server.api}/scan`, { headers: h, json: { url: 'http://target.test/?delay_ms=20', mode: 'functional' } });
    await waitForScan(server.api, key, f.body.scan_id);
    expect((await call(`${server.api}/scan/${f.body.scan_id}/compliance`, { headers: h })).body.error).toBe('NOT_A_SECURITY_SCAN');
    const r = await call(`${server.api}/scan`, { headers: h, json: { url: 'http://target.test/?outcome=hang' } });
    expect((await call(`${server.api}/scan/${r.body.scan_id}/compliance`, { headers: h })).body.error).toBe('SCAN_NOT_COMPLETE');
    await call(`${server.api}/scan/${r.body.scan_id}/cancel`, { method: 'POST', headers: h });
  });
});
