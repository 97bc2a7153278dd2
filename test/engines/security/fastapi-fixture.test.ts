/**
 * Self-test of the stateful FastAPI-shaped fixture with plain fetch: it behaves like FastAPI, every
 * documented flaw is exploitable on the vulnerable instance and closed on the fixed twin.
 */
import { createHmac } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FASTAPI_GROUND_TRUTH,
  SEEDED_USERS,
  fastapiSpec,
  loginTokens,
  startFastapiFixture,
  type FastapiFixture,
} from '../../fixtures/stateful-fastapi/index.js';

interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(
  fx: FastapiFixture,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; form?: Record<string, string>; raw?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(opts.json)];
  if (opts.form) [headers['content-type'], body] = ['application/x-www-form-urlencoded', new URLSearchParams(opts.form).toString()];
  if (opts.raw !== undefined) [headers['content-type'], body] = ['application/json', opts.raw];
  const res = await fetch(fx.url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const b64u = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
function hs256(claims: object, secret: string): string {
  const input = `${b64u({ alg: 'HS256', typ: 'JWT' })}.${b64u(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const unsigned = (claims: object, alg = 'none') => `${b64u({ alg, typ: 'JWT' })}.${b64u(claims)}.`;
const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

let serial = 0;
/** Registers (optionally with extra body fields) and logs in a fresh account. */
async function account(fx: FastapiFixture, extra: Record<string, unknown> = {}) {
  const username = `selftest-${process.pid}-${serial++}`;
  const password = 'correct-horse-9';
  const created = await call(fx, 'POST', '/users/', { json: { username, password, full_name: 'Self Test', ...extra } });
  expect(created.status, created.text).toBe(200);
  const login = await call(fx, 'POST', '/token', { form: { username, password } });
  expect(login.status).toBe(200);
  return { id: created.json.id as number, username, password, token: login.json.access_token as string };
}

async function createInvoice(fx: FastapiFixture, token: string, customer = 'Umbrella Ltd') {
  const res = await call(fx, 'POST', '/invoices/', { token, json: { customer, amount: 420.5, description: 'Q3 audit' } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as number;
}

let vuln: FastapiFixture;
let fixed: FastapiFixture;
const side = (vulnerable: boolean) => (vulnerable ? vuln : fixed);

beforeAll(async () => {
  [vuln, fixed] = await Promise.all([startFastapiFixture({ vulnerable: true }), startFastapiFixture({ vulnerable: false })]);
});

afterAll(async () => {
  await Promise.all([vuln?.close(), fixed?.close()]);
});

describe('FastAPI behaviour, the same on both twins', () => {
  it.each([true, false])('routing, errors and headers as FastAPI on uvicorn (vulnerable=%s)', async (v) => {
    const fx = side(v);
    const redirect = await call(fx, 'POST', '/invoices?x=1');
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe(`${fx.url}/invoices/?x=1`);
    expect(redirect.text).toBe('');
    const notFound = await call(fx, 'GET', '/nothing-here');
    expect([notFound.status, notFound.json]).toEqual([404, { detail: 'Not Found' }]);
    expect(notFound.headers.get('server')).toBe('uvicorn');
    const notAllowed = await call(fx, 'DELETE', '/invoices/');
    expect([notAllowed.status, notAllowed.json]).toEqual([405, { detail: 'Method Not Allowed' }]);
    const anonymous = await call(fx, 'GET', '/invoices/');
    expect([anonymous.status, anonymous.json]).toEqual([401, { detail: 'Not authenticated' }]);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const badLogin = await call(fx, 'POST', '/token', { form: { username: SEEDED_USERS.alice.username, password: 'wrong-password' } });
    expect([badLogin.status, badLogin.json]).toEqual([401, { detail: 'Incorrect username or password' }]);

    const missing = await call(fx, 'POST', '/users/', { json: { username: 'someone-new' } });
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({ detail: [{ loc: ['body', 'password'], msg: 'field required', type: 'value_error.missing' }] });
    const malformed = await call(fx, 'POST', '/users/', { raw: '{"username": ' });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].type).toBe('value_error.jsondecode');

    const me = await account(fx);
    const badId = await call(fx, 'GET', '/invoices/abc', { token: me.token });
    expect(badId.json).toEqual({ detail: [{ loc: ['path', 'invoice_id'], msg: 'value is not a valid integer', type: 'type_error.integer' }] });
    const duplicate = await call(fx, 'POST', '/users/', { json: { username: me.username, password: 'another-pass-1' } });
    expect([duplicate.status, duplicate.json]).toEqual([400, { detail: 'Username already registered' }]);
  });

  it.each([true, false])('invoices: 201 with Location and id, own-only listing, 204 with an empty body (vulnerable=%s)', async (v) => {
    const fx = side(v);
    const [owner, other] = await Promise.all([account(fx), account(fx)]);
    const created = await call(fx, 'POST', '/invoices/', { token: owner.token, json: { customer: 'Stark Industries', amount: 99.9 } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ customer: 'Stark Industries', amount: 99.9, paid: false, description: null, owner_id: owner.id });
    expect(created.headers.get('location')).toBe(`${fx.url}/invoices/${created.json.id}`);
    const viaLocation = await fetch(created.headers.get('location')!, { headers: { authorization: `Bearer ${owner.token}` } });
    expect((await viaLocation.json()).id).toBe(created.json.id);
    const list = await call(fx, 'GET', '/invoices/', { token: other.token });
    expect([list.status, list.json]).toEqual([200, []]);
    const deleted = await call(fx, 'DELETE', `/invoices/${created.json.id}`, { token: owner.token });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect(fx.invoices().some((i) => i.id === created.json.id)).toBe(false);
  });

  it.each([true, false])('public-by-design operations answer without credentials; a garbage signature is refused (vulnerable=%s)', async (v) => {
    const fx = side(v);
    expect((await call(fx, 'GET', '/health')).json).toEqual({ status: 'ok' });
    const stats = await call(fx, 'GET', '/public/stats');
    expect(stats.status).toBe(200);
    expect(stats.json.users).toBe(fx.users().length);
    const me = await account(fx);
    const [h, p] = me.token.split('.');
    const garbage = await call(fx, 'GET', '/users/me', { token: `${h}.${p}.${Buffer.from('not-a-signature').toString('base64url')}` });
    expect([garbage.status, garbage.json]).toEqual([401, { detail: 'Could not validate credentials' }]);
  });

  it('loginTokens returns two working tokens of two fresh viewers', async () => {
    const { primary, secondary } = await loginTokens(vuln);
    const [a, b] = await Promise.all([call(vuln, 'GET', '/users/me', { token: primary }), call(vuln, 'GET', '/users/me', { token: secondary })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.json.id).not.toBe(b.json.id);
    expect([a.json.role, b.json.role]).toEqual(['viewer', 'viewer']);
    const again = await loginTokens(vuln);
    expect(again.primary).not.toBe(primary);
  });
});

describe.each([
  { name: 'vulnerable', v: true },
  { name: 'fixed', v: false },
])('flaws on the $name instance', ({ v }) => {
  const fx = () => side(v);

  it('jwt: weak six-digit HMAC secret lets anyone forge a token (sub "admin")', async () => {
    const forged = await call(fx(), 'GET', '/users/me', { token: hs256({ sub: SEEDED_USERS.admin.username, exp: inOneHour() }, '705412') });
    if (v) {
      expect(fx().jwtSecret).toMatch(/^\d{6}$/);
      expect([forged.status, forged.json.role]).toEqual([200, 'admin']);
    } else {
      expect(fx().jwtSecret.length).toBeGreaterThanOrEqual(32);
      expect(forged.status).toBe(401);
    }
  });

  it('jwt: an expired but correctly signed token', async () => {
    const me = await account(fx());
    const valid = await call(fx(), 'GET', '/users/me', { token: hs256({ sub: me.username, exp: inOneHour() }, fx().jwtSecret) });
    expect(valid.status).toBe(200);
    const expired = await call(fx(), 'GET', '/users/me', { token: hs256({ sub: me.username, exp: Math.floor(Date.now() / 1000) - 3600 }, fx().jwtSecret) });
    expect(expired.status).toBe(v ? 200 : 401);
  });

  it('jwt: alg "none" in any case', async () => {
    const me = await account(fx());
    for (const alg of ['none', 'None', 'NONE']) {
      const res = await call(fx(), 'GET', '/users/me', { token: unsigned({ sub: me.username, exp: inOneHour() }, alg) });
      expect(res.status, alg).toBe(v ? 200 : 401);
    }
  });

  it('mass assignment: registration with role "admin"', async () => {
    const me = await account(fx(), { role: 'admin' });
    const profile = await call(fx(), 'GET', '/users/me', { token: me.token });
    expect(profile.json.role).toBe(v ? 'admin' : 'viewer');
    expect(
      fx()
        .users()
        .find((u) => u.id === me.id)?.role,
    ).toBe(v ? 'admin' : 'viewer');
    const admin = await call(fx(), 'GET', '/admin/users', { token: me.token });
    expect(admin.status).toBe(v ? 200 : 403);
  });

  it('mass assignment: PATCH of the own account with role "admin" (204 both ways, read back)', async () => {
    const me = await account(fx());
    const patched = await call(fx(), 'PATCH', `/users/${me.id}`, { token: me.token, json: { full_name: 'Renamed', role: 'admin' } });
    expect([patched.status, patched.text]).toEqual([204, '']);
    const profile = await call(fx(), 'GET', '/users/me', { token: me.token });
    expect(profile.json).toMatchObject({ full_name: 'Renamed', role: v ? 'admin' : 'viewer' });
  });

  it("bola write: PATCH of another user's account, seen when the owner re-reads and logs in", async () => {
    const [owner, attacker] = await Promise.all([account(fx()), account(fx())]);
    const res = await call(fx(), 'PATCH', `/users/${owner.id}`, { token: attacker.token, json: { email: 'attacker@evil.example', password: 'taken-over-42' } });
    expect(res.status).toBe(v ? 204 : 403);
    const profile = await call(fx(), 'GET', '/users/me', { token: owner.token });
    expect(profile.json.email).toBe(v ? 'attacker@evil.example' : null);
    const login = await call(fx(), 'POST', '/token', { form: { username: owner.username, password: 'taken-over-42' } });
    expect(login.status).toBe(v ? 200 : 401);
  });

  it("bola read, write and delete of another user's invoice", async () => {
    const [owner, attacker] = await Promise.all([account(fx()), account(fx())]);
    const id = await createInvoice(fx(), owner.token);
    const read = await call(fx(), 'GET', `/invoices/${id}`, { token: attacker.token });
    expect(read.status).toBe(v ? 200 : 404);
    if (v) expect(read.json).toMatchObject({ id, owner_id: owner.id, customer: 'Umbrella Ltd' });
    else expect(read.json).toEqual({ detail: 'Invoice not found' });

    const write = await call(fx(), 'PUT', `/invoices/${id}`, { token: attacker.token, json: { customer: 'Attacker LLC', amount: 1, paid: true } });
    expect(write.status).toBe(v ? 200 : 404);
    const reread = await call(fx(), 'GET', `/invoices/${id}`, { token: owner.token });
    expect(reread.json).toMatchObject(
      v ? { customer: 'Attacker LLC', amount: 1, paid: true, owner_id: owner.id } : { customer: 'Umbrella Ltd', amount: 420.5, paid: false },
    );

    const del = await call(fx(), 'DELETE', `/invoices/${id}`, { token: attacker.token });
    expect(del.status).toBe(v ? 204 : 404);
    expect(
      fx()
        .invoices()
        .some((i) => i.id === id),
    ).toBe(!v);
  });

  it('bfla: a viewer lists all users and deletes another account', async () => {
    const [victim, viewer] = await Promise.all([account(fx()), account(fx())]);
    const list = await call(fx(), 'GET', '/admin/users?limit=1000', { token: viewer.token });
    expect(list.status).toBe(v ? 200 : 403);
    if (v) expect(list.json.map((u: { username: string }) => u.username)).toContain(SEEDED_USERS.admin.username);
    const del = await call(fx(), 'DELETE', `/admin/users/${victim.id}`, { token: viewer.token });
    expect(del.status).toBe(v ? 204 : 403);
    expect(
      fx()
        .users()
        .some((u) => u.id === victim.id),
    ).toBe(!v);
  });

  it('the admin still administers (the fixed twin is not merely broken)', async () => {
    const admin = await call(fx(), 'POST', '/token', { form: { username: SEEDED_USERS.admin.username, password: SEEDED_USERS.admin.password } });
    const token = admin.json.access_token as string;
    const target = await account(fx());
    expect((await call(fx(), 'GET', '/admin/users', { token })).status).toBe(200);
    expect((await call(fx(), 'PATCH', `/users/${target.id}`, { token, json: { role: 'editor' } })).status).toBe(204);
    expect((await call(fx(), 'GET', '/users/me', { token: target.token })).json.role).toBe('editor');
    expect((await call(fx(), 'DELETE', `/admin/users/${target.id}`, { token })).status).toBe(204);
  });

  // Last: it wipes the instance.
  it('bfla: a viewer resets the database; only the admin is left', async () => {
    const viewer = await account(fx());
    const before = fx().users().length;
    const res = await call(fx(), 'POST', '/admin/reset-database', { token: viewer.token });
    expect(res.status).toBe(v ? 200 : 403);
    expect(fx().resetCount()).toBe(v ? 1 : 0);
    await call(fx(), 'GET', '/health');
    const last = fx().requestLog().at(-1);
    expect(last).toMatchObject({ method: 'GET', path: '/health', status: 200, sentCredentials: false, afterReset: v });
    if (v) {
      expect(
        fx()
          .users()
          .map((u) => [u.id, u.username, u.role]),
      ).toEqual([[1, SEEDED_USERS.admin.username, 'admin']]);
      expect(fx().invoices()).toEqual([]);
      expect((await call(fx(), 'GET', '/users/me', { token: viewer.token })).status).toBe(401);
    } else {
      expect(fx().users().length).toBe(before);
    }
  });
});

describe('the OpenAPI document', () => {
  const spec = fastapiSpec('http://127.0.0.1:9') as any;
  const operations = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
  const PUBLIC = ['POST /users/', 'GET /health', 'GET /public/stats'];

  it('is a valid OpenAPI 3.1.0 document', async () => {
    expect(spec.openapi).toBe('3.1.0');
    const result = await new Validator().validate(spec);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has the shape FastAPI generates', () => {
    const schemas = spec.components.schemas;
    expect(Object.keys(schemas)).toEqual([...Object.keys(schemas)].sort());
    expect(schemas.HTTPValidationError.properties.detail.items).toEqual({ $ref: '#/components/schemas/ValidationError' });
    expect(schemas.Role).toEqual({ type: 'string', enum: ['viewer', 'editor', 'admin'], title: 'Role' });
    // Pydantic titles every property except a bare $ref (an enum field).
    for (const [name, s] of Object.entries(schemas as Record<string, any>)) {
      for (const [prop, p] of Object.entries(s.properties ?? {}) as [string, { title?: string; $ref?: string }][])
        expect(p.title ?? p.$ref, `${name}.${prop}`).toBeTruthy();
    }
    expect(schemas.UserCreate.properties.email).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }], title: 'Email', default: null });
    expect(schemas.UserCreate.properties).not.toHaveProperty('role');
    expect(schemas.User.properties.role).toEqual({ $ref: '#/components/schemas/Role' });
    expect(spec.components.securitySchemes.OAuth2PasswordBearer).toEqual({ type: 'oauth2', flows: { password: { scopes: {}, tokenUrl: 'token' } } });
    expect(spec.paths['/token'].post.requestBody.content).toHaveProperty('application/x-www-form-urlencoded');
    const readInvoice = spec.paths['/invoices/{invoice_id}'].get;
    expect(readInvoice.operationId).toBe('read_invoice_invoices__invoice_id__get');
    expect(readInvoice.parameters).toEqual([{ name: 'invoice_id', in: 'path', required: true, schema: { type: 'integer', title: 'Invoice Id' } }]);
    expect(spec.paths['/invoices/'].get.responses['200'].content['application/json'].schema.title).toBe('Response Read Invoices Invoices  Get');
    expect(spec.paths['/invoices/{invoice_id}'].delete.responses['204']).toEqual({ description: 'Successful Response' });
  });

  it('declares security per operation: OAuth2 where a token is needed, [] where public by design', () => {
    for (const { key, op } of operations) {
      if (PUBLIC.includes(key)) expect(op.security, key).toEqual([]);
      else if (key === 'POST /token') expect(op.security, key).toBeUndefined();
      else expect(op.security, key).toEqual([{ OAuth2PasswordBearer: [] }]);
    }
  });

  it('links the created invoice to its read operation', () => {
    const link = spec.paths['/invoices/'].post.responses['201'].links.GetInvoiceById;
    expect(link).toMatchObject({ operationId: 'read_invoice_invoices__invoice_id__get', parameters: { invoice_id: '$response.body#/id' } });
    expect(operations.some((o) => o.op.operationId === link.operationId)).toBe(true);
  });

  it('matches the served /openapi.json and every documented operation is routed', async () => {
    const served = await call(fixed, 'GET', '/openapi.json');
    expect(served.json).toEqual(fastapiSpec(fixed.url));
    for (const { key, path, method } of operations) {
      const res = await call(fixed, method.toUpperCase(), path.replace(/\{\w+\}/g, '1'));
      const unrouted = res.status === 405 || res.status === 307 || (res.status === 404 && res.json?.detail === 'Not Found');
      expect(unrouted, `${key} answered ${res.status} ${res.text}`).toBe(false);
    }
  });

  it('ground truth names operations of the spec and known checks', () => {
    const keys = new Set(operations.map((o) => o.key));
    for (const flaw of FASTAPI_GROUND_TRUTH) {
      expect(keys.has(flaw.endpoint), flaw.endpoint).toBe(true);
      expect(['bola', 'bfla', 'mass-assignment', 'jwt']).toContain(flaw.check);
    }
    expect(new Set(FASTAPI_GROUND_TRUTH.map((f) => f.id)).size).toBe(FASTAPI_GROUND_TRUTH.length);
  });
});
