import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsTxtServer, type DnsTxtServer } from '../helpers/dns-txt-server.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { startOidcIdp, type OidcIdp } from './oidc-idp.js';

/**
 * Email-domain ownership proof (docs/sso.md): a claimed domain routes sign-in by email only once its TXT
 * record at _vigil-challenge.<domain> is found through the server's DNS servers (here a DNS server on
 * loopback, VIGIL_DNS_SERVERS), and a domain verified by one tenant cannot be claimed or verified by another.
 */
describe(`email domain verification (${storeLabel})`, () => {
  let server: TestServer;
  let idp: OidcIdp;
  let dns: DnsTxtServer;
  const asKey = (key: string) => ({ 'X-API-Key': key });

  /** An enterprise tenant with OpenID Connect set up (no email domains yet). */
  async function ssoTenant(): Promise<{ tenantId: string; apiKey: string }> {
    const tenant = await server.createTenant('enterprise');
    const put = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: asKey(tenant.apiKey),
      json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret } },
    });
    expect(put.status, put.text).toBe(200);
    return tenant;
  }
  const claim = (apiKey: string, domain: string) => call(`${server.api}/sso/domains`, { headers: asKey(apiKey), json: { domain } });
  const verify = (apiKey: string, domain: string) => call(`${server.api}/sso/domains/${domain}/verify`, { method: 'POST', headers: asKey(apiKey) });
  /** Where sign-in by this email address goes: the tenant's IdP (200 with its URL) or 404. */
  const emailSignIn = (email: string) => call(`${server.api}/sso/login?email=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } });

  beforeAll(async () => {
    dns = await startDnsTxtServer();
    server = await startServer({ env: { VIGIL_SSO_ALLOW_HTTP: 'true', VIGIL_DNS_SERVERS: dns.address } });
    idp = await startOidcIdp([`${server.api}/sso/oidc/callback`]);
  });
  afterAll(async () => {
    await idp?.close();
    await server?.stop();
    await dns?.close();
  });

  it('a claimed domain routes sign-in by email only after its TXT record is found; the steps are audited', async () => {
    const t = await ssoTenant();
    const claimed = await claim(t.apiKey, 'Acme.test');
    expect(claimed.status, claimed.text).toBe(201);
    expect(claimed.body).toMatchObject({
      domain: 'acme.test',
      status: 'pending',
      verified_at: null,
      txt_record: { name: '_vigil-challenge.acme.test', type: 'TXT', value: expect.stringMatching(/^vigil-domain-verification=[A-Za-z0-9_-]{32}$/) },
    });
    const value = claimed.body.txt_record.value as string;
    // Claiming again answers the same claim, same token
    const again = await claim(t.apiKey, 'acme.test');
    expect(again.status).toBe(200);
    expect(again.body.txt_record.value).toBe(value);
    expect((await call(`${server.api}/sso/config`, { headers: asKey(t.apiKey) })).body.email_domains).toEqual(['acme.test']);

    // Unverified: an email of the domain finds no tenant
    expect((await emailSignIn('ana@acme.test')).body.error).toBe('SSO_NOT_CONFIGURED');

    // No record at all
    const none = await verify(t.apiKey, 'acme.test');
    expect(none.status).toBe(422);
    expect(none.body.error).toBe('DOMAIN_NOT_VERIFIED');
    expect(none.body.message).toContain('_vigil-challenge.acme.test');
    expect(none.body.message).toContain(value);
    expect(none.body.message).toContain('no TXT record');
    // Other records, not this claim's value (another token, the value at the apex is not looked at)
    dns.setTxt('_vigil-challenge.acme.test', ['vigil-domain-verification=someone-else', 'v=spf1 -all']);
    dns.setTxt('acme.test', [value]);
    const wrong = await verify(t.apiKey, 'acme.test');
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toContain('do not include it (2 found)');
    // A zone whose server fails: not verified, and said so
    dns.fail('_vigil-challenge.acme.test');
    const failed = await verify(t.apiKey, 'acme.test');
    expect(failed.status).toBe(422);
    expect(failed.body.message).toContain('ESERVFAIL');
    expect((await emailSignIn('ana@acme.test')).status).toBe(404);

    dns.setTxt('_vigil-challenge.acme.test', ['v=spf1 -all', value]);
    const verified = await verify(t.apiKey, 'acme.test');
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body).toMatchObject({ domain: 'acme.test', status: 'verified', verified_at: expect.any(String) });
    expect(dns.asked).toContain('_vigil-challenge.acme.test');

    const started = await emailSignIn('Ana@ACME.test');
    expect(started.status, started.text).toBe(200);
    expect(new URL(started.body.authorization_url).origin).toBe(idp.issuer);
    // Sign-in by email of a subdomain is not the verified domain
    expect((await emailSignIn('ana@eu.acme.test')).status).toBe(404);

    const listed = await call(`${server.api}/sso/domains`, { headers: asKey(t.apiKey) });
    expect(listed.body.domains).toEqual([verified.body]);

    const audit = await call(`${server.api}/audit-log?action=sso.domain_verified`, { headers: asKey(t.apiKey) });
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0]).toMatchObject({ actor_type: 'api_key', target: 'acme.test', address: expect.any(String) });
    const added = await call(`${server.api}/audit-log?action=sso.domain_added`, { headers: asKey(t.apiKey) });
    expect(added.body.entries).toHaveLength(1);
    expect(added.body.entries[0].detail.txt_record.value).toBe(value);
  });

  it('a domain verified by one tenant cannot be claimed or verified by another until it is released', async () => {
    const owner = await ssoTenant();
    const rival = await ssoTenant();
    // Both may claim while nobody has proven it: a claim alone takes nothing from anyone
    const ownerClaim = await claim(owner.apiKey, 'shared.test');
    const rivalClaim = await claim(rival.apiKey, 'shared.test');
    expect([ownerClaim.status, rivalClaim.status]).toEqual([201, 201]);
    expect(rivalClaim.body.txt_record.value).not.toBe(ownerClaim.body.txt_record.value);
    dns.setTxt('_vigil-challenge.shared.test', [ownerClaim.body.txt_record.value]);
    // The owner's record does not prove the rival's claim
    expect((await verify(rival.apiKey, 'shared.test')).status).toBe(422);
    expect((await verify(owner.apiKey, 'shared.test')).status).toBe(200);

    // Now held: the rival can neither verify (even with its own record published) nor claim it anew
    dns.setTxt('_vigil-challenge.shared.test', [ownerClaim.body.txt_record.value, rivalClaim.body.txt_record.value]);
    const refused = await verify(rival.apiKey, 'shared.test');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'EMAIL_DOMAIN_TAKEN', status: 409 });
    const third = await ssoTenant();
    expect((await claim(third.apiKey, 'shared.test')).body.error).toBe('EMAIL_DOMAIN_TAKEN');
    const viaConfig = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: asKey(third.apiKey),
      json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: idp.clientId }, email_domains: ['shared.test'] },
    });
    expect(viaConfig.status).toBe(409);
    expect(viaConfig.body.error).toBe('EMAIL_DOMAIN_TAKEN');
    const signIn = await emailSignIn('bo@shared.test');
    expect(new URL(signIn.body.authorization_url).searchParams.get('client_id')).toBe(idp.clientId);
    const ownerSso = await call(`${server.api}/sso/config`, { headers: asKey(owner.apiKey) });
    expect(ownerSso.body.email_domains).toEqual(['shared.test']);

    // Released by the owner: the rival proves it and email sign-in follows
    const released = await call(`${server.api}/sso/domains/shared.test`, { method: 'DELETE', headers: asKey(owner.apiKey) });
    expect(released.status).toBe(204);
    expect((await call(`${server.api}/sso/domains/shared.test`, { method: 'DELETE', headers: asKey(owner.apiKey) })).status).toBe(404);
    expect((await emailSignIn('bo@shared.test')).status).toBe(404);
    expect((await verify(rival.apiKey, 'shared.test')).status).toBe(200);
    expect((await emailSignIn('bo@shared.test')).status).toBe(200);
    const removedAudit = await call(`${server.api}/audit-log?action=sso.domain_removed`, { headers: asKey(owner.apiKey) });
    expect(removedAudit.body.entries[0]).toMatchObject({ target: 'shared.test', actor_type: 'api_key' });
  });

  it('tenants proving one domain at the same moment: exactly one holds it', async () => {
    const tenants = await Promise.all(Array.from({ length: 6 }, () => ssoTenant()));
    const claims = await Promise.all(tenants.map((t) => claim(t.apiKey, 'race.test')));
    dns.setTxt(
      '_vigil-challenge.race.test',
      claims.map((c) => c.body.txt_record.value),
    );
    const answers = await Promise.all(tenants.map((t) => verify(t.apiKey, 'race.test')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = tenants[answers.findIndex((a) => a.status === 200)]!;
    const lists = await Promise.all(tenants.map(async (t) => (await call(`${server.api}/sso/domains`, { headers: asKey(t.apiKey) })).body.domains[0].status));
    expect(lists.filter((s) => s === 'verified')).toHaveLength(1);
    expect((await call(`${server.api}/sso/domains`, { headers: asKey(winner.apiKey) })).body.domains[0].status).toBe('verified');
  });

  it('email_domains of PUT /sso/config claims and releases domains; left out, the claims stay', async () => {
    const t = await ssoTenant();
    const put = (json: Record<string, unknown>) =>
      call(`${server.api}/sso/config`, {
        method: 'PUT',
        headers: asKey(t.apiKey),
        json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: idp.clientId }, ...json },
      });
    expect((await put({ email_domains: ['one.test', 'two.test'] })).body.email_domains).toEqual(['one.test', 'two.test']);
    const domains = async () =>
      (await call(`${server.api}/sso/domains`, { headers: asKey(t.apiKey) })).body.domains.map(
        (d: { domain: string; status: string }) => `${d.domain}:${d.status}`,
      );
    expect(await domains()).toEqual(['one.test:pending', 'two.test:pending']);
    const one = (await call(`${server.api}/sso/domains`, { headers: asKey(t.apiKey) })).body.domains[0];
    dns.setTxt(one.txt_record.name, [one.txt_record.value]);
    expect((await verify(t.apiKey, 'one.test')).status).toBe(200);
    // A change of the issuer without email_domains keeps the claims (and the proof)
    expect((await put({ default_role: 'member' })).status).toBe(200);
    expect(await domains()).toEqual(['one.test:verified', 'two.test:pending']);
    expect((await put({ email_domains: ['one.test'] })).body.email_domains).toEqual(['one.test']);
    expect(await domains()).toEqual(['one.test:verified']);
    expect((await emailSignIn('x@one.test')).status).toBe(200);
  });

  it('is an enterprise feature, for admins: 402 on other plans; unknown claims are 404', async () => {
    const team = await server.createTenant('team');
    const refused = await claim(team.apiKey, 'team.test');
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'FEATURE_NOT_AVAILABLE', upgrade_url: expect.any(String) });
    expect((await call(`${server.api}/sso/domains`, { headers: asKey(team.apiKey) })).status).toBe(402);
    const t = await ssoTenant();
    const unknown = await verify(t.apiKey, 'never-claimed.test');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    expect((await claim(t.apiKey, 'not a domain')).status).toBe(422);
  });
});
