import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { startFixture, TOKENS, type Fixture } from '../fixtures/vulnerable-api/server.js';

/**
 * The security engine end to end, as a CI pipeline uses it: the real engines wired by the app,
 * POST /scan against the deliberately vulnerable fixture, poll, results, and the three exports.
 */
describe(`security scan through the API (${storeLabel})`, () => {
  let fixture: Fixture;
  let server: TestServer;
  let key: string;
  const headers = () => ({ 'X-API-Key': key });

  beforeAll(async () => {
    fixture = await startFixture();
    server = await startServer({ engines: 'real' });
    key = (await server.createTenant('pro')).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
  });

  async function scan(side: 'vuln' | 'fixed', extra: Record<string, unknown> = {}) {
    const start = await call(`${server.api}/scan`, {
      headers: headers(),
      json: {
        url: `${fixture.url}/${side}`,
        mode: 'security',
        auth: { type: 'bearer', token: TOKENS[side].alice, secondary: { type: 'bearer', token: TOKENS[side].bob } },
        options: { fail_on: 'high', concurrency: 5, timeout: 10 },
        ...extra,
      },
    });
    expect(start.status).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 120_000);
    return { scanId: start.body.scan_id as string, status };
  }

  let vulnScanId: string;
  let vulnResults: any;

  it('finds the fixture flaws, with evidence, OWASP ids and CWEs, and reaches fail_on', async () => {
    const { scanId, status } = await scan('vuln');
    vulnScanId = scanId;
    expect(status.status).toBe('completed');
    const res = await call(`${server.api}/scan/${scanId}/results`, { headers: headers() });
    expect(res.status).toBe(200);
    vulnResults = res.body;
    expect(res.body.total).toBe(res.body.tasks.length);
    expect(res.body.passed + res.body.failed).toBe(res.body.total);
    expect(res.body.agent_count).toBe(5);
    expect(res.body.elapsed_seconds).toBeGreaterThan(0);
    expect(res.body.threshold_reached).toBe(true);
    const failed = res.body.tasks.filter((t: any) => t.status === 'failed');
    const checks = new Set(failed.map((t: any) => t.check));
    for (const check of ['auth-enforcement', 'jwt', 'bola', 'sql-injection', 'mass-assignment', 'data-exposure', 'misconfiguration', 'ssrf']) {
      expect(checks, `check ${check} should fire on the vulnerable side`).toContain(check);
    }
    for (const task of failed) {
      expect(task.severity).toMatch(/^(critical|high|medium|low|info)$/);
      expect(task.evidence, task.name).toBeTruthy();
      expect(task.owasp, task.name).toMatch(/^API\d+:2023$/);
      expect(task.cwe, task.name).toMatch(/^CWE-\d+$/);
    }
    // Target credentials never come back in evidence.
    expect(JSON.stringify(res.body)).not.toContain(TOKENS.vuln.alice);
  }, 180_000);

  it('stays silent on the fixed twin', async () => {
    const { scanId, status } = await scan('fixed');
    expect(status.status).toBe('completed');
    const res = await call(`${server.api}/scan/${scanId}/results`, { headers: headers() });
    const failed = res.body.tasks.filter((t: any) => t.status === 'failed');
    expect(failed.map((t: any) => `${t.name}: ${t.evidence}`)).toEqual([]);
    expect(res.body.threshold_reached).toBe(false);
    expect(res.body.total).toBeGreaterThan(vulnResults.total * 0.9);
    expect(res.body.passed).toBe(res.body.total);
  }, 180_000);

  it('exports the findings as JSON, CSV and HTML', async () => {
    const json = await fetch(`${server.api}/scan/${vulnScanId}/export?format=json`, { headers: headers() });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(await json.json()).toEqual(vulnResults);

    const csv = await fetch(`${server.api}/scan/${vulnScanId}/export?format=csv`, { headers: headers() });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split(/\r?\n/);
    const header = lines[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['name', 'status', 'severity', 'owasp', 'cwe']));
    expect(lines.length - 1).toBeGreaterThanOrEqual(vulnResults.total);

    const html = await fetch(`${server.api}/scan/${vulnScanId}/export?format=html`, { headers: headers() });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    const page = await html.text();
    const sqli = vulnResults.tasks.find((t: any) => t.status === 'failed' && t.check === 'sql-injection');
    expect(page).toContain(sqli.owasp);
    expect(page).not.toContain('<script>alert');
  });

  it('fails clearly when no spec can be found, without charging a crash', async () => {
    const start = await call(`${server.api}/scan`, {
      headers: headers(),
      json: { url: `${fixture.url}/no-such-api`, mode: 'security', options: { timeout: 5 } },
    });
    expect(start.status).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 60_000);
    expect(status.status).toBe('failed');
    expect(status.failure_reason).toMatch(/spec|OpenAPI/i);
  });

  it('takes an inline spec (spec_content) that excludes operations', async () => {
    const spec = await (await fetch(`${fixture.url}/vuln/openapi.json`)).json();
    const start = await call(`${server.api}/scan`, {
      headers: headers(),
      json: {
        url: `${fixture.url}/vuln`,
        mode: 'security',
        spec_content: Buffer.from(JSON.stringify(spec)).toString('base64'),
        auth: { type: 'bearer', token: TOKENS.vuln.alice },
        options: { exclude: ['/sqli/*', '/auth/*'], timeout: 10 },
      },
    });
    expect(start.status).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 120_000);
    expect(status.status).toBe('completed');
    const res = await call(`${server.api}/scan/${start.body.scan_id}/results`, { headers: headers() });
    expect(res.body.total).toBeGreaterThan(0);
    for (const task of res.body.tasks) expect(task.name).not.toMatch(/ \/(sqli|auth)\//);
  }, 180_000);
});

describe(`hosted mode keeps the scanner off the hosting network (${storeLabel})`, () => {
  let fixture: Fixture;
  let server: TestServer;
  beforeAll(async () => {
    fixture = await startFixture();
    server = await startServer({
      engines: 'real',
      env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_unused', PAYMENT_WEBHOOK_SECRET: 'whsec_unused' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
  });

  it('fails a scan of a loopback target with TARGET_BLOCKED and sends it nothing', async () => {
    const { apiKey } = await server.createTenant('pro');
    const before = [...fixture.hits.values()].reduce((a, b) => a + b, 0);
    const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: `${fixture.url}/vuln`, mode: 'security' } });
    expect(start.status).toBe(202);
    const status = await waitForScan(server.api, apiKey, start.body.scan_id, undefined, 60_000);
    expect(status.status).toBe('failed');
    expect(status.failure_reason).toMatch(/non-public|blocked/i);
    expect([...fixture.hits.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });
});
