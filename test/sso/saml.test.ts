import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import {
  assertionXml,
  idpMetadata,
  IDP_SSO_URL,
  makeKeyPair,
  readAuthnRequest,
  responseXml,
  signAssertion,
  type AssertionFields,
  type KeyPair,
} from './saml-idp.js';

/**
 * SAML 2.0 sign-in through @node-saml/node-saml with assertions signed by a real key (xml-crypto, RSA-SHA256),
 * and the attacks it must refuse: unsigned, wrongly signed, other audience, replayed, expired, and XML
 * signature wrapping.
 */
describe(`SAML 2.0 sign-in (${storeLabel})`, () => {
  let server: TestServer;
  let idpKeys: KeyPair;
  let attackerKeys: KeyPair;
  let tenant: { tenantId: string; apiKey: string };

  beforeAll(async () => {
    server = await startServer();
    idpKeys = makeKeyPair('test-idp');
    attackerKeys = makeKeyPair('attacker');
    tenant = await server.createTenant('enterprise');
    const put = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': tenant.apiKey },
      json: {
        protocol: 'saml',
        saml: { metadata_xml: idpMetadata(idpKeys) },
        group_claim: 'groups',
        role_mapping: { 'vigil-admins': 'admin' },
        default_role: 'member',
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.service_provider.saml_acs_url).toBe(`${server.api}/sso/saml/acs/${tenant.tenantId}`);
  });
  afterAll(async () => server?.stop());

  /** Starts a sign-in as a browser would and reads the AuthnRequest the redirect carries. */
  async function start(returnTo = '/app/scans') {
    const res = await fetch(`${server.api}/sso/login?tenant=${tenant.tenantId}&return_to=${encodeURIComponent(returnTo)}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${IDP_SSO_URL}?`)).toBe(true);
    return readAuthnRequest(location);
  }

  function fields(request: { id: string; acs: string; issuer: string }, over: Partial<AssertionFields> = {}): AssertionFields {
    return {
      inResponseTo: request.id,
      acs: request.acs,
      audience: request.issuer,
      nameId: 'sam@example.test',
      email: 'sam@example.test',
      groups: ['staff'],
      ...over,
    };
  }

  async function post(xml: string, relayState: string | null) {
    const form = new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64'), ...(relayState ? { RelayState: relayState } : {}) });
    return fetch(`${server.api}/sso/saml/acs/${tenant.tenantId}`, { method: 'POST', body: form, redirect: 'manual' });
  }

  async function expectRefused(res: Response, pattern: RegExp) {
    expect(res.status).toBe(400);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('vigil_session='))).toBe(false);
    const body = (await res.json()) as { error: string; message: string; status: number };
    expect(body).toMatchObject({ error: 'SSO_SIGN_IN_REFUSED', status: 400 });
    expect(body.message).toMatch(pattern);
  }

  it('serves the SP metadata with the ACS URL and the entity id', async () => {
    const res = await fetch(`${server.api}/sso/saml/metadata?tenant=${tenant.tenantId}`);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${server.api}/sso/saml/metadata?tenant=${tenant.tenantId}`.replace(/&/g, '&amp;'));
    expect(xml).toContain(`Location="${server.api}/sso/saml/acs/${tenant.tenantId}"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
  });

  it('signs in with a signed assertion: member provisioned with the mapped role, cookie set, lands on RelayState', async () => {
    const request = await start('/app/scans');
    const xml = responseXml(
      request.id,
      request.acs,
      signAssertion(assertionXml(fields(request, { nameId: 'boss@example.test', email: 'boss@example.test', groups: ['vigil-admins'] })), idpKeys),
    );
    const res = await post(xml, request.relayState);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/app/scans');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('vigil_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    const me = await call(`${server.api}/session`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(me.body).toMatchObject({ tenant_id: tenant.tenantId, role: 'admin', method: 'saml', member: { email: 'boss@example.test' } });
    // Replaying the same response: its InResponseTo was used, and its assertion id is known
    await expectRefused(await post(xml, request.relayState), /InResponseTo|already used/i);
  });

  it('refuses an unsigned assertion', async () => {
    const request = await start();
    await expectRefused(await post(responseXml(request.id, request.acs, assertionXml(fields(request))), null), /signature/i);
  });

  it('refuses an assertion signed by another key', async () => {
    const request = await start();
    await expectRefused(await post(responseXml(request.id, request.acs, signAssertion(assertionXml(fields(request)), attackerKeys)), null), /signature/i);
  });

  it('refuses an assertion for another audience', async () => {
    const request = await start();
    await expectRefused(
      await post(
        responseXml(request.id, request.acs, signAssertion(assertionXml(fields(request, { audience: 'https://other-sp.test/metadata' })), idpKeys)),
        null,
      ),
      /audience/i,
    );
  });

  it('refuses an expired assertion', async () => {
    const request = await start();
    await expectRefused(
      await post(responseXml(request.id, request.acs, signAssertion(assertionXml(fields(request, { validForSeconds: -600 })), idpKeys)), null),
      /expired|NotOnOrAfter|too old|no valid subject confirmation/i,
    );
  });

  it('refuses a response to a request this server never made', async () => {
    const request = await start();
    const forged = { ...request, id: '_never-requested' };
    await expectRefused(await post(responseXml(forged.id, request.acs, signAssertion(assertionXml(fields(forged)), idpKeys)), null), /InResponseTo/i);
  });

  it('refuses XML signature wrapping: a forged assertion beside the genuine signed one', async () => {
    const request = await start();
    const genuine = signAssertion(assertionXml(fields(request, { nameId: 'sam@example.test' })), idpKeys);
    const evil = assertionXml(fields(request, { nameId: 'mallory@example.test', email: 'mallory@example.test', groups: ['vigil-admins'] }));
    // XSW: the unsigned evil assertion first, the genuine signed one hidden after it (and, second variant, inside it)
    for (const wrapped of [
      responseXml(request.id, request.acs, evil + genuine),
      responseXml(request.id, request.acs, evil.replace('</saml:Subject>', `</saml:Subject><saml:Advice>${genuine}</saml:Advice>`)),
    ]) {
      const res = await post(wrapped, null);
      expect(res.status).toBe(400);
      expect(res.headers.getSetCookie().some((c) => c.startsWith('vigil_session='))).toBe(false);
    }
    const members = await call(`${server.api}/members?per_page=100`, { headers: { 'X-API-Key': tenant.apiKey } });
    expect(members.body.members.map((m: { email: string }) => m.email)).not.toContain('mallory@example.test');
  });

  it("sends a browser whose assertion is refused to the dashboard's sign-in page with the code, and keeps the JSON error for other clients", async () => {
    const request = await start();
    const unsigned = responseXml(request.id, request.acs, assertionXml(fields(request)));
    const form = new URLSearchParams({ SAMLResponse: Buffer.from(unsigned).toString('base64') }).toString();
    // node:http, not fetch: fetch writes its own Sec-Fetch-Mode (cors) over the browser's
    const postForm = (tenantId: string, body: string, headers: Record<string, string>) =>
      new Promise<{ status: number; location: string | undefined; cookies: string[]; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${server.api}/sso/saml/acs/${tenantId}`,
          { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, cookies: res.headers['set-cookie'] ?? [], body: text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const refusedPage = '/app/sign-in?sso_error=SSO_SIGN_IN_REFUSED';
    // The IdP's auto-submitting form, as a browser posts it (fetch metadata of a navigation), and as an older browser does (asks for HTML)
    for (const headers of [
      { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: 'text/html,*/*' },
      { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    ] as Record<string, string>[]) {
      const navigation = await postForm(tenant.tenantId, form, headers);
      expect([navigation.status, navigation.location], JSON.stringify(headers)).toEqual([302, refusedPage]);
      expect(navigation.cookies.some((c) => c.startsWith('vigil_session='))).toBe(false);
    }
    // A form without SAMLResponse, and SAML on a tenant without single sign-on
    expect((await postForm(tenant.tenantId, 'RelayState=%2Fapp%2Fscans', { 'sec-fetch-mode': 'navigate' })).location).toBe(refusedPage);
    const other = await server.createTenant('enterprise');
    expect((await postForm(other.tenantId, form, { 'sec-fetch-mode': 'navigate' })).location).toBe('/app/sign-in?sso_error=SSO_NOT_CONFIGURED');
    // The same refused response from a script (fetch mode cors, or no browser at all): the JSON error
    for (const headers of [{ 'sec-fetch-mode': 'cors', accept: 'text/html' }, { accept: '*/*' }] as Record<string, string>[]) {
      const script = await postForm(tenant.tenantId, form, headers);
      expect(script.status).toBe(400);
      expect(JSON.parse(script.body)).toMatchObject({ error: 'SSO_SIGN_IN_REFUSED', status: 400 });
    }
  });

  it('refuses metadata without a signing certificate at configuration time', async () => {
    const bad = idpMetadata(idpKeys).replace(/<md:KeyDescriptor[\s\S]*?<\/md:KeyDescriptor>/, '');
    const res = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': tenant.apiKey },
      json: { protocol: 'saml', saml: { metadata_xml: bad } },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/signing certificate/);
  });
});
