/**
 * The secrets test: scans with credentials on every channel (bearer and basic on a full scan,
 * OAuth2 client credentials and a custom header on a security scan, a bearer whose spec fails the
 * scan) against a target that echoes everything it receives in many encodings. The credentials,
 * in any encoding, appear nowhere Vigil writes: status, results, every export (JSON, CSV, HTML,
 * SARIF and JUnit as the CLI writes them, compliance), the server's logs at debug level, and the
 * notifications a webhook receives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { toJunit } from '../../src/reports/junit.js';
import { toSarif } from '../../src/reports/sarif.js';
import { REDACTED } from '../../src/domain/redaction.js';
import { ECHO_OAUTH, startEchoApi, type EchoApi } from '../fixtures/echo-api.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { fragments, leaks } from '../helpers/secret-forms.js';

const BEARER = `Bearer-"tok/en\\ with+spaces%41&=x'<y>`;
const BASIC = { username: 'bob', password: 'pä"ss/w\\ord 😀+%&=:x' };
const HEADER_VALUE = `key "quoted" /slash\\back 'q' ~!*()`;
const CREDENTIALS: Record<string, string> = {
  'bearer token': BEARER,
  'basic password': BASIC.password,
  'basic user:password': `${BASIC.username}:${BASIC.password}`,
  'header value': HEADER_VALUE,
  'OAuth2 client secret': ECHO_OAUTH.secret,
  'OAuth2 access token': ECHO_OAUTH.accessToken,
};

describe(`credentials never leak (${storeLabel})`, () => {
  let target: EchoApi;
  let server: TestServer;
  let key: string;
  let receiver: Server;
  const notifications: string[] = [];
  const logLines: string[] = [];
  const headers = () => ({ 'X-API-Key': key });
  /** Every text Vigil wrote about the scans, by where it came from. */
  const written = new Map<string, string>();

  beforeAll(async () => {
    target = await startEchoApi();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        notifications.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    server = await startServer({ engines: 'real', logger: createLogger('debug', sink) });
    key = (await server.createTenant('team')).apiKey;
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const put = await call(`${server.api}/notifications`, { method: 'PUT', headers: headers(), json: { channels: [{ kind: 'webhook', url: hook }] } });
    expect(put.status, put.text).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await target?.close();
    receiver?.close();
  });

  async function scan(json: Record<string, unknown>): Promise<{ id: string; status: any }> {
    const start = await call(`${server.api}/scan`, { headers: headers(), json: { url: target.url, ...json } });
    expect(start.status, start.text).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 150_000);
    return { id: start.body.scan_id, status };
  }

  async function collect(id: string, paths: string[]): Promise<void> {
    for (const path of paths) {
      const res = await fetch(`${server.api}/scan/${id}${path}`, { headers: headers() });
      expect(res.status, `${path}`).toBe(200);
      written.set(`${id}${path}`, await res.text());
    }
  }

  it('scans with every kind of credential; the target received them and echoed them back', async () => {
    const full = await scan({
      mode: 'full',
      auth: { type: 'bearer', token: BEARER, secondary: { type: 'basic', ...BASIC } },
      options: { concurrency: 4, timeout: 10, max_pages: 2, fail_on: 'low', viewport: { width: 800, height: 600 } },
    });
    expect(full.status.status, full.status.failure_reason).toBe('completed');
    const oauth = await scan({
      mode: 'security',
      auth: {
        type: 'oauth2',
        oauth2_token_url: `${target.url}/oauth/token`,
        oauth2_client_id: ECHO_OAUTH.id,
        oauth2_client_secret: ECHO_OAUTH.secret,
        secondary: { type: 'header', header_name: 'X-Api-Key', header_value: HEADER_VALUE },
      },
      options: { concurrency: 4, timeout: 10 },
    });
    expect(oauth.status.status, oauth.status.failure_reason).toBe('completed');
    const failing = await scan({
      mode: 'security',
      spec_url: `${target.url}/bad-spec.json`,
      auth: { type: 'bearer', token: BEARER },
      options: { timeout: 10 },
    });
    expect(failing.status.status).toBe('failed');

    // The credentials really travelled to the target (so its echoes carried them).
    expect(target.received).toContain(`Bearer ${BEARER}`);
    expect(target.received).toContain(`Basic ${Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64')}`);
    expect(target.received).toContain(`Bearer ${ECHO_OAUTH.accessToken}`);
    expect(target.received).toContain(HEADER_VALUE);

    for (const { id } of [full, oauth, failing]) {
      await collect(id, ['', '/results', '/export?format=json', '/export?format=csv', '/export?format=html']);
      const results = JSON.parse(written.get(`${id}/results`)!);
      written.set(`${id} sarif`, JSON.stringify(toSarif(results)));
      written.set(`${id} junit`, toJunit(results));
    }
    await collect(full.id, ['/functional-results', '/visual-regression', '/accessibility', '/performance']);
    for (const { id } of [full, oauth]) {
      await collect(id, ['/compliance', '/compliance?format=html', '/compliance?framework=pci-dss-4']);
    }
    const list = await call(`${server.api}/scans`, { headers: headers() });
    written.set('scan list', list.text);

    // The echoes reached the evidence and the failure reason: redacted there, not absent.
    for (const { id } of [full, oauth]) {
      const results = JSON.parse(written.get(`${id}/results`)!);
      const evidence = results.tasks.filter((t: any) => t.evidence?.includes(REDACTED));
      expect(evidence.length, `${id}: evidence with a redacted credential`).toBeGreaterThan(0);
    }
    expect(written.get(`${failing.id}`)).toContain(REDACTED);

    // Every scan's notifications arrived (scan_complete for each, findings for the two that ran).
    for (let i = 0; i < 200 && notifications.filter((n) => n.includes('"scan_complete"')).length < 3; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(notifications.filter((n) => n.includes('"scan_complete"')).length).toBe(3);
  }, 400_000);

  it('no credential, nor any part of one, appears in any encoding in results, exports, logs or notifications', () => {
    expect(written.size).toBeGreaterThan(20);
    expect(logLines.length).toBeGreaterThan(20);
    const places: Array<[string, string]> = [...written.entries(), ['server logs', logLines.join('')], ['notifications', notifications.join('\n')]];
    const found: string[] = [];
    for (const [where, text] of places) {
      for (const [what, secret] of Object.entries(CREDENTIALS)) {
        for (const form of leaks(text, secret)) found.push(`${what} in ${where}: ${JSON.stringify(form)}`);
        for (const piece of fragments(text, secret)) found.push(`part of the ${what} in ${where}: ${JSON.stringify(piece)}`);
      }
    }
    expect(found).toEqual([]);
  });
});
