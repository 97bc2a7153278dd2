/**
 * Identities that log in (engines/login.ts, engines/credentials.ts) against small in-test targets:
 * where the credential is taken from and how it is sent, CSRF, why a login that yields nothing does
 * not count, and the OAuth2 password grant with its refresh tokens.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetClient } from '../../src/engines/security/client.js';
import { TargetCredentials } from '../../src/engines/credentials.js';
import { LoginFailure, logIn, splitSetCookie } from '../../src/engines/login.js';
import { REDACTED, Redactor } from '../../src/domain/redaction.js';
import type { TargetAuth } from '../../src/domain/scan.js';
import { PASSWORD_CLIENT, startPassportFixture, type PassportFixture } from '../fixtures/laravel-passport/server.js';
import { startExpressFixture, type ExpressFixture } from '../fixtures/express-session/server.js';

const JWT = (exp: number) =>
  `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'ann', exp })).toString('base64url')}.c2lnbmF0dXJlLXBhcnQ`;

/** A target whose login answers as `answer` says and records what each request carried. */
let seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void = (_q, _b, res) => res.end();
let url = '';
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    answer(req, body, res);
  });
});
const client = new TargetClient({ allowPrivate: true, concurrency: 4, timeoutMs: 5000, signal: new AbortController().signal, maxBodyBytes: 1 << 20 });
const send = (req: Parameters<TargetClient['send']>[0]) => client.send(req);
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/app`;
});
afterAll(async () => {
  await client.close();
  await new Promise((r) => server.close(r));
});

const login = (settings: TargetAuth['login'], extra: Partial<TargetAuth> = {}): TargetAuth => ({
  type: 'login',
  username: 'ann@example.com',
  password: 'ann-password-7',
  login: settings,
  ...extra,
});

describe('logIn: the credential and how it is sent', () => {
  it('takes a token by JSON pointer and sends it in the configured header and scheme; the login body uses the given field names', async () => {
    seen = [];
    const token = JWT(Math.floor(Date.now() / 1000) + 3600);
    answer = (_q, _b, res) => json(res, 200, { data: { access_token: token } });
    const redactor = new Redactor();
    const cred = await logIn(
      login({ url: '/api/login', username_field: 'email', token_pointer: '/data/access_token', send_header: 'X-Auth', send_scheme: 'JWT' }),
      { send, targetUrl: url, redactor },
    );
    expect(cred.headers()).toEqual({ 'x-auth': `JWT ${token}` });
    // A path is resolved against the target URL as a browser would.
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/login' });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ email: 'ann@example.com', password: 'ann-password-7' });
    // The token is a secret from now on; its JWT exp sets when it is renewed (30 s early).
    expect(redactor.redact(token)).toBe(REDACTED);
    expect(cred.expires).toBeGreaterThan(Date.now() + 3500_000);
    expect(cred.expires).toBeLessThan(Date.now() + 3600_000);
  });

  it('form logins, a token in a response header, and the bare token (empty scheme)', async () => {
    seen = [];
    answer = (_q, _b, res) => json(res, 200, { ok: true }, { 'x-session-token': 'Bearer opaque-token-123456' });
    const cred = await logIn(login({ url: `${url}/login`, format: 'form', token_header: 'X-Session-Token', send_header: 'X-Session-Token', send_scheme: '' }), {
      send,
      targetUrl: url,
      redactor: new Redactor(),
    });
    expect(cred.headers()).toEqual({ 'x-session-token': 'opaque-token-123456' });
    expect(seen[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen[0]!.body))).toEqual({ username: 'ann@example.com', password: 'ann-password-7' });
  });

  it('finds a usual token by itself (DRF authtoken `{"token"}`, dj-rest-auth `{"key"}`) and sends it as configured', async () => {
    answer = (_q, _b, res) => json(res, 200, { key: '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b' });
    const cred = await logIn(login({ url: '/rest-auth/login/', send_scheme: 'Token' }), { send, targetUrl: url, redactor: new Redactor() });
    expect(cred.headers()).toEqual({ authorization: 'Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b' });
  });

  it("fields given as JSON pointers go inside their envelope (nested JSON, user[email] in a form), and the token is found in the answer's envelope", async () => {
    seen = [];
    answer = (_q, _b, res) => json(res, 200, { user: { email: 'ann@example.com', token: 'realworld-token-123456' } });
    const fields = { username_field: '/user/email', password_field: '/user/password' };
    const cred = await logIn(login({ url: '/api/users/login', ...fields }), { send, targetUrl: url, redactor: new Redactor() });
    expect(cred.headers()).toEqual({ authorization: 'Bearer realworld-token-123456' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ user: { email: 'ann@example.com', password: 'ann-password-7' } });
    await logIn(login({ url: '/users/sign_in', format: 'form', ...fields }), { send, targetUrl: url, redactor: new Redactor() });
    expect(Object.fromEntries(new URLSearchParams(seen[1]!.body))).toEqual({ 'user[email]': 'ann@example.com', 'user[password]': 'ann-password-7' });
  });

  it('a 200 {"status":"fail"} without the token is not a login, and the reason says so', async () => {
    answer = (_q, _b, res) => json(res, 200, { status: 'fail' });
    const err = await logIn(login({ url: '/api/auth/login/', token_pointer: '/token' }), { send, targetUrl: url, redactor: new Redactor() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LoginFailure);
    expect((err as LoginFailure).reason).toMatch(
      /answered 200 without a token at \/token \(the answer: \{"status":"fail"\}\): a login counts only when it yields a credential/,
    );
    // Nothing configured: no token and no cookie is not a login either.
    const auto = await logIn(login({ url: '/api/auth/login/' }), { send, targetUrl: url, redactor: new Redactor() }).catch((e: unknown) => e);
    expect((auto as LoginFailure).reason).toMatch(/answered 200 without a credential: no token .* and no cookie set \(the answer: \{"status":"fail"\}\)/);
  });

  it('an error answer is not a login; the password never appears in the reason', async () => {
    answer = (_q, body, res) => json(res, 401, { message: 'Invalid credentials', echo: JSON.parse(body) });
    const redactor = new Redactor(['ann-password-7']);
    const err = (await logIn(login({ url: '/login' }), { send, targetUrl: url, redactor }).catch((e: unknown) => e)) as LoginFailure;
    expect(err.reason).toMatch(/^the login \(POST http:\/\/127\.0\.0\.1:\d+\/login\) answered 401: \{"message":"Invalid credentials"/);
    expect(err.reason).not.toContain('ann-password-7');
  });

  it('a login operation named without the spec is refused with the reason', async () => {
    const err = (await logIn(login({ operation: 'auth_login_create' }), { send, targetUrl: url, redactor: new Redactor() }).catch(
      (e: unknown) => e,
    )) as LoginFailure;
    expect(err.reason).toMatch(/needs the API's specification/);
  });

  it('splits joined Set-Cookie headers whose Expires dates hold commas, and sees cleared cookies', () => {
    expect(splitSetCookie('a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/, b=2; HttpOnly, c=; Max-Age=0')).toEqual([
      { name: 'a', value: '1', cleared: false },
      { name: 'b', value: '2', cleared: false },
      { name: 'c', value: '', cleared: true },
    ]);
  });
});

describe('cookie sessions with CSRF (the Express-shaped target)', () => {
  let fx: ExpressFixture;
  beforeAll(async () => {
    fx = await startExpressFixture({ vulnerable: false });
  });
  afterAll(async () => fx?.close());

  const settings = { url: '/api/session', username_field: 'email', token_cookie: 'connect.sid', csrf_url: '/api/csrf-token' };

  it('CSRF token from a cookie, sent in X-XSRF-TOKEN: reads and writes work with the session, the rotated cookie is followed', async () => {
    const creds = new TargetCredentials(send, new Redactor(), fx.url);
    const alice: TargetAuth = {
      type: 'login',
      username: 'alice@example.com',
      password: 'alice-secret-1',
      login: { ...settings, csrf_cookie: 'XSRF-TOKEN', csrf_header: 'X-XSRF-TOKEN' },
    };
    const h = await creds.headers(alice);
    expect(Object.keys(h).sort()).toEqual(['cookie', 'x-xsrf-token']);
    expect(h.cookie).toMatch(/connect\.sid=s%3A/);
    expect((await client.send({ method: 'GET', url: `${fx.url}/api/me`, headers: h })).status).toBe(200);
    const created = await client.send({
      method: 'POST',
      url: `${fx.url}/api/todos`,
      headers: { ...h, 'content-type': 'application/json' },
      body: '{"title":"t"}',
    });
    expect(created.status).toBe(201);
    creds.absorb(alice, created.headers['set-cookie']);
    const after = await creds.headers(alice);
    expect(after['x-xsrf-token']).not.toBe(h['x-xsrf-token']);
    expect((await client.send({ method: 'DELETE', url: `${fx.url}/api/todos/${JSON.parse(created.body).id}`, headers: after })).status).toBe(204);
    expect(fx.stats.logins['alice@example.com']).toBe(1);
    expect(creds.counts(alice)).toEqual({ logins: 1, refreshes: 0 });
  });

  it("CSRF token from the CSRF page's answer (a JSON pointer) works for the login itself and is read again for the signed-in session; after a logout a stale generation logs in again", async () => {
    const creds = new TargetCredentials(send, new Redactor(), fx.url);
    const bob: TargetAuth = { type: 'login', username: 'bob@example.com', password: 'bob-secret-2', login: { ...settings, csrf_pointer: '/csrfToken' } };
    const before = fx.stats.logins['bob@example.com'] ?? 0;
    const h = await creds.headers(bob);
    expect(h['x-csrf-token']).toBeTruthy();
    // The login answer carries no csrfToken and the signed-in session has a new secret: the CSRF page is
    // read again with the new session, so writes are accepted.
    expect((await client.send({ method: 'GET', url: `${fx.url}/api/me`, headers: h })).status).toBe(200);
    const refused = fx.stats.csrfRefused;
    const out = await client.send({ method: 'DELETE', url: `${fx.url}/api/session`, headers: h });
    expect(out.status).toBe(204);
    expect(fx.stats.csrfRefused).toBe(refused);
    const generation = creds.generation(bob);
    const fresh = await creds.headers(bob, generation);
    expect(creds.generation(bob)).not.toBe(generation);
    expect(fx.stats.logins['bob@example.com']).toBe(before + 2);
    expect((await client.send({ method: 'GET', url: `${fx.url}/api/me`, headers: fresh })).status).toBe(200);
  });

  it("a wrong password: the login's 401 is the reason, and it is not retried on every request", async () => {
    const creds = new TargetCredentials(send, new Redactor(), fx.url);
    const wrong: TargetAuth = { type: 'login', username: 'alice@example.com', password: 'nope', login: { ...settings, csrf_cookie: 'XSRF-TOKEN' } };
    await expect(creds.headers(wrong)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      reason: expect.stringMatching(/answered 401: \{"message":"Invalid email or password"\}/),
    });
    await expect(creds.headers(wrong)).rejects.toBeInstanceOf(LoginFailure);
    expect(fx.stats.failedLogins.nope).toBe(1);
  });
});

describe('OAuth2 password grant (the Passport-shaped token endpoint)', () => {
  let fx: PassportFixture;
  beforeAll(async () => {
    fx = await startPassportFixture({ vulnerable: false, tokenSeconds: 2 });
  });
  afterAll(async () => fx?.close());
  const grant = (extra: Partial<TargetAuth> = {}): TargetAuth => ({
    type: 'oauth2',
    oauth2_grant_type: 'password',
    oauth2_token_url: fx.tokenUrl,
    username: 'taylor@example.com',
    password: 'taylor-password-1',
    oauth2_client_id: PASSWORD_CLIENT.id,
    oauth2_client_secret: PASSWORD_CLIENT.secret,
    ...extra,
  });

  it('asks with grant_type=password (form-encoded), then uses the refresh token once the access token expires', async () => {
    const creds = new TargetCredentials(send, new Redactor(), fx.url);
    const a = grant();
    const first = await creds.headers(a);
    expect((await client.send({ method: 'GET', url: `${fx.url}/api/user`, headers: first })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const second = await creds.headers(a);
    expect(second.authorization).not.toBe(first.authorization);
    expect((await client.send({ method: 'GET', url: `${fx.url}/api/user`, headers: second })).status).toBe(200);
    expect(fx.stats.grants).toEqual({ password: 1, refresh_token: 1 });
    expect(fx.stats.notForm).toBe(0);
    expect(creds.counts(a)).toEqual({ logins: 1, refreshes: 1 });
  });

  it('a public client (no secret) sends its id in the form; the endpoint that wants the secret refuses, with the reason', async () => {
    const creds = new TargetCredentials(send, new Redactor(), fx.url);
    await expect(creds.headers(grant({ oauth2_client_secret: undefined }))).rejects.toMatchObject({
      reason: expect.stringMatching(/grant_type=password\) answered 401 without an access_token \(invalid_client: Client authentication failed\)/),
    });
  });

  it('wrong credentials: invalid_grant is the reason (a LoginFailure, the identity is not used)', async () => {
    const creds = new TargetCredentials(send, new Redactor(['wrong-password']), fx.url);
    const err = await creds.headers(grant({ password: 'wrong-password' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginFailure);
    expect((err as LoginFailure).reason).toMatch(/answered 400 without an access_token \(invalid_grant: The user credentials were incorrect\.\)/);
  });
});
