/**
 * Input that makes no sense is refused at the door: control characters in URLs, page lists and
 * exclude patterns, header values an HTTP client could not send, and specs with more operations
 * than VIGIL_SPEC_MAX_OPERATIONS (inline: 422 at start; fetched from spec_url or not countable at
 * the door: the scan fails with a reason naming the limit).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { countOperations, countYamlOperations } from '../../src/engines/security/spec-size.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';
const b64 = (text: string) => Buffer.from(text).toString('base64');

function specWith(operations: number): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < operations; i += 1) {
    const path = `/items${Math.floor(i / 2)}`;
    paths[path] = { ...paths[path], [i % 2 ? 'post' : 'get']: { description: 'line one\nget: not an operation', responses: { 200: { description: 'ok' } } } };
  }
  return { openapi: '3.0.3', info: { title: 'ops', version: '1' }, paths };
}

const fields = (res: { body: any }) => (res.body?.fields ?? []).map((f: { field: string }) => f.field);

describe(`control characters and header values (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  let team: string;
  const as = (key = apiKey) => ({ 'X-API-Key': key });

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_CONCURRENT_SCANS: 'free=50,pro=50,team=50,enterprise=50' } });
    ({ apiKey } = await server.createTenant('pro'));
    ({ apiKey: team } = await server.createTenant('team'));
  });
  afterAll(async () => server?.stop());

  const CONTROLS = ['\u0000', '\r\n', '\n', '\u0001', '\u001b', '\u001f', '\u007f'];

  it.each([
    ['url', (c: string) => ({ url: `http://target.test/a${c}b` })],
    ['spec_url', (c: string) => ({ url: TARGET, spec_url: `http://target.test/openapi${c}.json` })],
    ['options.pages.1', (c: string) => ({ url: TARGET, mode: 'functional', options: { pages: ['/ok', `/pri${c}cing`] } })],
    ['options.exclude.0', (c: string) => ({ url: TARGET, options: { exclude: [`/admin${c}`] } })],
    [
      'auth.oauth2_token_url',
      (c: string) => ({
        url: TARGET,
        auth: { type: 'oauth2', oauth2_token_url: `http://idp.test/tok${c}en`, oauth2_client_id: 'c', oauth2_client_secret: 's' },
      }),
    ],
    ['auth.token', (c: string) => ({ url: TARGET, auth: { type: 'bearer', token: `abc${c}def` } })],
    ['auth.header_value', (c: string) => ({ url: TARGET, auth: { type: 'header', header_name: 'X-Key', header_value: `v${c}x` } })],
    ['auth.secondary.token', (c: string) => ({ url: TARGET, auth: { type: 'none', secondary: { type: 'bearer', token: `${c}t` } } })],
  ])('%s with a control character: 422 naming the field, nothing counted', async (field, body) => {
    const before = await call(`${server.api}/scans`, { headers: as() });
    for (const c of CONTROLS) {
      const res = await call(`${server.api}/scan`, { headers: as(), json: body(c) });
      expect(res.status, `${JSON.stringify(c)}: ${res.text}`).toBe(422);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(fields(res)).toContain(field);
    }
    const after = await call(`${server.api}/scans`, { headers: as() });
    expect(after.body.total).toBe(before.body.total);
  });

  it('tab: refused in URLs and patterns (the URL parser would drop it), allowed inside header values', async () => {
    expect(fields(await call(`${server.api}/scan`, { headers: as(), json: { url: 'http://target.test/a\tb' } }))).toContain('url');
    expect(fields(await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, options: { exclude: ['/a\tb'] } } }))).toContain('options.exclude.0');
    const tabbed = await call(`${server.api}/scan`, {
      headers: as(),
      json: { url: TARGET, auth: { type: 'header', header_name: 'X-Key', header_value: 'a\tb' } },
    });
    expect(tabbed.status, tabbed.text).toBe(202);
  });

  it('URLs are measured percent-encoded: 2,000 CJK characters (18,000 once encoded, over the index limits of PostgreSQL) are 422, never 500', async () => {
    // Distinct characters: PostgreSQL compresses a repetitive index entry under its limit.
    const wide = Array.from({ length: 2000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
    const long = await call(`${server.api}/scan`, { headers: as(), json: { url: `http://target.test/${wide}` } });
    expect(long.status, long.text).toBe(422);
    expect(fields(long)).toEqual(['url']);
    const page = await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, mode: 'functional', options: { pages: [`/${wide}`] } } });
    expect(page.status, page.text).toBe(422);
    expect(fields(page)).toEqual(['options.pages.0']);
    // Under the limit once encoded, the same characters are admitted.
    const fits = await call(`${server.api}/scan`, { headers: as(), json: { url: `http://target.test/${wide.slice(0, 200)}` } });
    expect(fits.status, fits.text).toBe(202);
    // ASCII at the limit is admitted too.
    const ascii = `http://target.test/${'a'.repeat(2048 - 'http://target.test/'.length)}`;
    const full = await call(`${server.api}/scan`, { headers: as(), json: { url: ascii, ci: { branch: 'b'.repeat(255) } } });
    expect(full.status, full.text).toBe(202);
  });

  it('header values beyond Latin-1 are refused; Latin-1 and visible ASCII are accepted', async () => {
    const wide = await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, auth: { type: 'bearer', token: 'jeton-令牌' } } });
    expect(wide.status).toBe(422);
    expect(fields(wide)).toContain('auth.token');
    const latin1 = await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, auth: { type: 'bearer', token: 'clé-ÿ~!' } } });
    expect(latin1.status, latin1.text).toBe(202);
  });

  it('the upload form applies the same rules', async () => {
    const form = new FormData();
    form.append('base_url', 'http://target.test/a\u0000b');
    form.append('auth.type', 'bearer');
    form.append('auth.token', 'x\r\nInjected: 1');
    form.append('spec_file', new Blob(['{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}']), 'openapi.json');
    const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(), body: form });
    const body = (await res.json()) as { fields: Array<{ field: string }> };
    expect(res.status).toBe(422);
    expect(body.fields.map((f) => f.field).sort()).toEqual(['auth.token', 'url']);
  });

  it('notification channels: header values with CR/LF/NUL and URLs with control characters are 422', async () => {
    const put = (channel: Record<string, unknown>) =>
      call(`${server.api}/notifications`, { method: 'PUT', headers: as(team), json: { channels: [{ kind: 'webhook', ...channel }] } });
    for (const value of ['a\r\nX-Evil: 1', 'a\u0000', 'a\u007f', '令牌']) {
      const res = await put({ url: 'https://hooks.example.com/x', headers: { 'X-Token': value } });
      expect(res.status, `${JSON.stringify(value)}: ${res.text}`).toBe(422);
      expect(fields(res)).toContain('channels[0].headers.X-Token');
    }
    for (const url of ['https://hooks.example.com/a\tb', 'https://hooks.example.com/a\nb']) {
      const res = await put({ url });
      expect(res.status, `${JSON.stringify(url)}: ${res.text}`).toBe(422);
    }
    const fine = await put({ url: 'https://hooks.example.com/x', headers: { 'X-Token': 'a\tb c' } });
    expect(fine.status, fine.text).toBe(200);
  });

  it('notification channels: header names that could never be sent are 422 and nothing is stored', async () => {
    const put = (headers: Record<string, string>) =>
      call(`${server.api}/notifications`, {
        method: 'PUT',
        headers: as(team),
        json: { channels: [{ kind: 'webhook', url: 'https://hooks.example.com/x', headers }] },
      });
    for (const name of ['X Bad\r\nInjected', '', 'X-Ok\u0000', 'a'.repeat(65), 'Über']) {
      const res = await put({ [name]: 'v' });
      expect(res.status, `${JSON.stringify(name)}: ${res.text}`).toBe(422);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    const stored = await call(`${server.api}/notifications`, { headers: as(team) });
    expect(JSON.stringify(stored.body)).not.toContain('Injected');
  });

  it('the upload form refuses an empty auth or auth.secondary object as POST /scan does (type is required)', async () => {
    for (const auth of ['{}', '{"type":"none","secondary":{}}']) {
      const form = new FormData();
      form.append('base_url', TARGET);
      form.append('auth', auth);
      form.append('spec_file', new Blob(['{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}']), 'openapi.json');
      const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(), body: form });
      const body = (await res.json()) as { error: string; fields: Array<{ field: string }> };
      expect(res.status, `${auth}: ${JSON.stringify(body)}`).toBe(422);
      expect(body.fields.map((f) => f.field)).toContain(auth === '{}' ? 'auth.type' : 'auth.secondary.type');
      const json = await call(`${server.api}/scan`, { headers: as(), json: { url: TARGET, auth: JSON.parse(auth) } });
      expect(json.status).toBe(422);
    }
  });
});

describe(`spec operation limit (${storeLabel})`, () => {
  const LIMIT = 5;
  let server: TestServer;
  let apiKey: string;
  let target: Server;
  let targetUrl: string;
  const as = () => ({ 'X-API-Key': apiKey });
  const served: Record<string, string> = {
    '/big.yaml': stringify(specWith(LIMIT + 1)),
    '/big.json': JSON.stringify(specWith(LIMIT + 1)),
  };

  beforeAll(async () => {
    target = createServer((req, res) => {
      const body = served[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': req.url?.endsWith('.json') ? 'application/json' : 'application/yaml' }).end(body ?? '');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    server = await startServer({
      engines: 'real',
      env: { VIGIL_SPEC_MAX_OPERATIONS: String(LIMIT), VIGIL_CONCURRENT_SCANS: 'free=50,pro=50,team=50,enterprise=50' },
    });
    ({ apiKey } = await server.createTenant('pro'));
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  it('VIGIL_SPEC_MAX_OPERATIONS is validated like every setting', () => {
    expect(loadConfig({}).specMaxOperations).toBe(2000);
    expect(loadConfig({ VIGIL_SPEC_MAX_OPERATIONS: '40' }).specMaxOperations).toBe(40);
    for (const bad of ['0', '-1', 'many', '100001', '1e3']) {
      expect(() => loadConfig({ VIGIL_SPEC_MAX_OPERATIONS: bad }), bad).toThrow(/VIGIL_SPEC_MAX_OPERATIONS/);
    }
  });

  it('an inline spec (JSON or block YAML) over the limit is 422 at start, naming spec_content; at the limit it is admitted', async () => {
    for (const text of [JSON.stringify(specWith(LIMIT + 1)), stringify(specWith(LIMIT + 1))]) {
      const res = await call(`${server.api}/scan`, { headers: as(), json: { url: targetUrl, spec_content: b64(text) } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.fields).toEqual([{ field: 'spec_content', message: `has ${LIMIT + 1} operations; the limit is ${LIMIT} (VIGIL_SPEC_MAX_OPERATIONS)` }]);
    }
    const atLimit = await call(`${server.api}/scan`, { headers: as(), json: { url: `${targetUrl}/`, spec_content: b64(stringify(specWith(LIMIT))) } });
    expect(atLimit.status, atLimit.text).toBe(202);
    expect((await call(`${server.api}/scan/${atLimit.body.scan_id}/cancel`, { method: 'POST', headers: as() })).status).toBe(200);
  });

  it('an uploaded spec over the limit is 422 naming spec_file', async () => {
    const form = new FormData();
    form.append('base_url', targetUrl);
    form.append('spec_file', new Blob([stringify(specWith(LIMIT + 1))]), 'openapi.yaml');
    const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: as(), body: form });
    const body = (await res.json()) as { fields: Array<{ field: string; message: string }> };
    expect(res.status).toBe(422);
    expect(body.fields.map((f) => f.field)).toEqual(['spec_file']);
  });

  it.each(['/big.yaml', '/big.json'])('a spec from spec_url over the limit fails the scan with a reason naming the limit (%s)', async (path) => {
    const res = await call(`${server.api}/scan`, { headers: as(), json: { url: targetUrl, spec_url: `${targetUrl}${path}` } });
    expect(res.status, res.text).toBe(202);
    const done = await waitForScan(server.api, apiKey, res.body.scan_id, undefined, 120_000);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(new RegExp(`has ${LIMIT + 1} operations; this server scans at most ${LIMIT} per scan \\(VIGIL_SPEC_MAX_OPERATIONS\\)`));
    const results = await call(`${server.api}/scan/${res.body.scan_id}/results`, { headers: as() });
    expect(results.body).toMatchObject({ status: 'failed', mode: 'security', url: targetUrl, spec_url: `${targetUrl}${path}` });
  });

  it('an inline spec the door cannot count (flow-style YAML) is admitted and the worker fails it naming the limit', async () => {
    const flow = `openapi: 3.0.3\ninfo: {title: flow, version: "1"}\npaths: {${Array.from({ length: LIMIT + 1 }, (_, i) => `/f${i}: {get: {responses: {"200": {description: ok}}}}`).join(', ')}}\n`;
    expect(countOperations(parse(flow))).toBe(LIMIT + 1);
    const res = await call(`${server.api}/scan`, { headers: as(), json: { url: targetUrl, spec_content: b64(flow) } });
    expect(res.status, res.text).toBe(202);
    const done = await waitForScan(server.api, apiKey, res.body.scan_id, undefined, 120_000);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/VIGIL_SPEC_MAX_OPERATIONS/);
  });
});

describe('counting YAML operations by layout', () => {
  it('agrees with the parser on block-style documents, or declines to count', () => {
    const method = fc.constantFrom('get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'parameters', 'summary', 'x-get');
    const item = fc.dictionary(method, fc.oneof(fc.constant({ description: 'get: x\npost: y' }), fc.constant('text'), fc.constant({ responses: {} })), {
      minKeys: 1,
      maxKeys: 6,
    });
    const paths = fc.dictionary(fc.stringMatching(/^\/[a-z{}]{0,8}$/), item, { minKeys: 1, maxKeys: 8 });
    let counted = 0;
    fc.assert(
      fc.property(paths, fc.integer({ min: 1, max: 4 }), (p, indent) => {
        const doc = { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: p, components: { schemas: { get: { type: 'object' } } } };
        const text = stringify(doc, { indent });
        const count = countYamlOperations(text);
        if (count === undefined) return;
        counted += 1;
        expect(count).toBe(countOperations(parse(text)));
      }),
      { numRuns: 300 },
    );
    // Declining is only for layouts it cannot read (flow style); these documents are all block style.
    expect(counted).toBe(300);
  });
});
