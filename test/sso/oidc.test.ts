import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsTxtServer, type DnsTxtServer } from '../helpers/dns-txt-server.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { browse, CookieJar } from './browser-less.js';
import { proveEmailDomain } from './email-domain-proof.js';
import { startOidcIdp, type OidcIdp } from './oidc-idp.js';

/**
 * OpenID Connect sign-in against a real local provider (oidc-provider): the whole browser round trip with
 * real redirects, PKCE, state, nonce and RS256 ID tokens, then the session cookie on the API; and the attacks
 * the relying party must refuse.
 */
describe(`OpenID Connect sign-in (${storeLabel})`, () => {
  let server: TestServer;
  let idp: OidcIdp;
  let origin: string;
  let enterprise: { tenantId: string; apiKey: string };
  let other: { tenantId: string; apiKey: string };
  let dns: DnsTxtServer;
  const asKey = (key: string) => ({ 'X-API-Key': key });

  beforeAll(async () => {
    dns = await startDnsTxtServer();
    server = await startServer({ env: { VIGIL_SSO_ALLOW_HTTP: 'true', VIGIL_DNS_SERVERS: dns.address } });
    origin = new URL(server.api).origin;
    idp = await startOidcIdp([`${server.api}/sso/oidc/callback`]);
    enterprise = await server.createTenant('enterprise');
    other = await server.createTenant('enterprise');
    const configured = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: asKey(enterprise.apiKey),
      json: {
        protocol: 'oidc',
        oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret },
        group_claim: 'groups',
        role_mapping: { 'vigil-admins': 'admin', engineers: 'member' },
        default_role: 'viewer',
        email_domains: ['example.test'],
      },
    });
    expect(configured.status, configured.text).toBe(200);
    expect(configured.body).toMatchObject({
      protocol: 'oidc',
      oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret_set: true },
      default_role: 'viewer',
    });
    expect(configured.text).not.toContain(idp.clientSecret);
    expect(configured.body.service_provider.oidc_redirect_uri).toBe(`${server.api}/sso/oidc/callback`);
    await proveEmailDomain(server.api, enterprise.apiKey, dns, 'example.test');
  });
  afterAll(async () => {
    await idp?.close();
    await server?.stop();
    await dns?.close();
  });

  /** Signs in through the IdP as `user`; returns the jar and the last hop (the landing redirect, or the refusal). */
  async function signIn(user: Partial<OidcIdp['user']>, query = `tenant=${enterprise.tenantId}`) {
    idp.user = { sub: 'user-1', email: 'ana@example.test', name: 'Ana', groups: [], ...user };
    const jar = new CookieJar();
    const { hops, last } = await browse(jar, `${server.api}/sso/login?${query}`, {
      stop: (next) => next.origin === origin && next.pathname.startsWith('/app'),
    });
    return { jar, hops, last };
  }

  async function session(jar: CookieJar) {
    return call(`${server.api}/session`, { headers: { cookie: jar.header(new URL(server.api)) ?? '' } });
  }

  it('signs in with code + PKCE, provisions the member with the mapped role, and the cookie works on the API', async () => {
    const { jar, hops, last } = await signIn(
      { sub: 'eng-1', email: 'eng@example.test', name: 'Eng', groups: ['engineers'] },
      `email=eng@example.test&return_to=${encodeURIComponent('/app/scans?x=1')}`,
    );
    const authorize = new URL(hops[1]!.url);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(last.status).toBe(302);
    expect(last.location).toBe('/app/scans?x=1');
    const cookie = last.setCookie.find((c) => c.startsWith('vigil_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // plain http on loopback

    const me = await session(jar);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ tenant_id: enterprise.tenantId, role: 'member', method: 'oidc', member: { email: 'eng@example.test', name: 'Eng' } });
    expect(me.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // Reads with the cookie; writes need the CSRF token too
    const cookieHeader = { cookie: jar.header(new URL(server.api))! };
    expect((await call(`${server.api}/scans`, { headers: cookieHeader })).status).toBe(200);
    const noCsrf = await call(`${server.api}/scan`, { headers: cookieHeader, json: { url: 'http://target.test/', mode: 'functional' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toMatchObject({ error: 'CSRF_TOKEN_INVALID', status: 403 });
    const wrongCsrf = await call(`${server.api}/scan`, {
      headers: { ...cookieHeader, 'x-csrf-token': 'x'.repeat(32) },
      json: { url: 'http://target.test/', mode: 'functional' },
    });
    expect(wrongCsrf.status).toBe(403);
    const started = await call(`${server.api}/scan`, {
      headers: { ...cookieHeader, 'x-csrf-token': me.body.csrf_token },
      json: { url: 'http://target.test/', mode: 'functional' },
    });
    expect(started.status, started.text).toBe(202);
    // The scan is the tenant's: the key sees it, another tenant does not
    expect((await call(`${server.api}/scan/${started.body.scan_id}`, { headers: asKey(enterprise.apiKey) })).status).toBe(200);
    expect((await call(`${server.api}/scan/${started.body.scan_id}`, { headers: asKey(other.apiKey) })).status).toBe(404);

    // A member cannot administer: SSO, members, keys
    expect((await call(`${server.api}/members`, { headers: cookieHeader })).status).toBe(403);
    const rotate = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { ...cookieHeader, 'x-csrf-token': me.body.csrf_token } });
    expect(rotate.status).toBe(403);
    expect(rotate.body).toMatchObject({ error: 'FORBIDDEN', status: 403 });

    // Audit: provisioned, signed in, scan started by the member, from the loopback address
    const audit = await call(`${server.api}/audit-log?actor=eng@example.test`, { headers: asKey(enterprise.apiKey) });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['scan.started', 'session.signed_in', 'member.provisioned']);
    expect(audit.body.entries[0]).toMatchObject({ actor_type: 'member', target: started.body.scan_id, address: '127.0.0.1' });

    // Sign-out ends the session on the server
    const out = await call(`${server.api}/session`, { method: 'DELETE', headers: { ...cookieHeader, 'x-csrf-token': me.body.csrf_token } });
    expect(out.status).toBe(204);
    const after = await call(`${server.api}/scans`, { headers: cookieHeader });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('SESSION_EXPIRED');
  });

  it('a viewer (default role) cannot start scans, approve baselines or rotate keys: 403 in the error shape', async () => {
    const { jar, last } = await signIn({ sub: 'viewer-1', email: 'vi@example.test', groups: ['somewhere-else'] });
    expect(last.location).toBe('/app/');
    const me = await session(jar);
    expect(me.body.role).toBe('viewer');
    const headers = { cookie: jar.header(new URL(server.api))!, 'x-csrf-token': me.body.csrf_token };
    for (const [path, json] of [
      ['/scan', { url: 'http://target.test/', mode: 'functional' }],
      ['/baselines/approve', { scan_id: 'scn_nothing', page: '/' }],
      ['/keys/rotate', undefined],
    ] as const) {
      const res = await call(`${server.api}${path}`, { method: 'POST', headers, json });
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ error: 'FORBIDDEN', status: 403, role: 'viewer' });
      expect(res.body.message).toContain('viewer');
    }
    expect((await call(`${server.api}/usage`, { headers })).status).toBe(200);
  });

  it("an admin can change roles and remove members; a removed member's session ends at once", async () => {
    const admin = await signIn({ sub: 'admin-1', email: 'boss@example.test', groups: ['vigil-admins', 'engineers'] });
    const adminMe = await session(admin.jar);
    expect(adminMe.body.role).toBe('admin');
    const adminHeaders = { cookie: admin.jar.header(new URL(server.api))!, 'x-csrf-token': adminMe.body.csrf_token };
    const target = await signIn({ sub: 'leaver-1', email: 'leaver@example.test', groups: [] });
    const targetMe = await session(target.jar);
    const list = await call(`${server.api}/members?per_page=100`, { headers: adminHeaders });
    const leaver = list.body.members.find((m: { email: string }) => m.email === 'leaver@example.test');
    expect(leaver.role).toBe('viewer');
    const promoted = await call(`${server.api}/members/${leaver.member_id}`, { method: 'PATCH', headers: adminHeaders, json: { role: 'member' } });
    expect(promoted.body.role).toBe('member');
    expect((await session(target.jar)).body.role).toBe('member');
    const removed = await call(`${server.api}/members/${leaver.member_id}`, { method: 'DELETE', headers: adminHeaders });
    expect(removed.status).toBe(204);
    const gone = await call(`${server.api}/scans`, { headers: { cookie: target.jar.header(new URL(server.api))!, 'x-csrf-token': targetMe.body.csrf_token } });
    expect(gone.status).toBe(401);
    const audit = await call(`${server.api}/audit-log?actor=boss@example.test&per_page=50`, { headers: adminHeaders });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['member.role_changed', 'member.removed']));
    // Another tenant's admin sees none of it
    expect((await call(`${server.api}/audit-log`, { headers: asKey(other.apiKey) })).body.total).toBe(0);
    expect((await call(`${server.api}/members`, { headers: asKey(other.apiKey) })).body.total).toBe(0);
  });

  it('refuses an ID token for another audience', async () => {
    idp.tamper = (claims) => ({ ...claims, aud: 'someone-else' });
    const { jar, last } = await signIn({ sub: 'aud-1' });
    expect(last.status).toBe(400);
    expect(JSON.parse(last.body)).toMatchObject({ error: 'SSO_SIGN_IN_REFUSED', status: 400 });
    expect(JSON.parse(last.body).message).toMatch(/"aud"/);
    expect(jar.get(new URL(server.api).host, 'vigil_session')).toBeUndefined();
  });

  it('refuses an ID token with the wrong nonce', async () => {
    idp.tamper = (claims) => ({ ...claims, nonce: 'not-the-nonce-we-sent' });
    const { last } = await signIn({ sub: 'nonce-1' });
    expect(last.status).toBe(400);
    expect(JSON.parse(last.body).error).toBe('SSO_SIGN_IN_REFUSED');
    expect(JSON.parse(last.body).message).toMatch(/"nonce"/);
  });

  it('refuses a state mismatch: a callback that this browser did not start, and a replayed callback', async () => {
    idp.user = { sub: 'victim', email: 'victim@example.test', name: 'V', groups: [] };
    // The attacker runs a sign-in up to the callback and hands the callback URL to a victim's browser
    const attacker = new CookieJar();
    const { last: toCallback } = await browse(attacker, `${server.api}/sso/login?tenant=${enterprise.tenantId}`, {
      stop: (next) => next.pathname.endsWith('/sso/oidc/callback'),
    });
    const callback = new URL(toCallback.location!, idp.issuer).href;
    const victim = new CookieJar();
    const forced = await browse(victim, callback);
    expect(forced.last.status).toBe(400);
    expect(JSON.parse(forced.last.body).error).toBe('SSO_STATE_MISMATCH');
    // A state altered in the URL
    const altered = new URL(callback);
    altered.searchParams.set('state', 'forged');
    expect((await browse(attacker, altered.href)).last.status).toBe(400);
    // The genuine browser completes once; the same callback again is refused
    const done = await browse(attacker, callback, { stop: (next) => next.pathname.startsWith('/app') });
    expect(done.last.status).toBe(302);
    const replayJar = new CookieJar();
    replayJar.set(new URL(server.api).host, 'vigil_sso_request', new URL(callback).searchParams.get('state')!);
    expect((await browse(replayJar, callback)).last.status).toBe(400);
  });

  it('never redirects to another site through return_to', async () => {
    for (const evil of ['https://evil.test/app', '//evil.test/app', '/\\evil.test', '/app/../..//evil.test', '/app%2f%2fevil.test', 'javascript:alert(1)']) {
      const { last } = await signIn({ sub: 'redirect-1' }, `tenant=${enterprise.tenantId}&return_to=${encodeURIComponent(evil)}`);
      expect(last.status, evil).toBe(302);
      const landing = new URL(last.location!, origin);
      expect(landing.origin, evil).toBe(origin);
      expect(landing.pathname.startsWith('/app'), evil).toBe(true);
    }
  });

  it('SSO configuration is an enterprise feature: 402 FEATURE_NOT_AVAILABLE with upgrade_url on other plans', async () => {
    const team = await server.createTenant('team');
    const res = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: asKey(team.apiKey),
      json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: 'x', client_secret: 'y' } },
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: 'FEATURE_NOT_AVAILABLE', status: 402 });
    expect(res.body.upgrade_url).toEqual(expect.any(String));
  });

  it('"SSO required" refuses key sign-in to the dashboard; the key still works for the API', async () => {
    const t = await server.createTenant('enterprise');
    const keySession = await call(`${server.api}/session/key`, { method: 'POST', headers: asKey(t.apiKey) });
    expect(keySession.status).toBe(200);
    const keyCookie = keySession.headers
      .getSetCookie()
      .find((c) => c.startsWith('vigil_session='))!
      .split(';')[0]!;
    expect((await call(`${server.api}/scans`, { headers: { cookie: keyCookie } })).status).toBe(200);
    const put = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: asKey(t.apiKey),
      json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret }, sso_required: true },
    });
    expect(put.status).toBe(200);
    // The open key session ended, a new one is refused, the key keeps working
    expect((await call(`${server.api}/scans`, { headers: { cookie: keyCookie } })).status).toBe(401);
    const refused = await call(`${server.api}/session/key`, { method: 'POST', headers: asKey(t.apiKey) });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('SSO_REQUIRED');
    expect((await call(`${server.api}/usage`, { headers: asKey(t.apiKey) })).status).toBe(200);
    const audit = await call(`${server.api}/audit-log?action=sso.configured`, { headers: asKey(t.apiKey) });
    expect(audit.body.entries[0]).toMatchObject({ actor_type: 'api_key', action: 'sso.configured' });
    expect(audit.body.entries[0].detail.sso_required).toBe(true);
  });

  it('rotating the key ends the dashboard sessions opened with it; a session of the new key works', async () => {
    const t = await server.createTenant('team');
    const opened = await call(`${server.api}/session/key`, { method: 'POST', headers: asKey(t.apiKey) });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ tenant_id: t.tenantId, role: 'admin', method: 'key', sso_required: false });
    const cookie = opened.headers
      .getSetCookie()
      .find((c) => c.startsWith('vigil_session='))!
      .split(';')[0]!;
    const rotated = await call(`${server.api}/keys/rotate`, { method: 'POST', headers: { cookie, 'X-CSRF-Token': opened.body.csrf_token } });
    expect(rotated.status).toBe(200);
    const gone = await call(`${server.api}/scans`, { headers: { cookie } });
    expect(gone.status).toBe(401);
    expect(gone.body.error).toBe('SESSION_EXPIRED');
    expect((await call(`${server.api}/session/key`, { method: 'POST', headers: asKey(t.apiKey) })).status).toBe(401);
    const reopened = await call(`${server.api}/session/key`, { method: 'POST', headers: asKey(rotated.body.api_key) });
    expect(reopened.status).toBe(200);
    const newCookie = reopened.headers
      .getSetCookie()
      .find((c) => c.startsWith('vigil_session='))!
      .split(';')[0]!;
    expect((await call(`${server.api}/scans`, { headers: { cookie: newCookie } })).status).toBe(200);
  });
});

/**
 * Hosted, the issuer is a tenant's choice of address: discovery, keys and tokens are fetched through the
 * address guard, so an issuer on loopback or a private network is refused (the self-hosted server above
 * reaches the same local provider).
 */
describe(`OpenID Connect issuer behind the address guard, hosted (${storeLabel})`, () => {
  let server: TestServer;
  let idp: OidcIdp;
  let enterprise: { tenantId: string; apiKey: string };

  beforeAll(async () => {
    server = await startServer({
      env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_x', PAYMENT_WEBHOOK_SECRET: 'whsec_x', VIGIL_SSO_ALLOW_HTTP: 'true' },
    });
    idp = await startOidcIdp([`${server.api}/sso/oidc/callback`]);
    enterprise = await server.createTenant('enterprise');
  });
  afterAll(async () => {
    await idp?.close();
    await server?.stop();
  });

  it('refuses an issuer whose address is loopback, by IP literal or by a name resolving to it, and stores nothing', async () => {
    const port = new URL(idp.issuer).port;
    const served = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(served.status).toBe(200);
    for (const issuer of [idp.issuer, `http://localhost:${port}`, `http://[::1]:${port}`]) {
      const res = await call(`${server.api}/sso/config`, {
        method: 'PUT',
        headers: { 'X-API-Key': enterprise.apiKey },
        json: { protocol: 'oidc', oidc: { issuer, client_id: idp.clientId, client_secret: idp.clientSecret } },
      });
      expect(res.status, issuer).toBe(422);
      expect(res.body, issuer).toMatchObject({ error: 'SSO_ISSUER_UNREACHABLE' });
      expect(res.body.message, issuer).toMatch(/not public/);
    }
    expect((await call(`${server.api}/sso/config`, { headers: { 'X-API-Key': enterprise.apiKey } })).status).toBe(404);
  });
});
