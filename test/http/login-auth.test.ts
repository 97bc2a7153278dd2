/**
 * The start request's identities that log in (auth.type login, oauth2 with the password grant):
 * accepted as JSON and as multipart form fields, refused with the field named when inconsistent,
 * delivered to the engine as given, and their password never stored in the clear nor returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../helpers/test-engine.js';
import { testEngines } from '../helpers/test-engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

const TARGET = 'http://target.test/app';
const PASSWORD = 'alice-login-password-5150';

describe(`identities that log in, in the scan request (${storeLabel})`, () => {
  let server: TestServer;
  const runs: RunRecord[] = [];
  let key: string;
  const start = (json: unknown) => call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json });

  beforeAll(async () => {
    server = await startServer({ engines: testEngines(runs) });
    key = (await server.createTenant('enterprise')).apiKey;
  });
  afterAll(async () => server?.stop());

  const login = { type: 'login', username: 'alice', password: PASSWORD };
  const cases: Array<[string, unknown, string]> = [
    ['login without its settings', { ...login }, 'auth.login'],
    ['login without a password', { type: 'login', username: 'alice', login: { url: '/login' } }, 'auth.password'],
    ['login with neither url nor operation', { ...login, login: { token_pointer: '/token' } }, 'auth.login.url'],
    ['login with both url and operation', { ...login, login: { url: '/login', operation: 'login' } }, 'auth.login.url'],
    ['login url neither a path nor an http URL', { ...login, login: { url: 'ftp://x.test/login' } }, 'auth.login.url'],
    ['two token sources', { ...login, login: { url: '/login', token_pointer: '/token', token_cookie: 'sid' } }, 'auth.login.token_cookie'],
    ['token pointer that is not a JSON pointer', { ...login, login: { url: '/login', token_pointer: 'token' } }, 'auth.login.token_pointer'],
    ['a cookie session sent in a header', { ...login, login: { url: '/login', token_cookie: 'sid', send_scheme: 'Token' } }, 'auth.login.send_scheme'],
    ['a CSRF header without where the token is', { ...login, login: { url: '/login', csrf_header: 'X-CSRF-Token' } }, 'auth.login.csrf_header'],
    ['an unknown login setting', { ...login, login: { url: '/login', remember: true } }, 'auth.login.remember'],
    ['a method with an operation', { ...login, login: { operation: 'login', method: 'PUT' } }, 'auth.login.method'],
    ['login settings on a bearer identity', { type: 'bearer', token: 't', login: { url: '/login' } }, 'auth.login'],
    [
      'password grant without a username',
      { type: 'oauth2', oauth2_grant_type: 'password', oauth2_token_url: 'http://idp.test/token', password: 'p' },
      'auth.username',
    ],
    ['grant type on a basic identity', { type: 'basic', username: 'u', password: 'p', oauth2_grant_type: 'password' }, 'auth.oauth2_grant_type'],
    [
      'second identity login incomplete',
      {
        type: 'bearer',
        token: 't',
        secondary: { type: 'login', username: 'bob', password: 'p', login: { url: '/l', token_header: 'X-Token', token_pointer: '/t' } },
      },
      'auth.secondary.login.token_header',
    ],
  ];
  for (const [name, auth, field] of cases) {
    it(`422: ${name}`, async () => {
      const res = await start({ url: TARGET, auth });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    });
  }

  it('a login identity and a password-grant identity reach the engine as given; the password is sealed at rest and never returned', async () => {
    const auth = {
      type: 'login',
      username: 'alice',
      password: PASSWORD,
      login: { operation: 'auth_login_create', token_pointer: '/token', send_scheme: 'Token', csrf_cookie: 'csrftoken', csrf_header: 'X-CSRFToken' },
      secondary: {
        type: 'oauth2',
        oauth2_grant_type: 'password',
        oauth2_token_url: 'http://idp.test/oauth/token',
        username: 'bob',
        password: `${PASSWORD}-bob`,
        oauth2_client_id: 'web',
      },
    };
    const res = await start({ url: `${TARGET}?delay_ms=300`, auth });
    expect(res.status).toBe(202);
    const row = await server.vigil.services.store.db
      .selectFrom('scans')
      .select(['secret', 'input'])
      .where('id', '=', res.body.scan_id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(PASSWORD);
    expect(row.input).not.toContain(PASSWORD);
    await waitForScan(server.api, key, res.body.scan_id);
    expect(runs.find((r) => r.scanId === res.body.scan_id)?.authSeen).toEqual(auth);
    for (const path of ['', '/results', '/export?format=json', '/export?format=html']) {
      expect((await call(`${server.api}/scan/${res.body.scan_id}${path}`, { headers: { 'X-API-Key': key } })).text).not.toContain(PASSWORD);
    }
  });

  it('the multipart upload takes the login settings as dotted fields or as JSON', async () => {
    const form = new FormData();
    form.append('base_url', TARGET);
    form.append('spec_file', new Blob(['openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}\n']), 'openapi.yaml');
    form.append('auth.type', 'login');
    form.append('auth.username', 'alice@example.com');
    form.append('auth.password', PASSWORD);
    form.append('auth.login.url', '/api/session');
    form.append('auth.login.username_field', 'email');
    form.append('auth.login.token_cookie', 'connect.sid');
    form.append('auth.login.csrf_url', '/api/csrf-token');
    form.append('auth.login.csrf_cookie', 'XSRF-TOKEN');
    form.append(
      'auth.secondary',
      JSON.stringify({ type: 'login', username: 'bob', password: 'b', login: { url: '/api/session', token_cookie: 'connect.sid' } }),
    );
    const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    const body = (await res.json()) as { scan_id: string };
    expect(res.status).toBe(202);
    await waitForScan(server.api, key, body.scan_id);
    expect(runs.find((r) => r.scanId === body.scan_id)?.authSeen).toMatchObject({
      type: 'login',
      login: { url: '/api/session', username_field: 'email', token_cookie: 'connect.sid', csrf_url: '/api/csrf-token', csrf_cookie: 'XSRF-TOKEN' },
      secondary: { type: 'login', login: { url: '/api/session', token_cookie: 'connect.sid' } },
    });
    const bad = new FormData();
    bad.append('base_url', TARGET);
    bad.append('spec_file', new Blob(['{}']), 'x.json');
    bad.append('auth.type', 'login');
    bad.append('auth.login.token_jar', 'x');
    const refused = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: bad });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { fields: { field: string }[] }).fields.map((f) => f.field)).toContain('auth.login.token_jar');
  });

  it('the OpenAPI document describes the login form with an example', async () => {
    const doc = (await call(`${server.api}/openapi.json`)).body;
    const text = JSON.stringify(doc);
    expect(text).toContain('token_pointer');
    expect(text).toContain('"oauth2_grant_type"');
    expect(text).toMatch(/"send_scheme":"Token"/);
  });
});
