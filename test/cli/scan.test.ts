import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveClientConfig } from '../../src/cli/client.js';
import { runVigil } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';

/** The official OASIS SARIF 2.1.0 schema (JSON Schema draft-04, from schemastore via @microsoft/jest-sarif, MIT). */
const schema = JSON.parse(readFileSync(new URL('./fixtures/sarif-2.1.0-rtm.5.schema.json', import.meta.url), 'utf8'));

describe(`vigil CLI against a real server (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  let freeKey: string;
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startServer();
    ({ apiKey: key } = await server.createTenant('enterprise'));
    ({ apiKey: freeKey } = await server.createTenant('free'));
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: key };
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function vigil(args: string[], extra: Record<string, string> = {}) {
    const p = runVigil(args, { ...env, ...extra });
    const code = await p.exited;
    return { code, out: p.output() };
  }

  it('exits 0 on a passing scan and prints plain progress lines when not on a terminal', async () => {
    const { code, out } = await vigil(['scan', 'http://target.test/?outcome=pass&delay_ms=600', '--poll-interval', '0.1']);
    expect(code).toBe(0);
    expect(out).toMatch(/^progress \d+% status=(queued|running) phase=(queued|running)$/m);
    expect(out).toMatch(/^progress 100% status=completed phase=completed findings=0$/m);
    expect(out).not.toContain('\r');
    expect(out).toContain('PASSED');
  });

  it('shows the phase and the findings so far that the server reports while the scan runs', async () => {
    const { code, out } = await vigil(['scan', 'http://target.test/?outcome=findings&phase=probe&delay_ms=1500', '--poll-interval', '0.1']);
    expect(code, out).toBe(1);
    expect(out).toMatch(/^progress \d+% status=running phase=probe findings=1$/m);
    expect(out).toMatch(/^progress 100% status=completed phase=completed findings=1$/m);
  });

  it('exits 1 when findings reach --fail-on, writes SARIF that validates against the 2.1.0 schema', async () => {
    const file = join(dir, 'out.sarif');
    const { code, out } = await vigil([
      'scan',
      'http://target.test/?outcome=findings&delay_ms=50',
      '--fail-on',
      'high',
      '--poll-interval',
      '0.1',
      '--output',
      file,
    ]);
    expect(code, out).toBe(1);
    const sarif = JSON.parse(readFileSync(file, 'utf8'));
    const ajv = new AjvDraft04Module.default({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormatsModule.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(sarif.runs[0].results[0]).toMatchObject({
      level: 'error',
      ruleId: 'test',
      properties: { severity: 'critical', owasp: 'API1:2023', cwe: 'CWE-639' },
    });
  });

  it('exits 0 with findings below --fail-on', async () => {
    const { code } = await vigil([
      'scan',
      'http://target.test/?outcome=findings&delay_ms=50',
      '--fail-on',
      'critical',
      '--poll-interval',
      '0.1',
      '--mode',
      'functional',
    ]);
    expect(code).toBe(0);
  });

  it('writes JUnit XML that parses back with one testcase per task and the failure', async () => {
    const file = join(dir, 'junit.xml');
    const { code } = await vigil(['scan', 'http://target.test/?outcome=findings&delay_ms=50&tasks=4', '--poll-interval', '0.1', '--output', file]);
    // The critical finding fails the default gate (high).
    expect(code).toBe(1);
    const xml = readFileSync(file, 'utf8');
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suite = parsed.testsuites.testsuite;
    expect(Number(suite.tests)).toBe(4);
    expect(Number(suite.failures)).toBe(1);
    expect(suite.testcase).toHaveLength(4);
    const failed = suite.testcase.filter((c: any) => c.failure);
    expect(failed).toHaveLength(1);
    expect(failed[0].failure.type).toBe('critical');
    // The formula-looking name survives as text.
    expect(suite.testcase.map((c: any) => c.name)).toContain('=HYPERLINK("http://evil.test","click")');
  });

  it('writes the server exports by extension and honours --format', async () => {
    const file = join(dir, 'report.out');
    const { code } = await vigil(['scan', 'http://target.test/?outcome=pass&delay_ms=20', '--poll-interval', '0.1', '--output', file, '--format', 'csv']);
    expect(code).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toMatch(/,/);
    const html = join(dir, 'report.html');
    expect((await vigil(['scan', 'http://target.test/?delay_ms=20', '--poll-interval', '0.1', '--output', html])).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/<html/i);
  });

  it('exits 2 when the scan fails or crashes', async () => {
    for (const outcome of ['fail', 'crash']) {
      const { code, out } = await vigil(['scan', `http://target.test/?outcome=${outcome}&delay_ms=20`, '--poll-interval', '0.1']);
      expect(code, out).toBe(2);
      expect(out).toMatch(/SCAN FAILED/);
    }
  });

  it('exits 2 when the scan is cancelled while being followed', async () => {
    const p = runVigil(['scan', 'http://target.test/?outcome=hang', '--poll-interval', '0.1', '--json'], env);
    const [, id] = await p.waitFor(/scan (scn_\S+) /);
    const cancel = runVigil(['scans', 'cancel', id!], env);
    expect(await cancel.exited).toBe(0);
    expect(await p.exited).toBe(2);
    const json = JSON.parse(p.output().slice(p.output().indexOf('{')));
    expect(json).toMatchObject({ scan_id: id, status: 'cancelled', exit_code: 2 });
  });

  it('exits 3 on usage errors', async () => {
    expect((await vigil(['scan'])).code).toBe(3);
    expect((await vigil(['scan', 'not a url'])).code).toBe(3);
    expect((await vigil(['scan', 'http://x.test', '--fail-on', 'severe'])).code).toBe(3);
    expect((await vigil(['scan', 'http://x.test', '--viewport', 'big'])).code).toBe(3);
    expect((await vigil(['scan', 'http://x.test', '--output', 'r.pdf'])).code).toBe(3);
    expect((await vigil(['scan', 'http://x.test', '--bogus'])).code).toBe(3);
    expect((await vigil(['scan', 'http://x.test'], { VIGIL_API_KEY: '' })).code).toBe(3);
  });

  it('exits 4 with one "error CODE: message" line on refusals (plan, key)', async () => {
    const plan = await vigil(['scan', 'http://target.test/', '--mode', 'security'], { VIGIL_API_KEY: freeKey });
    expect(plan.code).toBe(4);
    expect(plan.out).toMatch(/^error FEATURE_NOT_AVAILABLE: .+$/m);
    const bad = await vigil(['scans', 'list'], { VIGIL_API_KEY: 'svc_pk_wrong' });
    expect(bad.code).toBe(4);
    expect(bad.out).toMatch(/^error (INVALID_API_KEY|UNAUTHORIZED): .+$/m);
  });

  it('uploads a local spec file through /scan/upload', async () => {
    const spec = join(dir, 'openapi.json');
    writeFileSync(spec, JSON.stringify({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} }));
    const { code, out } = await vigil(['scan', 'http://target.test/?delay_ms=20', '--spec', spec, '--poll-interval', '0.1', '--json']);
    expect(code, out).toBe(0);
  });

  it('--json on scans list/show, usage', async () => {
    const list = await vigil(['scans', 'list', '--json']);
    expect(list.code).toBe(0);
    const body = JSON.parse(list.out);
    expect(body.scans.length).toBeGreaterThan(0);
    const show = await vigil(['scans', 'show', body.scans[0].scan_id, '--json']);
    expect(JSON.parse(show.out).scan_id).toBe(body.scans[0].scan_id);
    const usage = await vigil(['usage', '--json']);
    expect(usage.code).toBe(0);
    expect(typeof JSON.parse(usage.out)).toBe('object');
    const missing = await vigil(['scans', 'show', 'scn_nope']);
    expect(missing.code).toBe(3);
    expect(missing.out).toMatch(/^error NOT_FOUND: /m);
  });

  it('prints --help with examples for every command', async () => {
    for (const cmd of [['scan'], ['scans'], ['usage'], ['billing'], ['live']]) {
      const { code, out } = await vigil([...cmd, '--help']);
      expect(code).toBe(0);
      expect(out).toMatch(/Examples:/);
    }
  });

  it('sends --notify webhook notifications itself, signed', async () => {
    const received: Array<{ headers: any; body: string }> = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as any).port;
    try {
      const { code, out } = await vigil(
        [
          'scan',
          'http://target.test/?outcome=findings&delay_ms=20',
          '--poll-interval',
          '0.1',
          '--fail-on',
          'critical',
          '--notify',
          `webhook=http://127.0.0.1:${port}/hook`,
          '--notify-header',
          'X-Team: blue',
          '--notify-secret',
          's3cret',
        ],
        { VIGIL_APP_URL: 'https://dash.example' },
      );
      expect(code, out).toBe(1);
      const events = received.map((r) => JSON.parse(r.body).event).sort();
      expect(events).toEqual(['finding_critical', 'scan_complete', 'scan_failed']);
      for (const r of received) {
        expect(r.headers['x-team']).toBe('blue');
        expect(r.headers['x-vigil-signature']).toBe(`sha256=${createHmac('sha256', 's3cret').update(r.body).digest('hex')}`);
      }
      const complete = JSON.parse(received.find((r) => JSON.parse(r.body).event === 'scan_complete')!.body);
      expect(Object.keys(complete).sort()).toEqual(
        ['dashboard_url', 'duration_seconds', 'event', 'scan_id', 'spec', 'status', 'summary', 'target', 'timestamp'].sort(),
      );
      expect(complete.dashboard_url).toBe(`https://dash.example/scans/${complete.scan_id}`);
      expect(complete.summary).toEqual({ critical: 1, high: 0, medium: 0, low: 0, info: 0, total: 1 });
      // Without VIGIL_APP_URL, links open the dashboard of the server the scan ran on.
      received.length = 0;
      const again = await vigil([
        'scan',
        'http://target.test/?outcome=findings&delay_ms=20',
        '--poll-interval',
        '0.1',
        '--fail-on',
        'none',
        '--notify',
        `webhook=http://127.0.0.1:${port}/hook`,
      ]);
      expect(again.code, again.out).toBe(0);
      const link = JSON.parse(received.find((r) => JSON.parse(r.body).event === 'scan_complete')!.body).dashboard_url;
      expect(link).toMatch(new RegExp(`^${server.vigil.url!.replace(/\/+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/app/scans/`));
    } finally {
      receiver.close();
    }
  });
});

describe('CLI configuration precedence', () => {
  it('flags > environment > vigil.config.json > .vigilrc', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-cfg-'));
    writeFileSync(join(cwd, 'vigil.config.json'), JSON.stringify({ url: 'http://file.test', api_key: 'svc_pk_file' }));
    expect(resolveClientConfig({}, {}, cwd)).toMatchObject({ url: 'http://file.test/api/v1', apiKey: 'svc_pk_file' });
    expect(resolveClientConfig({}, { VIGIL_URL: 'http://env.test', VIGIL_API_KEY: 'svc_pk_env' }, cwd)).toMatchObject({
      url: 'http://env.test/api/v1',
      apiKey: 'svc_pk_env',
    });
    expect(
      resolveClientConfig({ url: 'http://flag.test/api/v1', 'api-key': 'svc_pk_flag' }, { VIGIL_URL: 'http://env.test', VIGIL_API_KEY: 'svc_pk_env' }, cwd),
    ).toMatchObject({ url: 'http://flag.test/api/v1', apiKey: 'svc_pk_flag' });
    const rc = mkdtempSync(join(tmpdir(), 'vigil-rc-'));
    writeFileSync(join(rc, '.vigilrc'), JSON.stringify({ api_key: 'svc_pk_rc' }));
    expect(resolveClientConfig({}, {}, rc).apiKey).toBe('svc_pk_rc');
    expect(() => resolveClientConfig({}, {}, mkdtempSync(join(tmpdir(), 'vigil-none-')))).toThrow(/API key/);
  });
});
