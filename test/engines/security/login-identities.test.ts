/**
 * Identities that log in, through whole scans of targets in three styles the older fixtures do not
 * have: an Express cookie session with CSRF whose sessions end mid-scan, Django REST Framework
 * `Authorization: Token` logins (a token bound to a mutable username, a login that answers 200
 * `{"status":"fail"}`), and a Laravel Passport OAuth2 password grant whose tokens expire every second.
 * The verdicts are asserted, not only the detections: which identity reached what, which tasks are
 * not tested and why, and that nothing passed where no identity got in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { EngineOutcome, TargetAuth } from '../../../src/domain/scan.js';
import { expressSpec, startExpressFixture, type ExpressFixture } from '../../fixtures/express-session/server.js';
import { drfSpec, startDrfFixture, type DrfFixture } from '../../fixtures/drf-tokens/index.js';
import { PASSWORD_CLIENT, passportSpec, startPassportFixture, type PassportFixture } from '../../fixtures/laravel-passport/server.js';
import { makeCtx } from './helpers.js';

const TUNING = {
  timeDelayMs: 300,
  rateLimitBurst: 10,
  oversizeBodyBytes: 256 * 1024,
  redosLengths: [18, 26] as [number, number],
  redosThresholdMs: 400,
  jwtSecretSearchMs: 1000,
};

function scan(url: string, spec: unknown, auth: TargetAuth & { secondary?: TargetAuth }): Promise<EngineOutcome> {
  return createSecurityEngine({ tuning: TUNING }).run(makeCtx({ url, spec_text: JSON.stringify(spec), auth, options: { timeout: 4 } as never }));
}

const identity = (o: EngineOutcome, who: 'primary' | 'secondary') => o.security!.coverage.identities!.find((i) => i.identity === who)!;
const operation = (o: EngineOutcome, endpoint: string) => o.security!.coverage.operations.find((x) => x.endpoint === endpoint)!;

/** Reasons the coverage gives for checks not tested on an operation. */
function notTestedReasons(o: EngineOutcome, endpoint: string): string[] {
  return o.security!.coverage.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes(endpoint)).map((n) => `${c.check}: ${n.reason}`));
}

/**
 * The verdict invariant: a pass only on an operation that answered 2xx to someone. `logins`: the
 * login operations, whose 401 to the scan's wrong credentials is their code answering (the verdict
 * rule); the identities' own logins are not counted in the operation's coverage.
 */
function passedUnreached(o: EngineOutcome, logins: string[] = []): string[] {
  const ops = o.security!.coverage.operations;
  const reached = new Set([
    ...logins,
    ...ops.filter((x) => x.reached_2xx.primary || x.reached_2xx.secondary || x.reached_2xx.anonymous).map((x) => x.endpoint),
  ]);
  return o.tasks
    .filter((t) => t.status === 'passed' && t.endpoint && !reached.has(t.endpoint) && ops.some((x) => x.endpoint === t.endpoint))
    .map((t) => `${t.check} ${t.endpoint}: ${t.name}`);
}

/** The Express target's authentication operations: their 401 is their code answering (login and logout). */
const AUTH_OPERATIONS = ['POST /session', 'DELETE /session'];

describe('Express cookie session with CSRF: sessions that end mid-scan are logged in again', () => {
  let fx: ExpressFixture;
  let outcome: EngineOutcome;
  const login = {
    url: '/api/session',
    username_field: 'email',
    token_cookie: 'connect.sid',
    csrf_url: '/api/csrf-token',
    csrf_cookie: 'XSRF-TOKEN',
    csrf_header: 'X-XSRF-TOKEN',
  };

  beforeAll(async () => {
    // A session serves 40 requests, and the scan's own logout ends one too.
    fx = await startExpressFixture({ vulnerable: true, sessionRequests: 40 });
    outcome = await scan(fx.url, expressSpec(), {
      type: 'login',
      username: 'alice@example.com',
      password: 'alice-secret-1',
      login,
      secondary: { type: 'login', username: 'bob@example.com', password: 'bob-secret-2', login },
    });
  }, 300_000);
  afterAll(async () => fx?.close());

  it('logs both identities in, verifies them, and logs in again each time the target ended a session: never lost', () => {
    expect(fx.stats.sessionsEnded).toBeGreaterThan(0);
    for (const [who, email] of [
      ['primary', 'alice@example.com'],
      ['secondary', 'bob@example.com'],
    ] as const) {
      const id = identity(outcome, who);
      expect(id).toMatchObject({ verified: true, verified_on: 'GET /me' });
      expect(id.lost_at).toBeUndefined();
      expect(id.logins).toBe(fx.stats.logins[email]);
    }
    expect(identity(outcome, 'primary').logins).toBeGreaterThan(1);
    expect(fx.stats.failedLogins['alice-secret-1']).toBeUndefined();
    expect(outcome.security!.warnings.filter((w) => /identity/.test(w))).toEqual([]);
  });

  it('writes reach the code with the session and its CSRF token (2xx for both identities), so their checks are tested', () => {
    expect(operation(outcome, 'POST /todos').reached_2xx).toMatchObject({ primary: true, secondary: true });
    expect(operation(outcome, 'PATCH /todos/{id}').reached_2xx.primary).toBe(true);
    expect(notTestedReasons(outcome, 'POST /todos').filter((r) => /never authorised|could not log in|stopped being accepted/.test(r))).toEqual([]);
    expect(passedUnreached(outcome, AUTH_OPERATIONS)).toEqual([]);
  });

  it("finds the BOLA read with the second identity's own session; the update, refused to it, passes", () => {
    expect(outcome.tasks.find((t) => t.check === 'bola' && t.endpoint === 'GET /todos/{id}')?.status).toBe('failed');
    expect(outcome.tasks.find((t) => t.check === 'bola' && t.endpoint === 'PATCH /todos/{id}')?.status).toBe('passed');
  });

  it('deletes everything it created, logging in again where a session had ended', () => {
    const cov = outcome.security!.coverage;
    expect(cov.resources_created).toBeGreaterThan(0);
    expect(cov.resources_deleted).toBe(cov.resources_created);
    expect(cov.resources_left).toBeUndefined();
    expect([...fx.todos.keys()].sort()).toEqual([1, 2]);
  });
});

describe('Express: a first identity whose login is refused', () => {
  let fx: ExpressFixture;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    fx = await startExpressFixture({ vulnerable: false });
    outcome = await scan(fx.url, expressSpec(), {
      type: 'login',
      username: 'alice@example.com',
      password: 'not-her-password',
      login: { url: '/api/session', username_field: 'email', token_cookie: 'connect.sid', csrf_url: '/api/csrf-token', csrf_cookie: 'XSRF-TOKEN' },
    });
  }, 300_000);
  afterAll(async () => fx?.close());

  it('says at the top why it could not log in, tries once, and sends nothing as it', () => {
    expect(outcome.security!.warnings[0]).toMatch(
      /^The first identity \(auth\) could not log in: the login \(POST http:\/\/127\.0\.0\.1:\d+\/api\/session\) answered 401: \{"message":"Invalid email or password"\}\. It was not used/,
    );
    expect(identity(outcome, 'primary')).toMatchObject({
      verified: false,
      lost_reason: expect.stringMatching(/^could not log in: .* answered 401/),
      logins: 1,
    });
    expect(fx.stats.failedLogins['not-her-password']).toBe(1);
    expect(outcome.security!.coverage.operations.every((o) => !o.reached_2xx.primary)).toBe(true);
  });

  it('what needed it is not tested, with that reason, and nothing passed on an operation only it could reach', () => {
    for (const endpoint of ['GET /me', 'GET /todos', 'POST /todos', 'GET /todos/{id}']) {
      expect(
        outcome.tasks.filter((t) => t.status === 'passed' && t.endpoint === endpoint).map((t) => `${t.check}: ${t.name}`),
        endpoint,
      ).toEqual([]);
    }
    expect(
      notTestedReasons(outcome, 'GET /todos').some((r) => /^[a-z-]+: the first identity could not log in: the login \(POST .*\) answered 401/.test(r)),
      notTestedReasons(outcome, 'GET /todos').join('\n'),
    ).toBe(true);
    // As a code too: what was withheld for want of the identity is identity_lost, whatever the text says.
    const codes = outcome.security!.coverage.checks.flatMap((c) =>
      c.not_run.filter((n) => n.endpoints.includes('GET /todos') && /the first identity could not log in/.test(n.reason)).map((n) => n.reason_code),
    );
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set(['identity_lost']));
    expect(passedUnreached(outcome, AUTH_OPERATIONS)).toEqual([]);
  });

  it("writes without credentials carry a visitor's session and CSRF token, so they reach the code (401), not the CSRF check (403)", () => {
    expect(operation(outcome, 'POST /todos').statuses).toContain(401);
    expect(operation(outcome, 'DELETE /session').statuses).not.toContain(403);
  });
});

describe("Django REST Framework: `Authorization: Token` logins through the spec's login operation", () => {
  let fx: DrfFixture;
  let outcome: EngineOutcome;
  const login = { operation: 'auth_login_create', token_pointer: '/token', send_scheme: 'Token' };

  beforeAll(async () => {
    fx = await startDrfFixture({ vulnerable: false });
    outcome = await scan(fx.url, drfSpec(), {
      type: 'login',
      username: 'alice',
      password: 'alice-pw-1',
      login,
      secondary: { type: 'login', username: 'bob', password: 'bob-pw-2', login },
    });
  }, 600_000);
  afterAll(async () => fx?.close());

  it('logs in once each: the token, bound to the username the scan never changed, stayed valid all along', async () => {
    for (const who of ['primary', 'secondary'] as const) {
      expect(identity(outcome, who)).toMatchObject({ verified: true, verified_on: 'GET /api/users/me/', logins: 1 });
      expect(identity(outcome, who).lost_at).toBeUndefined();
    }
    // The user's account as it was: the same login still works and names alice.
    const res = await fetch(`${fx.url}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'alice-pw-1' }),
    });
    const { token } = (await res.json()) as { token: string };
    const me = await fetch(`${fx.url}/api/users/me/`, { headers: { authorization: `Token ${token}` } });
    expect(((await me.json()) as { username: string }).username).toBe('alice');
  });

  it('the JWT the login gave is read in its `Token` scheme: the JWT checks run, forged tokens travel as `Token`', () => {
    const jwt = outcome.security!.coverage.checks.find((c) => c.check === 'jwt')!;
    expect(jwt.ran).toBeGreaterThan(0);
    expect(jwt.not_run.map((n) => n.reason)).not.toContain('no JWT seen');
    expect(outcome.tasks.filter((t) => t.check === 'jwt' && t.status === 'failed')).toEqual([]);
    // The wrong reason of Bearer-only JWT handling: no operation found where the JWT is required.
    expect(jwt.not_run.map((n) => n.reason).filter((r) => /no operation where the JWT is required/.test(r))).toEqual([]);
    expect(passedUnreached(outcome)).toEqual([]);
  });
});

describe('Django REST Framework: a login that answers 200 {"status":"fail"} is not a login', () => {
  let fx: DrfFixture;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    fx = await startDrfFixture({ vulnerable: false });
    outcome = await scan(fx.url, drfSpec(), {
      type: 'login',
      username: 'alice',
      password: 'wrong',
      login: { url: '/api/auth/login/', token_pointer: '/token', send_scheme: 'Token' },
    });
  }, 600_000);
  afterAll(async () => fx?.close());

  it('warns that the 200 carried no token, and uses the identity nowhere', () => {
    expect(outcome.security!.warnings[0]).toMatch(
      /^The first identity \(auth\) could not log in: the login \(POST .*\/api\/auth\/login\/\) answered 200 without a token at \/token \(the answer: \{"status": ?"fail"\}\): a login counts only when it yields a credential/,
    );
    expect(outcome.security!.coverage.operations.every((o) => !o.reached_2xx.primary)).toBe(true);
  });

  it('operations that need authentication carry no pass; their checks are not tested, saying the identity could not log in', () => {
    for (const endpoint of ['GET /api/users/me/', 'PATCH /api/users/me/', 'POST /api/newsletter/', 'GET /api/search/']) {
      expect(operation(outcome, endpoint).reached_2xx).toMatchObject({ primary: false, anonymous: false });
      expect(
        outcome.tasks.filter((t) => t.status === 'passed' && t.endpoint === endpoint).map((t) => `${t.check}: ${t.name}`),
        endpoint,
      ).toEqual([]);
    }
    const reasons = notTestedReasons(outcome, 'GET /api/search/');
    expect(
      reasons.some((r) => /the first identity could not log in: .*without a token at \/token/.test(r)),
      reasons.join('\n'),
    ).toBe(true);
    expect(passedUnreached(outcome)).toEqual([]);
  });
});

describe('Laravel Passport: OAuth2 password grant with refresh tokens', () => {
  let fx: PassportFixture;
  let outcome: EngineOutcome;
  const grant = (username: string, password: string): TargetAuth => ({
    type: 'oauth2',
    oauth2_grant_type: 'password',
    oauth2_token_url: '',
    username,
    password,
    oauth2_client_id: PASSWORD_CLIENT.id,
    oauth2_client_secret: PASSWORD_CLIENT.secret,
  });

  beforeAll(async () => {
    // Tokens live 1 s; every answer takes 30 ms: the scan outlives many tokens.
    fx = await startPassportFixture({ vulnerable: false, tokenSeconds: 1, latencyMs: 30 });
    const at = (a: TargetAuth) => ({ ...a, oauth2_token_url: fx.tokenUrl });
    outcome = await scan(fx.url, passportSpec(), {
      ...at(grant('taylor@example.com', 'taylor-password-1')),
      secondary: at(grant('abigail@example.com', 'abigail-password-2')),
    });
  }, 300_000);
  afterAll(async () => fx?.close());

  it('asks with grant_type=password once per identity, then refreshes: never another grant type, never a lost identity', () => {
    expect(Object.keys(fx.stats.grants).sort()).toEqual(['password', 'refresh_token']);
    expect(fx.stats.issued).toEqual({ 'taylor@example.com': 1, 'abigail@example.com': 1 });
    expect(fx.stats.notForm).toBe(0);
    const refreshes = identity(outcome, 'primary').refreshes! + identity(outcome, 'secondary').refreshes!;
    expect(refreshes).toBeGreaterThan(0);
    expect(refreshes).toBe(fx.stats.grants.refresh_token);
    for (const who of ['primary', 'secondary'] as const) {
      expect(identity(outcome, who)).toMatchObject({ verified: true, verified_on: 'GET /api/user', logins: 1 });
      expect(identity(outcome, who).lost_at).toBeUndefined();
    }
    expect(outcome.security!.warnings.filter((w) => /identity/.test(w))).toEqual([]);
  });

  it('reaches the authenticated operations with both identities throughout', () => {
    for (const endpoint of ['GET /api/user', 'GET /api/projects', 'POST /api/projects'])
      expect(operation(outcome, endpoint).reached_2xx).toMatchObject({ primary: true, secondary: true });
    expect(passedUnreached(outcome)).toEqual([]);
  });
});

describe('Laravel Passport: wrong credentials', () => {
  let fx: PassportFixture;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    fx = await startPassportFixture({ vulnerable: false });
    outcome = await scan(fx.url, passportSpec(), {
      type: 'oauth2',
      oauth2_grant_type: 'password',
      oauth2_token_url: fx.tokenUrl,
      username: 'taylor@example.com',
      password: 'nope',
      oauth2_client_id: PASSWORD_CLIENT.id,
      oauth2_client_secret: PASSWORD_CLIENT.secret,
    });
  }, 300_000);
  afterAll(async () => fx?.close());

  it("asks once, warns with the endpoint's own error, and every authenticated operation is not tested for that reason", () => {
    expect(fx.stats.grants).toEqual({ password: 1 });
    expect(outcome.security!.warnings[0]).toMatch(
      /^The first identity \(auth\) could not log in: the OAuth2 token endpoint \(POST .*\/oauth\/token, grant_type=password\) answered 400 without an access_token \(invalid_grant: The user credentials were incorrect\.\)/,
    );
    for (const endpoint of ['GET /api/user', 'GET /api/projects', 'POST /api/projects']) {
      expect(
        outcome.tasks.filter((t) => t.status === 'passed' && t.endpoint === endpoint).map((t) => `${t.check}: ${t.name}`),
        endpoint,
      ).toEqual([]);
      expect(
        notTestedReasons(outcome, endpoint).some((r) => /the first identity could not log in: the OAuth2 token endpoint/.test(r)),
        endpoint,
      ).toBe(true);
    }
    expect(passedUnreached(outcome)).toEqual([]);
  });
});
