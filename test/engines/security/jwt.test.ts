/**
 * The JWT check through the real engine, one tiny target per flaw (node:http, JWTs handled by
 * hand the way careless and careful libraries do), and the secret search on its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, createSign, generateKeyPairSync, randomBytes, verify as verifySignature, type KeyObject } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { Task } from '../../../src/domain/scan.js';
import type { SecurityTuning } from '../../../src/engines/security/types.js';
import { describeSearch, searchHmacSecret } from '../../../src/engines/security/checks/jwt/secret-search.js';
import { dictionaryLocations, loadDictionary } from '../../../src/engines/security/checks/jwt/dictionary.js';
import { parseJwt } from '../../../src/engines/security/checks/jwt/token.js';
import { makeCtx } from './helpers.js';

type Claims = Record<string, unknown>;
const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

function hs256(claims: Claims, secret: string | Buffer): string {
  const input = `${b64u({ alg: 'HS256', typ: 'JWT' })}.${b64u(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

function rs256(claims: Claims, key: KeyObject): string {
  const input = `${b64u({ alg: 'RS256', typ: 'JWT', kid: 'k1' })}.${b64u(claims)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key, 'base64url')}`;
}

interface Decoded {
  header: Claims;
  payload: Claims;
  input: string;
  signature: string;
}

function decode(token: string): Decoded | undefined {
  const parts = token.split('.');
  if (parts.length < 2 || parts.length > 3) return undefined;
  try {
    return {
      header: JSON.parse(Buffer.from(parts[0], 'base64url').toString()),
      payload: JSON.parse(Buffer.from(parts[1], 'base64url').toString()),
      input: `${parts[0]}.${parts[1]}`,
      signature: parts[2] ?? '',
    };
  } catch {
    return undefined;
  }
}

const hmacOk = (d: Decoded, secret: string | Buffer) =>
  d.header.alg === 'HS256' && d.signature.length > 0 && createHmac('sha256', secret).update(d.input).digest('base64url') === d.signature;
const timeOk = (p: Claims, { exp = true, nbf = true } = {}) =>
  (!exp || (typeof p.exp === 'number' && p.exp > now())) && (!nbf || typeof p.nbf !== 'number' || p.nbf <= now());

/** How a target's JWT library verifies a bearer token: the claims, or undefined when refused. */
type Verifier = (token: string) => Claims | undefined;

const USERS: Record<string, { email: string; plan: string }> = {
  alice: { email: 'alice@example.test', plan: 'basic' },
  bob: { email: 'bob@example.test', plan: 'premium' },
};

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/**
 * GET /me (profile), GET /admin/users (role admin only), GET /health and /users/public (public),
 * and a JWKS when given. `anonymous`: the claims a request without a token gets (default: 401).
 */
async function startTarget(verify: Verifier, jwks?: object, anonymous?: Claims): Promise<string> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const claims = token ? verify(token) : anonymous;
    switch (req.url) {
      case '/health':
        return send(200, { ok: true });
      case '/users/public':
        return send(
          200,
          Object.keys(USERS).map((username) => ({ username })),
        );
      case '/.well-known/jwks.json':
        return jwks ? send(200, jwks) : send(404, { error: 'not found' });
      case '/me': {
        if (!claims) return send(401, { error: 'unauthorized' });
        const user = USERS[String(claims.sub)];
        return user ? send(200, { username: claims.sub, ...user }) : send(404, { error: 'no such user' });
      }
      case '/admin/users':
        if (!claims) return send(401, { error: 'unauthorized' });
        if (claims.role !== 'admin') return send(403, { error: 'admins only' });
        return send(200, { users: Object.keys(USERS) });
      default:
        return send(404, { error: 'not found' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const SPEC = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'jwt target', version: '1' },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  security: [{ bearer: [] }],
  paths: {
    '/health': { get: { security: [], responses: { '200': { description: 'ok' } } } },
    '/users/public': { get: { security: [], responses: { '200': { description: 'user names' } } } },
    '/me': { get: { responses: { '200': { description: 'profile' }, '401': { description: 'no' } } } },
    '/admin/users': { get: { tags: ['admin'], responses: { '200': { description: 'users' }, '403': { description: 'not admin' } } } },
  },
});

async function scan(url: string, tokens: { alice: string; bob?: string }, tuning: Partial<SecurityTuning> = {}, spec = SPEC) {
  const auth = { type: 'bearer' as const, token: tokens.alice, ...(tokens.bob ? { secondary: { type: 'bearer' as const, token: tokens.bob } } : {}) };
  const out = await createSecurityEngine({ tuning: { onlyChecks: ['jwt'], jwtSecretSearchMs: 60_000, ...tuning } }).run(
    makeCtx({ url, spec_text: spec, auth }),
  );
  const tasks = out.tasks.filter((t) => t.check === 'jwt');
  return { out, tasks, failed: tasks.filter((t) => t.status === 'failed') };
}

const task = (tasks: Task[], name: RegExp) => tasks.find((t) => name.test(t.name));
const SIGNATURE = /random signature/;
const NONE = /alg "none"/;
const STRIPPED = /stripped signature/;
const CONFUSION = /algorithm confusion/;
const SECRET = /weak HMAC secret/;
const EXPIRED = /^Expired JWT/;
const NBF = /Not-yet-valid/;
/** A whole JWT in the clear (evidence must show forged and real tokens masked). */
const CLEAR_JWT = /eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}/;

function claimsFor(sub: string, extra: Claims = {}): Claims {
  return { sub, role: 'user', iat: now(), exp: now() + 86_400, ...extra };
}

function noClearTokens(tasks: Task[]) {
  for (const t of tasks) expect(t.evidence ?? '', t.name).not.toMatch(CLEAR_JWT);
}

describe('jwt check against targets', () => {
  it('a target that verifies no signature: one critical finding, and the forged access shown (another user, admin)', async () => {
    const strong = randomBytes(32);
    const url = await startTarget((t) => decode(t)?.payload);
    const { tasks, failed } = await scan(url, { alice: hs256(claimsFor('alice'), strong), bob: hs256(claimsFor('bob'), strong) }, { jwtSecretSearchMs: 1500 });
    const sig = task(tasks, SIGNATURE)!;
    expect(sig.status).toBe('failed');
    expect(sig.severity).toBe('critical');
    expect(sig.endpoint).toBe('GET /me');
    // The other forgeries add nothing once any signature is accepted.
    expect(task(tasks, NONE)).toBeUndefined();
    expect(task(tasks, STRIPPED)).toBeUndefined();
    expect(task(tasks, EXPIRED)).toBeUndefined();
    // The access a forged token gives: bob's profile, and the admin operation alice cannot reach.
    expect(sig.evidence).toMatch(/forged for bob \(sub: bob\)/);
    expect(sig.evidence).toContain('bob@example.test');
    expect(sig.evidence).toMatch(/opened GET \/admin\/users: 200, where the real token gets 403/);
    expect(sig.evidence).toMatch(/expired an hour ago \(exp\) forged the same way was accepted too/);
    // The secret search ran (and found nothing in its short budget).
    const secret = task(tasks, SECRET)!;
    expect(secret.status).toBe('passed');
    expect(secret.evidence).toMatch(/stopped at the time budget/);
    expect(failed.map((t) => t.name)).toEqual([sig.name]);
    noClearTokens(tasks);
  }, 120_000);

  it('alg "none" in another spelling (a blacklist of "none" only)', async () => {
    const secret = randomBytes(32);
    const url = await startTarget((t) => {
      const d = decode(t);
      if (!d || !timeOk(d.payload)) return undefined;
      const alg = String(d.header.alg);
      if (alg !== 'none' && alg.toLowerCase() === 'none') return d.payload;
      return hmacOk(d, secret) ? d.payload : undefined;
    });
    const { tasks, failed } = await scan(url, { alice: hs256(claimsFor('alice'), secret), bob: hs256(claimsFor('bob'), secret) }, { jwtSecretSearchMs: 1500 });
    const none = task(tasks, NONE)!;
    expect(none.status).toBe('failed');
    expect(none.severity).toBe('critical');
    expect(none.evidence).toMatch(/alg "None"/);
    expect(none.evidence).toContain('bob@example.test');
    // exp is checked even on unsigned tokens: said in the finding, not a finding of its own.
    expect(none.evidence).toMatch(/expired an hour ago \(exp\) forged the same way was refused/);
    expect(task(tasks, SIGNATURE)!.status).toBe('passed');
    expect(task(tasks, STRIPPED)!.status).toBe('passed');
    expect(failed.map((t) => t.name)).toEqual([none.name]);
    noClearTokens(tasks);
  }, 120_000);

  it('a six-digit numeric secret with a leading zero is found by the exhaustive search; forged tokens show bob and admin access; nbf unchecked', async () => {
    const secret = '054913';
    const url = await startTarget((t) => {
      const d = decode(t);
      return d && hmacOk(d, secret) && timeOk(d.payload, { nbf: false }) ? d.payload : undefined;
    });
    const { tasks } = await scan(url, { alice: hs256(claimsFor('alice'), secret), bob: hs256(claimsFor('bob'), secret) });
    const found = task(tasks, SECRET)!;
    expect(found.status).toBe('failed');
    expect(found.severity).toBe('critical');
    expect(found.cwe).toBe('CWE-1391');
    expect(found.evidence).toContain('"05****"');
    expect(found.evidence).toContain('found in 6-digit numbers');
    expect(found.evidence).not.toContain(secret);
    expect(found.evidence).toMatch(/forged for bob \(sub: bob\) signed with the found secret/);
    expect(found.evidence).toContain('bob@example.test');
    expect(found.evidence).toMatch(/opened GET \/admin\/users: 200/);
    // With the real secret only the claim differs: exp checked, nbf not.
    expect(task(tasks, EXPIRED)!.status).toBe('passed');
    const nbf = task(tasks, NBF)!;
    expect(nbf.status).toBe('failed');
    expect(nbf.cwe).toBe('CWE-613');
    for (const name of [SIGNATURE, NONE, STRIPPED]) expect(task(tasks, name)!.status).toBe('passed');
    noClearTokens(tasks);
  }, 180_000);

  it('a four-letter lowercase secret is found; without a second identity a harvested user is impersonated', async () => {
    const secret = 'vqxj';
    const url = await startTarget((t) => {
      const d = decode(t);
      return d && hmacOk(d, secret) && timeOk(d.payload) ? d.payload : undefined;
    });
    const { tasks } = await scan(url, { alice: hs256(claimsFor('alice'), secret) });
    const found = task(tasks, SECRET)!;
    expect(found.status).toBe('failed');
    expect(found.evidence).toContain('found in 4-letter lowercase words');
    expect(found.evidence).toContain('"v****"');
    expect(found.evidence).not.toContain(secret);
    expect(found.evidence).toMatch(/forged for bob \(sub: bob\)/);
    expect(found.evidence).toContain('bob@example.test');
    expect(task(tasks, EXPIRED)!.status).toBe('passed');
    expect(task(tasks, NBF)!.status).toBe('passed');
  }, 180_000);

  it('an expired token is accepted (secret from the dictionary): expired and not-yet-valid are findings of their own', async () => {
    const secret = 'your-256-bit-secret';
    const url = await startTarget((t) => {
      const d = decode(t);
      return d && hmacOk(d, secret) ? d.payload : undefined;
    });
    const { tasks } = await scan(url, { alice: hs256(claimsFor('alice'), secret), bob: hs256(claimsFor('bob'), secret) });
    const found = task(tasks, SECRET)!;
    expect(found.status).toBe('failed');
    expect(found.evidence).toContain('found in dictionary after');
    const expired = task(tasks, EXPIRED)!;
    expect(expired.status).toBe('failed');
    expect(expired.severity).toBe('high');
    expect(expired.evidence).toMatch(/expired an hour ago \(exp\), signed with the found secret "yo\*\*\*\*"/);
    expect(task(tasks, NBF)!.status).toBe('failed');
    noClearTokens(tasks);
  }, 120_000);

  it('RS256 with the JWKS exposed: HS256 signed with the public key PEM is accepted (algorithm confusion)', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }] };
    // A library handed "the key" verifies with whatever algorithm the header names.
    const url = await startTarget((t) => {
      const d = decode(t);
      if (!d || !timeOk(d.payload)) return undefined;
      if (d.header.alg === 'RS256')
        return verifySignature('sha256', Buffer.from(d.input), publicKey, Buffer.from(d.signature, 'base64url')) ? d.payload : undefined;
      return hmacOk(d, pem) ? d.payload : undefined;
    }, jwks);
    const { tasks, failed } = await scan(url, { alice: rs256(claimsFor('alice'), privateKey), bob: rs256(claimsFor('bob'), privateKey) });
    const confusion = task(tasks, CONFUSION)!;
    expect(confusion.status).toBe('failed');
    expect(confusion.severity).toBe('critical');
    expect(confusion.evidence).toContain('/.well-known/jwks.json (kid k1)');
    expect(confusion.evidence).toMatch(/SPKI PEM with its final newline/);
    expect(confusion.evidence).toContain('bob@example.test');
    // The public key signs validly, so exp and nbf are tested for real.
    expect(task(tasks, EXPIRED)!.status).toBe('passed');
    expect(task(tasks, NBF)!.status).toBe('passed');
    expect(task(tasks, SECRET)).toBeUndefined();
    expect(failed.map((t) => t.name)).toEqual([confusion.name]);
  }, 120_000);

  it('a careful HS256 target: every sub-check tested passes, no failure', async () => {
    const secret = randomBytes(32);
    const url = await startTarget((t) => {
      const d = decode(t);
      return d && hmacOk(d, secret) && timeOk(d.payload) ? d.payload : undefined;
    });
    const { tasks, failed } = await scan(url, { alice: hs256(claimsFor('alice'), secret), bob: hs256(claimsFor('bob'), secret) }, { jwtSecretSearchMs: 1500 });
    expect(failed).toEqual([]);
    expect(tasks.map((t) => t.name).sort()).toEqual([
      'JWT signed with a weak HMAC secret',
      'JWT with a random signature accepted',
      'JWT with alg "none" accepted',
      'JWT with stripped signature accepted',
    ]);
    // No forging method: exp and nbf could not be tested, so they are not "passed".
    expect(task(tasks, EXPIRED)).toBeUndefined();
  }, 120_000);

  it('a careful RS256 target with a JWKS: algorithm confusion tested and refused, no failure', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }] };
    const url = await startTarget((t) => {
      const d = decode(t);
      if (!d || d.header.alg !== 'RS256' || !timeOk(d.payload)) return undefined;
      return verifySignature('sha256', Buffer.from(d.input), publicKey, Buffer.from(d.signature, 'base64url')) ? d.payload : undefined;
    }, jwks);
    const { tasks, failed } = await scan(url, { alice: rs256(claimsFor('alice'), privateKey), bob: rs256(claimsFor('bob'), privateKey) });
    expect(failed).toEqual([]);
    const confusion = task(tasks, CONFUSION)!;
    expect(confusion.status).toBe('passed');
    expect(confusion.evidence).toMatch(/RSA k1 from .*\/\.well-known\/jwks\.json/);
  }, 120_000);

  it('no JWT: the coverage says so', async () => {
    const url = await startTarget(() => undefined);
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['jwt'] } }).run(
      makeCtx({ url, spec_text: SPEC, auth: { type: 'bearer', token: 'opaque-api-token-123' } }),
    );
    expect(out.tasks.filter((t) => t.check === 'jwt')).toEqual([]);
    const cov = out.security!.coverage.checks.find((c) => c.check === 'jwt')!;
    expect(cov.ran).toBe(0);
    expect(cov.not_run.map((n) => [n.reason_code, n.reason])).toEqual([['prerequisite_missing', 'no JWT seen']]);
  });

  it('a JWT but no operation that requires it: not tested, and the coverage says why', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // Every operation answers without credentials as it does with them.
    const url = await startTarget(() => ({ sub: 'alice' }), undefined, { sub: 'alice' });
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['jwt'] } }).run(
      makeCtx({ url, spec_text: SPEC, auth: { type: 'bearer', token: rs256(claimsFor('alice'), privateKey) } }),
    );
    expect(out.tasks.filter((t) => t.check === 'jwt')).toEqual([]);
    const cov = out.security!.coverage.checks.find((c) => c.check === 'jwt')!;
    expect(cov.not_run.map((n) => [n.reason_code, n.reason])).toEqual([
      ['prerequisite_missing', 'no operation where the JWT is required (2xx with it, 401/403 without)'],
    ]);
  });

  it('an HMAC JWT but no operation that requires it: only the offline secret search, which says what did not run', async () => {
    const url = await startTarget(() => ({ sub: 'alice' }), undefined, { sub: 'alice' });
    const { tasks } = await scan(url, { alice: hs256(claimsFor('alice'), 'changeme') });
    expect(tasks.map((t) => t.name)).toEqual(['JWT signed with a weak HMAC secret']);
    expect(tasks[0].status).toBe('failed');
    expect(tasks[0].evidence).toContain('found in dictionary');
    expect(tasks[0].evidence).toContain('no operation where the JWT is required');
    expect(tasks[0].evidence).not.toContain('changeme');
  });
});

describe('weak-secret search', () => {
  const token = (secret: string, alg = 'HS256') => {
    const digest = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg]!;
    const input = `${b64u({ alg, typ: 'JWT' })}.${b64u({ sub: 'alice' })}`;
    return parseJwt(`${input}.${createHmac(digest, secret).update(input).digest('base64url')}`)!;
  };

  it('finds dictionary secrets with HS384 and HS512 too (keys longer than a block included)', async () => {
    const long = 'k'.repeat(200);
    const dictionary = Buffer.from(`alpha\nbeta\n${long}\ngamma\n`);
    for (const [secret, alg] of [
      ['beta', 'HS384'],
      [long, 'HS512'],
      ['gamma', 'HS256'],
    ] as const) {
      const r = await searchHmacSecret(token(secret, alg), { budgetMs: 10_000, signal: new AbortController().signal, dictionary, spaces: [] });
      expect(r.secret).toBe(secret);
      expect(r.foundIn).toBe('dictionary');
    }
  });

  it('exhaustive spaces find short secrets with every HMAC size; an unfindable one exhausts them and says so', async () => {
    const spaces = [
      { name: '3-digit numbers', alphabet: '0123456789', length: 3 },
      { name: '2-letter lowercase words', alphabet: 'abcdefghijklmnopqrstuvwxyz', length: 2 },
    ];
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      const r = await searchHmacSecret(token('zq', alg), { budgetMs: 10_000, signal: new AbortController().signal, dictionary: Buffer.alloc(0), spaces });
      expect(r.secret).toBe('zq');
      expect(r.foundIn).toBe('2-letter lowercase words');
    }
    const none = await searchHmacSecret(token('not-short'), {
      budgetMs: 10_000,
      signal: new AbortController().signal,
      dictionary: Buffer.from('x\ny\n'),
      spaces,
    });
    expect(none.stopped).toBe('exhausted');
    expect(none.tried).toBe(2 + 1000 + 676);
    expect(none.total).toBe(none.tried);
    expect(describeSearch(none)).toMatch(
      /Tried 1,678 of 1,678 .* covering a dictionary of 2 common secrets, all 3-digit numbers, all 2-letter lowercase words\.$/,
    );
  });

  it('stops at its budget and says how much of the space it searched', async () => {
    const r = await searchHmacSecret(token('not-findable-anywhere'), { budgetMs: 300, signal: new AbortController().signal, dictionary: Buffer.alloc(0) });
    expect(r.stopped).toBe('budget');
    expect(r.secret).toBeUndefined();
    expect(r.tried).toBeGreaterThan(0);
    expect(r.tried).toBeLessThan(r.total);
    const text = describeSearch(r);
    expect(text).toMatch(/stopped at the time budget; not reached: .*5-letter lowercase words/);
    // The budget can run out inside a space (shown with its share) or right at the end of one.
    const partial = r.phases.find((p) => p.tried > 0 && p.tried < p.total);
    if (partial) expect(text).toContain(`${partial.name}: ${Math.floor((partial.tried / partial.total) * 100)}% searched; stopped at the time budget`);
    else expect(text).not.toContain('% searched');
  });

  it('is cancelled with the scan: rejects with the signal reason and ends its worker', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const pending = searchHmacSecret(token('not-findable-anywhere'), { budgetMs: 120_000, signal: ac.signal, dictionary: Buffer.alloc(0) });
    setTimeout(() => ac.abort(new Error('scan cancelled')), 300);
    await expect(pending).rejects.toThrow('scan cancelled');
    // Far below the budget: the worker did not run on.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('keeps the event loop free while it searches', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const r = await searchHmacSecret(token('not-findable-anywhere'), { budgetMs: 1000, signal: new AbortController().signal, dictionary: Buffer.alloc(0) });
    clearInterval(timer);
    expect(r.stopped).toBe('budget');
    // A blocked loop would tick once or not at all in that second.
    expect(ticks).toBeGreaterThan(5);
  });

  it('the shipped dictionary loads (from src here; from the source tree when running from dist)', async () => {
    const dict = await loadDictionary();
    const words = dict.toString('utf8').split('\n');
    expect(words.length).toBeGreaterThan(5000);
    for (const w of ['your-256-bit-secret', 'secret', 'changeme', 'keyboard cat', '123456']) expect(words).toContain(w);
    expect(dictionaryLocations('file:///srv/vigil/dist/engines/security/checks/jwt/dictionary.js')).toEqual([
      '/srv/vigil/dist/engines/security/checks/jwt/secrets.txt',
      '/srv/vigil/src/engines/security/checks/jwt/secrets.txt',
    ]);
  });
});
