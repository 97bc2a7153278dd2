/**
 * The security section from the engine to the reader: a stored outcome with warnings, coverage and
 * the check catalogue reaches GET /scan/{id}/results, the exports and a full scan's merged results
 * (credentials redacted); options.safe_mode and auth.secondary are validated, stored and reach the
 * engine. Runs on the store the environment selects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanInput, Task } from '../../src/domain/scan.js';
import { notTestedSummary } from '../../src/reports/not-tested.js';
import { outcomeFor, securityEngine, withOutage } from '../helpers/security-outcome-engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';

const TOKEN = 'tok-primary-Zq81xN4wPc';

describe(`security results, exports and safe_mode (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  const inputs: ScanInput[] = [];
  const headers = () => ({ 'X-API-Key': key });

  beforeAll(async () => {
    server = await startServer({ engines: { security: securityEngine(inputs), functional: testEngine('functional') } });
    key = (await server.createTenant('enterprise')).apiKey;
  });
  afterAll(async () => server?.stop());

  async function finished(json: Record<string, unknown>) {
    const started = await call(`${server.api}/scan`, { headers: headers(), json });
    expect(started.status, started.text).toBe(202);
    await waitForScan(server.api, key, started.body.scan_id);
    const results = await call(`${server.api}/scan/${started.body.scan_id}/results`, { headers: headers() });
    expect(results.status).toBe(200);
    return { id: started.body.scan_id as string, body: results.body, input: inputs[inputs.length - 1]! };
  }

  it('a security scan: warnings at the top level, the security section, tasks with endpoints and invented_values, contract fields unchanged', async () => {
    const { body, input } = await finished({
      url: 'http://target.test/api',
      mode: 'security',
      auth: { type: 'bearer', token: TOKEN, secondary: { type: 'basic', username: 'bob', password: 'pw-bob-7781' } },
      options: { safe_mode: true },
    });
    expect(input.options.safe_mode).toBe(true);
    expect(input.auth).toMatchObject({ type: 'bearer', token: TOKEN, secondary: { type: 'basic', username: 'bob', password: 'pw-bob-7781' } });

    for (const field of ['scan_id', 'status', 'passed', 'failed', 'total', 'elapsed_seconds', 'agent_count', 'tasks', 'dom_snapshots', 'screenshots'])
      expect(body, field).toHaveProperty(field);
    expect(body).toMatchObject({ status: 'completed', passed: 1, failed: 1, total: 2, agent_count: 2 });
    expect(body.warnings).toEqual(['0 of 3 operations answered 2xx: is the base URL right?', 'token [redacted] was refused everywhere']);
    expect(JSON.stringify(body)).not.toContain(TOKEN);

    const expected = outcomeFor({ ...input, auth: { type: 'bearer', token: '[redacted]' } }).security!;
    expect(body.security).toEqual(expected);
    expect(body.security.warnings).toEqual(body.warnings);
    const tasks = body.tasks as Task[];
    expect(tasks.find((t) => t.task_id === 'headers')).toMatchObject({ endpoints: ['GET /orders', 'GET /orders/{id}'], kind: 'security' });
    expect(tasks.find((t) => t.task_id === 'bola:GET /orders/{id}')).toMatchObject({ invented_values: true });
  });

  it('not_tested leads the results and every report: the target down, the identity lost, operations never reached', async () => {
    const { id, body, input } = await finished({
      url: 'http://target.test/api?down',
      mode: 'security',
      auth: { type: 'bearer', token: TOKEN },
      options: { safe_mode: true },
    });
    // The security section keeps what the engine said about the outage and the identities.
    const expected = withOutage(outcomeFor({ ...input, auth: { type: 'bearer', token: '[redacted]' } })).security!;
    expect(body.security).toEqual(expected);
    expect(body.not_tested).toEqual(notTestedSummary({ security: expected }));
    expect(body.not_tested).toMatchObject({
      everything_tested: false,
      headline: '3 of 3 operations never answered 2xx to any identity; 1 operation was skipped; 1 of 2 check runs was not tested.',
      causes: [
        { kind: 'target_down', at: '2026-11-22T10:00:17.000Z' },
        { kind: 'identity_lost', at: '2026-11-22T10:00:09.000Z' },
      ],
      // Groups of equal size in the specification's order.
      operations: {
        reasons: [
          { reason: 'never answered 2xx (answers: 401, 404)', count: 1, endpoints: ['GET /orders/{id}'] },
          { reason: 'never authorised: answered only 401/403', count: 1, endpoints: ['GET /orders'] },
          { reason: 'skipped: safe mode: destructive' },
        ],
      },
    });
    // The engine's reason codes survive the store and lead the grouping.
    expect(body.security.coverage.checks[0].not_run[0].reason_code).toBe('safe_mode');
    expect(body.not_tested.operations.reasons.map((r: { reason_code: string }) => r.reason_code)).toEqual(['not_reached', 'never_authorised', 'safe_mode']);
    expect(body.not_tested.checks.reasons).toEqual([
      {
        reason_code: 'safe_mode',
        reason: 'safe mode',
        count: 1,
        checks: [{ check: 'bola', title: 'Broken object level authorization', reason: 'safe mode', count: 1, endpoints: ['POST /admin/reset'] }],
      },
    ]);

    const report = (format: string) => fetch(`${server.api}/scan/${id}/reports/${format}`, { headers: headers() });
    const html = await (await report('html')).text();
    expect(html.indexOf('<section id="not-tested"')).toBeGreaterThan(html.indexOf('</header>'));
    expect(html.indexOf('<section id="not-tested"')).toBeLessThan(html.indexOf('<section id="summary"'));
    const sarif = await (await report('sarif')).json();
    expect(sarif.runs[0].invocations[0].toolExecutionNotifications[0].message.text).toBe(`Not tested: ${body.not_tested.headline}`);
    expect(sarif.runs[0].invocations[0].properties.not_tested).toEqual(body.not_tested);
    const junit = await (await report('junit')).text();
    expect(junit).toContain(`<property name="vigil.not_tested" value="${body.not_tested.headline}"/>`);
  });

  it('not_tested is null for a functional scan', async () => {
    const { body } = await finished({ url: 'http://target.test/functional', mode: 'functional' });
    expect(body.not_tested).toBeNull();
  });

  it('safe_mode defaults to false and reaches the engine', async () => {
    const { input } = await finished({ url: 'http://target.test/default' });
    expect(input.options.safe_mode).toBe(false);
  });

  it('the exports carry it: JSON is the results body, HTML has the warning, remediation and coverage, CSV the endpoints', async () => {
    const { id, body } = await finished({ url: 'http://target.test/export', options: { safe_mode: true } });
    const get = (format: string) => fetch(`${server.api}/scan/${id}/export?format=${format}`, { headers: headers() });
    expect(await (await get('json')).json()).toEqual(body);
    const html = await (await get('html')).text();
    expect(html).toContain('class="banner warn security-warnings"');
    expect(html).toContain('0 of 3 operations answered 2xx: is the base URL right?');
    expect(html).toContain('<dd class="remediation">Send X-Content-Type-Options: nosniff.</dd>');
    expect(html).toContain('<section id="coverage"');
    expect(html).toContain('skipped: safe mode: destructive');
    expect(html).not.toContain(TOKEN);
    const csv = await (await get('csv')).text();
    const header = csv.split('\r\n')[0]!.split(',');
    // Columns are only ever added at the end: the security ones stay in place after the accessibility column came.
    expect(header.slice(header.indexOf('endpoints'), header.indexOf('endpoints') + 3)).toEqual(['endpoints', 'invented_values', 'accessibility']);
    expect(csv).toContain('"GET /orders\nGET /orders/{id}"');
  });

  it('a full scan keeps the security section next to the functional tasks', async () => {
    const { body } = await finished({ url: 'http://target.test/full', mode: 'full' });
    expect(body.security.coverage.operations_total).toBe(3);
    expect(body.warnings).toHaveLength(2);
    const kinds = (body.tasks as Task[]).map((t) => t.kind);
    expect(kinds).toContain('security');
    expect(kinds).toContain('functional');
  });

  it('functional scans and results stored without coverage render with security null and no warnings', async () => {
    const functional = await finished({ url: 'http://target.test/functional', mode: 'functional' });
    expect(functional.body).toMatchObject({ status: 'completed', security: null, warnings: [] });
    const old = await finished({ url: 'http://target.test/?old=1', mode: 'security' });
    expect(old.body).toMatchObject({ status: 'completed', security: null, warnings: [], total: 2 });
    const html = await (await fetch(`${server.api}/scan/${old.id}/export?format=html`, { headers: headers() })).text();
    expect(html).not.toContain('id="coverage"');
  });

  it('wrong-typed safe_mode and a second identity without a first are 422 in the error shape', async () => {
    for (const safe_mode of ['yes', { on: true }, 'maybe']) {
      const res = await call(`${server.api}/scan`, { headers: headers(), json: { url: 'http://target.test/', options: { safe_mode } } });
      expect(res.status, JSON.stringify(safe_mode)).toBe(422);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
      expect(typeof res.body.message).toBe('string');
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain('options.safe_mode');
    }
    const none = await call(`${server.api}/scan`, {
      headers: headers(),
      json: { url: 'http://target.test/', auth: { type: 'none', secondary: { type: 'bearer', token: 'x' } } },
    });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422, fields: [{ field: 'auth.secondary' }] });
  });

  it('the upload form takes options.safe_mode (and safe_mode alone) as true/false, and refuses other values', async () => {
    const spec = JSON.stringify({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} });
    const upload = async (fields: Array<[string, string]>) => {
      const form = new FormData();
      form.set('base_url', 'http://target.test/upload');
      for (const [name, value] of fields) form.append(name, value);
      form.set('spec_file', new Blob([spec]), 'openapi.json');
      const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: headers(), body: form });
      return { status: res.status, body: (await res.json()) as { scan_id?: string; error?: string; status?: number; fields?: Array<{ field: string }> } };
    };
    for (const [fields, expected] of [
      [[['options.safe_mode', 'true']], true],
      [[['safe_mode', 'false']], false],
      [[['options', '{"safe_mode": true}']], true],
      [
        [
          ['auth.type', 'bearer'],
          ['auth.token', 'a'],
          ['auth.secondary.type', 'bearer'],
          ['auth.secondary.token', 'b'],
          ['safe_mode', 'true'],
        ],
        true,
      ],
    ] as Array<[Array<[string, string]>, boolean]>) {
      const res = await upload(fields);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await waitForScan(server.api, key, res.body.scan_id!);
      const input = inputs[inputs.length - 1]!;
      expect(input.options.safe_mode, JSON.stringify(fields)).toBe(expected);
      if (fields.some(([name]) => name === 'auth.secondary.token')) expect(input.auth?.secondary).toEqual({ type: 'bearer', token: 'b' });
    }
    for (const value of ['yes', '1', 'TRUE']) {
      const res = await upload([['options.safe_mode', value]]);
      expect(res.status, value).toBe(422);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
      expect(res.body.fields?.map((f) => f.field)).toContain('options.safe_mode');
    }
  });
});
