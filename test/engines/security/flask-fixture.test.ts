/**
 * The Flask-shaped stateful fixture, checked with plain fetch (no engine): it behaves like a
 * Flask app, its spec matches its routes, and each documented flaw is exploitable on the
 * vulnerable instance and closed on the fixed twin. This is what makes it ground truth.
 */
import { createHmac } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FLASK_GROUND_TRUTH,
  FLASK_SEED,
  FLASK_WEAK_JWT_SECRET,
  flaskSpec,
  loginTokens,
  registerAndLogin,
  startFlaskFixture,
  type FlaskFixture,
} from '../../fixtures/stateful-flask/index.js';

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(
  fx: FlaskFixture,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(fx.url + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const b64u = (v: object | string) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
const hs256 = (header: object, claims: object, secret: string) => {
  const input = `${b64u(header)}.${b64u(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
};

let vuln: FlaskFixture;
let fixed: FlaskFixture;
const both = () => [vuln, fixed] as const;

beforeAll(async () => {
  vuln = await startFlaskFixture({ vulnerable: true });
  // Most tests log in many times: the login limit of the fixed twin has its own test below.
  fixed = await startFlaskFixture({ vulnerable: false, authLimitPerMinute: 10_000 });
});

afterAll(async () => {
  await Promise.all([vuln?.close(), fixed?.close()]);
});

describe('behaves like a Flask app', () => {
  it('answers unknown routes and methods with Werkzeug pages, and routes with strict slashes', async () => {
    for (const fx of both()) {
      const missing = await call(fx, 'GET', '/nope');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('server')).toBe('Werkzeug/2.2.2 Python/3.11');
      expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(missing.text).toContain('<title>404 Not Found</title>');
      expect((await call(fx, 'GET', '/users/v1/')).text).toContain('<title>404 Not Found</title>');

      const patch = await call(fx, 'PATCH', '/users/v1');
      expect(patch.status).toBe(405);
      expect(patch.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(patch.text).toContain('<h1>Method Not Allowed</h1>');

      // Methods Node's parser does not know are routed too, as Werkzeug routes them.
      const invented = await call(fx, 'VIGILPROBE', '/users/v1');
      expect([invented.status, invented.headers.get('allow'), invented.headers.get('server')]).toEqual([
        405,
        'GET, HEAD, OPTIONS',
        'Werkzeug/2.2.2 Python/3.11',
      ]);
      expect((await call(fx, 'VIGILPROBE', '/nope')).status).toBe(404);

      const options = await call(fx, 'OPTIONS', '/users/v1/name1');
      expect(options.status).toBe(200);
      expect(options.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS');

      const head = await fetch(`${fx.url}/users/v1`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      expect(await head.text()).toBe('');
    }
  });

  it('formats JSON as jsonify and json.dumps do, and refuses non-JSON bodies with a 400 page', async () => {
    const list = await call(vuln, 'GET', '/users/v1');
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(list.text.startsWith('{"users":[{"email":"mail1@mail.com","username":"name1"}')).toBe(true);
    expect(list.text.endsWith('\n')).toBe(true);
    expect((await call(vuln, 'GET', '/users/v1/nobody-here')).text).toBe('{"status": "fail", "message": "User not found"}');

    const form = await call(fixed, 'POST', '/users/v1/login', {
      body: 'username=a&password=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.text).toContain('<title>400 Bad Request</title>');
    const broken = await call(fixed, 'POST', '/users/v1/login', { body: '{"username": ' });
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('could not understand');
    const missing = await call(fixed, 'POST', '/users/v1/register', { body: { username: 'x', password: 'y' } });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ status: 'fail', message: "'email' is a required property" });
  });
});

describe('ships an OpenAPI 3.0 document that matches its routes', () => {
  const spec = flaskSpec('http://127.0.0.1:5000');
  const ops = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

  it('is a valid 3.0.x document with a bearer JWT scheme', async () => {
    expect(String(spec.openapi)).toMatch(/^3\.0\./);
    await SwaggerParser.validate(structuredClone(spec) as never);
    expect((spec.components as any).securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(ops.length).toBe(13);
  });

  it('serves every documented operation; public ones answer without credentials, the others ask for a token', async () => {
    for (const { path, method, op } of ops) {
      if (path === '/createdb') continue; // destructive: its own test
      const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => String(op.parameters.find((p: any) => p.name === name).schema.example));
      const body = op.requestBody ? op.requestBody.content['application/json'].schema : undefined;
      const example = body
        ? Object.fromEntries(
            Object.entries((spec.components as any).schemas[body.$ref.split('/').pop()].properties).map(([k, s]: [string, any]) => [k, s.example]),
          )
        : undefined;
      const res = await call(vuln, method, concrete, { body: example });
      expect(res.headers.get('content-type'), `${method} ${path}`).toBe('application/json');
      if (Array.isArray(op.security) && op.security.length === 0) expect(String(res.json?.message), `${method} ${path}`).not.toMatch(/token/i);
      else expect([res.status, res.json.message], `${method} ${path}`).toEqual([401, 'Token is missing.']);
      for (const status of [String(res.status)]) expect(Object.keys(op.responses), `${method} ${path}`).toContain(status);
    }
  });

  it('has examples that collide with existing data, and a path parameter named apart from the property', async () => {
    const reg = (spec.components as any).schemas.Registration.properties;
    expect(FLASK_SEED.users.some((u) => u.username === reg.username.example)).toBe(true);
    const taken = await call(fixed, 'POST', '/users/v1/register', {
      body: { username: reg.username.example, password: 'whatever1', email: 'someone@example.com' },
    });
    expect(taken.status).toBe(400);
    expect(taken.json.message).toMatch(/^User already exists/);
    const item = (spec.paths as any)['/books/v1/{title}'].get;
    expect(item.parameters[0].name).toBe('title');
    expect(Object.keys((spec.components as any).schemas.NewBook.properties)).toContain('book_title');
  });
});

describe('each flaw is exploitable on the vulnerable instance and closed on the fixed one', () => {
  it('ground truth names a check for every flaw', () => {
    expect(FLASK_GROUND_TRUTH.map((f) => f.check).sort()).toEqual([
      'account-enumeration',
      'bfla',
      'bola',
      'bola',
      'bola',
      'data-exposure',
      'jwt',
      'jwt',
      'mass-assignment',
      'rate-limit',
      'rate-limit',
    ]);
  });

  it('BOLA read: another user reads a book and its secret', async () => {
    for (const fx of both()) {
      const ids = await loginTokens(fx);
      const book = { book_title: `diary-${ids.primaryAccount.username}`, secret: 'the owner only' };
      expect((await call(fx, 'POST', '/books/v1', { token: ids.primary, body: book })).status).toBe(200);
      const path = `/books/v1/${book.book_title}`;
      expect((await call(fx, 'GET', path, { token: ids.primary })).json).toEqual({ ...book, owner: ids.primaryAccount.username });
      const other = await call(fx, 'GET', path, { token: ids.secondary });
      if (fx.vulnerable) {
        expect(other.status).toBe(200);
        expect(other.json.secret).toBe('the owner only');
      } else {
        expect(other.status).toBe(404);
        expect(other.text).not.toContain('the owner only');
      }
      // Listed publicly, without the secret.
      const list = await call(fx, 'GET', '/books/v1');
      expect(list.json.Books).toContainEqual({ book_title: book.book_title, user: ids.primaryAccount.username });
      expect(list.text).not.toContain('the owner only');
    }
  });

  it("BOLA write: another user changes the owner's email (204, visible on re-read)", async () => {
    for (const fx of both()) {
      const ids = await loginTokens(fx);
      const victim = ids.primaryAccount.username;
      const res = await call(fx, 'PUT', `/users/v1/${victim}/email`, { token: ids.secondary, body: { email: 'attacker@evil.example' } });
      const after = (await call(fx, 'GET', `/users/v1/${victim}`)).json.email;
      if (fx.vulnerable) {
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect(after).toBe('attacker@evil.example');
      } else {
        expect(res.status).toBe(403);
        expect(after).toBe(ids.primaryAccount.email);
        expect((await call(fx, 'PUT', `/users/v1/${victim}/email`, { token: ids.primary, body: { email: 'new@example.com' } })).status).toBe(204);
        expect(fx.state().users.find((u) => u.username === victim)?.email).toBe('new@example.com');
      }
    }
  });

  it("BOLA write: another user sets the owner's password, which then logs in", async () => {
    for (const fx of both()) {
      const ids = await loginTokens(fx);
      const victim = ids.primaryAccount;
      const res = await call(fx, 'PUT', `/users/v1/${victim.username}/password`, { token: ids.secondary, body: { password: 'taken-over-1' } });
      const stolen = await call(fx, 'POST', '/users/v1/login', { body: { username: victim.username, password: 'taken-over-1' } });
      const original = await call(fx, 'POST', '/users/v1/login', { body: { username: victim.username, password: victim.password } });
      if (fx.vulnerable) {
        expect(res.status).toBe(204);
        expect(stolen.status).toBe(200);
        expect(original.status).toBe(401);
      } else {
        expect(res.status).toBe(403);
        expect(stolen.status).toBe(401);
        expect(original.status).toBe(200);
      }
    }
  });

  it('BFLA: an ordinary user deletes another user (admin only on the fixed twin)', async () => {
    for (const fx of both()) {
      const ids = await loginTokens(fx);
      const victim = ids.primaryAccount.username;
      const res = await call(fx, 'DELETE', `/users/v1/${victim}`, { token: ids.secondary });
      const exists = fx.state().users.some((u) => u.username === victim);
      if (fx.vulnerable) {
        expect(res.status).toBe(200);
        expect(res.json).toEqual({ message: 'User deleted.', status: 'success' });
        expect(exists).toBe(false);
        // The deleted user's token names nobody now.
        expect((await call(fx, 'POST', '/books/v1', { token: ids.primary, body: { book_title: 'x', secret: 'y' } })).status).toBe(401);
      } else {
        expect(res.status).toBe(403);
        expect(exists).toBe(true);
        const admin = FLASK_SEED.users.find((u) => u.admin)!;
        const login = await call(fx, 'POST', '/users/v1/login', { body: { username: admin.username, password: admin.password } });
        expect((await call(fx, 'DELETE', `/users/v1/${victim}`, { token: login.json.auth_token })).status).toBe(200);
        expect(fx.state().users.some((u) => u.username === victim)).toBe(false);
      }
    }
  });

  it('mass assignment: registration stores an undeclared admin flag, read back from the profile', async () => {
    for (const fx of both()) {
      const username = `mass-${Date.now().toString(36)}-${fx.vulnerable ? 'v' : 'f'}`;
      const reg = await call(fx, 'POST', '/users/v1/register', { body: { username, password: 'pw-123456', email: `${username}@example.com`, admin: true } });
      expect(reg.status).toBe(201);
      expect(reg.text).not.toContain('admin');
      const profile = await call(fx, 'GET', `/users/v1/${username}`);
      expect(profile.json.admin).toBe(fx.vulnerable);
      expect(fx.state().users.find((u) => u.username === username)?.admin).toBe(fx.vulnerable);
    }
  });

  it('JWT: a garbage signature, alg none and an expired token are accepted only by the vulnerable instance', async () => {
    for (const fx of both()) {
      const { token, account } = await registerAndLogin(fx, 'jwt');
      await call(fx, 'POST', '/books/v1', { token, body: { book_title: 'mine', secret: 's3cret-note' } });
      const read = (t: string) => call(fx, 'GET', '/books/v1/mine', { token: t });
      expect((await read(token)).status).toBe(200);
      const [h, p] = token.split('.');
      const garbage = await read(`${h}.${p}.${b64u('not-a-signature')}`);
      const none = await read(`${b64u({ alg: 'none', typ: 'JWT' })}.${p}.`);
      const expiredClaims = { ...claimsOf(token), exp: Math.floor(Date.now() / 1000) - 60 };
      const expired = await read(hs256({ alg: 'HS256', typ: 'JWT' }, expiredClaims, fx.jwtSecret));
      if (fx.vulnerable) {
        expect([garbage.status, none.status, expired.status]).toEqual([200, 200, 200]);
      } else {
        expect([garbage.status, none.status, expired.status]).toEqual([401, 401, 401]);
        expect(expired.json.message).toBe('Signature expired. Please log in again.');
      }
      expect(claimsOf(token).sub).toBe(account.username);
    }
  });

  it('JWT: the vulnerable instance signs with a six-digit secret; the fixed one does not', async () => {
    expect(FLASK_WEAK_JWT_SECRET).toMatch(/^\d{6}$/);
    for (const fx of both()) {
      const { token } = await registerAndLogin(fx, 'weak');
      const [h, p, s] = token.split('.');
      const weak = createHmac('sha256', FLASK_WEAK_JWT_SECRET).update(`${h}.${p}`).digest('base64url');
      expect(s === weak).toBe(fx.vulnerable);
      // A token forged with the weak secret for the admin.
      const forged = hs256({ alg: 'HS256', typ: 'JWT' }, { sub: 'admin', exp: Math.floor(Date.now() / 1000) + 600 }, FLASK_WEAK_JWT_SECRET);
      expect((await call(fx, 'GET', '/books/v1/bookTitle47', { token: forged })).status).toBe(fx.vulnerable ? 200 : 401);
    }
    expect(fixed.jwtSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('debug route: every user with password and admin flag, without credentials', async () => {
    const open = await call(vuln, 'GET', '/users/v1/_debug');
    expect(open.status).toBe(200);
    expect(open.json.users).toContainEqual({ username: 'admin', password: 'pass1', email: 'admin@mail.com', admin: true });
    const closed = await call(fixed, 'GET', '/users/v1/_debug');
    expect(closed.status).toBe(404);
    expect(closed.text).not.toContain('password');
  });

  it('account enumeration: login tells unknown users from wrong passwords', async () => {
    for (const fx of both()) {
      const known = await call(fx, 'POST', '/users/v1/login', { body: { username: 'name1', password: 'wrong-password' } });
      const unknown = await call(fx, 'POST', '/users/v1/login', { body: { username: 'nobody-at-all', password: 'wrong-password' } });
      expect([known.status, unknown.status]).toEqual([401, 401]);
      if (fx.vulnerable) {
        expect(known.json.message).toBe('Password is not correct for the given username.');
        expect(unknown.json.message).toBe('Username does not exist');
      } else expect(known.text).toBe(unknown.text);
    }
  });

  it('rate limit: the fixed twin answers 429 after 10 logins a minute (registrations counted apart)', async () => {
    const limited = await startFlaskFixture({ vulnerable: false });
    try {
      const attempt = (fx: FlaskFixture) => call(fx, 'POST', '/users/v1/login', { body: { username: 'name1', password: 'guess' } });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await attempt(limited)).status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
      expect((await attempt(limited)).text).toContain('10 per 1 minute');
      expect(
        (await call(limited, 'POST', '/users/v1/register', { body: { username: 'fresh-one', password: 'pw-1', email: 'fresh@example.com' } })).status,
      ).toBe(201);
      const register = (i: number) =>
        call(limited, 'POST', '/users/v1/register', { body: { username: `burst-${i}`, password: 'pw-1', email: 'b@example.com' } });
      const regStatuses: number[] = [];
      for (let i = 0; i < 10; i++) regStatuses.push((await register(i)).status);
      expect(regStatuses.filter((s) => s === 429).length).toBe(1);

      const open: number[] = [];
      for (let i = 0; i < 30; i++) open.push((await attempt(vuln)).status);
      expect(open.every((s) => s === 401)).toBe(true);
    } finally {
      await limited.close();
    }
  });
});

describe('state and request log for judging a scan', () => {
  it('/createdb wipes what was registered, counts the reset and marks later requests', async () => {
    const fx = await startFlaskFixture({ vulnerable: true });
    try {
      const { token, account } = await registerAndLogin(fx, 'before');
      expect(fx.resetCount()).toBe(0);
      const reset = await call(fx, 'GET', '/createdb');
      expect(reset.status).toBe(200);
      expect(reset.json).toEqual({ message: 'Database populated.' });
      expect(fx.resetCount()).toBe(1);
      expect(fx.state().users.map((u) => u.username)).toEqual(FLASK_SEED.users.map((u) => u.username));
      expect(fx.state().books).toHaveLength(FLASK_SEED.books.length);
      // The account is gone: its token names nobody, its login fails.
      expect((await call(fx, 'POST', '/books/v1', { token, body: { book_title: 'a', secret: 'b' } })).status).toBe(401);
      expect((await call(fx, 'POST', '/users/v1/login', { body: { username: account.username, password: account.password } })).status).toBe(401);

      const log = fx.requests();
      const at = log.findIndex((e) => e.path === '/createdb');
      expect(log.slice(0, at + 1).every((e) => !e.afterReset)).toBe(true);
      expect(log.slice(at + 1).length).toBe(2);
      expect(log.slice(at + 1).every((e) => e.afterReset)).toBe(true);
      expect(log.find((e) => e.path === '/books/v1')).toMatchObject({ method: 'POST', status: 401, withCredentials: true });
      expect(log[0]).toMatchObject({ method: 'POST', path: '/users/v1/register', status: 201, withCredentials: false });
    } finally {
      await fx.close();
    }
  });

  it('loginTokens gives two distinct working identities with fresh names on every call', async () => {
    const a = await loginTokens(fixed);
    const b = await loginTokens(fixed);
    const names = [a.primaryAccount.username, a.secondaryAccount.username, b.primaryAccount.username, b.secondaryAccount.username];
    expect(new Set(names).size).toBe(4);
    for (const token of [a.primary, a.secondary])
      expect((await call(fixed, 'POST', '/books/v1', { token, body: { book_title: 'probe', secret: 'p' } })).status).toBe(200);
  });
});
