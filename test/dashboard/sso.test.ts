import WebSocket from 'ws';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { startDnsTxtServer, type DnsTxtServer } from '../helpers/dns-txt-server.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { proveEmailDomain } from '../sso/email-domain-proof.js';
import { startOidcIdp, type OidcIdp } from '../sso/oidc-idp.js';
import { assertionXml, idpMetadata, IDP_SSO_URL, makeKeyPair, readAuthnRequest, responseXml, signAssertion } from '../sso/saml-idp.js';
import { ensureDashboardBuilt, screenshot } from './helpers.js';

/**
 * The dashboard signed into through single sign-on: a real Chromium on the built dashboard goes through a
 * real OpenID provider (oidc-provider, the fixture of test/sso/oidc.test.ts) and back, works on the session
 * cookie alone (nothing in the tab's storage, the CSRF token on writes), sees its tenant's scans and not
 * another tenant's, administers members and reads the audit log as an admin, is read-only as a viewer, and
 * signs out for good.
 */
describe(`dashboard single sign-on (${storeLabel})`, () => {
  let server: TestServer;
  let dns: DnsTxtServer;
  let idp: OidcIdp;
  let browser: Browser;
  let origin: string;
  let enterprise: { tenantId: string; apiKey: string };
  let other: { tenantId: string; apiKey: string };
  let ownScan: string;
  let otherScan: string;
  const pageErrors: string[] = [];

  const startScan = async (apiKey: string) => {
    const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: 'http://target.test/', mode: 'functional' } });
    expect(started.status, started.text).toBe(202);
    return started.body.scan_id as string;
  };

  beforeAll(async () => {
    ensureDashboardBuilt();
    dns = await startDnsTxtServer();
    server = await startServer({ env: { VIGIL_SSO_ALLOW_HTTP: 'true', VIGIL_DNS_SERVERS: dns.address } });
    origin = new URL(server.api).origin;
    idp = await startOidcIdp([`${server.api}/sso/oidc/callback`]);
    enterprise = await server.createTenant('enterprise');
    other = await server.createTenant('enterprise');
    const configured = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': enterprise.apiKey },
      json: {
        protocol: 'oidc',
        oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret },
        group_claim: 'groups',
        role_mapping: { 'vigil-admins': 'admin' },
        default_role: 'viewer',
        email_domains: ['example.test'],
      },
    });
    expect(configured.status, configured.text).toBe(200);
    await proveEmailDomain(server.api, enterprise.apiKey, dns, 'example.test');
    ownScan = await startScan(enterprise.apiKey);
    // A suppression to list (the route wants a finding of a recent scan; the store takes it as it is)
    await server.vigil.services.suppressions.create(enterprise.tenantId, {
      fingerprint: '3f2a9c0d41b7e5a09c1d2e3f4a5b6c7d',
      target: null,
      reason: 'accepted',
      author: 'test',
      expires_at: null,
    });
    otherScan = await startScan(other.apiKey);
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await idp?.close();
    await server?.stop();
    await dns?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return { context, page };
  }

  /** From the sign-in page through the IdP and back: lands on the scans. */
  async function signInThroughIdp(page: Page, who: string, user: OidcIdp['user']) {
    idp.user = user;
    await page.goto(`${origin}/app/`);
    await page.getByLabel('Work email or tenant id').fill(who);
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await page.waitForURL(`${origin}/app/scans`);
    await expect.poll(() => page.getByRole('heading', { name: 'Scans', level: 1 }).count()).toBe(1);
  }

  it("an admin signs in through the OpenID provider, sees the tenant's scans only, manages members and reads the audit log, then signs out for good", async () => {
    const { context, page } = await newPage();
    const writes: { method: string; csrf: string | undefined; key: string | undefined }[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${server.api}/`) && request.method() !== 'GET')
        writes.push({ method: request.method(), csrf: request.headers()['x-csrf-token'], key: request.headers()['x-api-key'] });
    });
    await signInThroughIdp(page, 'ana@example.test', { sub: 'admin-1', email: 'ana@example.test', name: 'Ana', groups: ['vigil-admins'] });

    // The tenant's scan is listed, the other tenant's is not, and its address is refused as not found
    await expect.poll(() => page.getByText(ownScan).count()).toBe(1);
    expect(await page.getByText(otherScan).count()).toBe(0);
    await expect.poll(() => page.locator('header').innerText()).toContain('ana@example.test · admin');
    // Nothing of the sign-in in the tab's storage: the session is the HttpOnly cookie
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([0, 0, '']);
    const cookies = await context.cookies(origin);
    const sessionCookie = cookies.find((c) => c.name === 'vigil_session')!;
    expect(sessionCookie.httpOnly).toBe(true);
    await screenshot(page, 'sso-scans');
    // The live socket opens on the cookie (no key to put in it); another site's page cannot ride the cookie
    await expect.poll(() => page.locator('header .live').innerText()).toBe('Live');
    const upgrade = (pageOrigin: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`ws://${new URL(origin).host}/ws/live`, {
          headers: { cookie: `vigil_session=${sessionCookie.value}`, origin: pageOrigin },
        });
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('error', () => undefined);
      });
    expect(await upgrade(origin)).toBe(101);
    expect(await upgrade('http://evil.test')).toBe(401);

    await page.goto(`${origin}/app/scans/${otherScan}`);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/Not found/);

    // Members: the admin is listed; a viewer who signed in is given the member role and removed (writes with the CSRF token)
    const second = await newPage();
    await signInThroughIdp(second.page, 'bo@example.test', { sub: 'viewer-1', email: 'bo@example.test', name: 'Bo', groups: [] });
    await second.context.close();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.locator('table.members tbody tr').count()).toBe(2);
    await page.getByLabel('Role of bo@example.test').selectOption('member');
    await expect
      .poll(
        async () =>
          (await call(`${server.api}/members`, { headers: { 'X-API-Key': enterprise.apiKey } })).body.members.find(
            (m: { email: string }) => m.email === 'bo@example.test',
          )?.role,
      )
      .toBe('member');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove bo@example.test' }).click();
    await expect.poll(() => page.locator('table.members tbody tr').count()).toBe(1);
    await screenshot(page, 'sso-members');

    // Audit log: the sign-ins and the role change, filtered by action
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => page.locator('table.audit').innerText()).toContain('member.role_changed');
    await page.getByLabel('Action').selectOption('member.removed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('table.audit tbody tr').count()).toBe(1);
    expect(page.url()).toContain('action=member.removed');
    await screenshot(page, 'sso-audit');

    // The write controls a viewer is not shown (second test) are the admin's
    await page.goto(`${origin}/app/suppressions`);
    await expect.poll(() => page.getByRole('button', { name: 'Un-suppress' }).count()).toBe(1);
    await page.goto(`${origin}/app/billing`);
    await expect.poll(() => page.getByRole('button', { name: 'Save channel' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Rotate the API key…' }).count()).toBe(1);
    await page.goto(`${origin}/app/scans/new`);
    await expect.poll(() => page.getByRole('button', { name: 'Start scan' }).count()).toBe(1);

    // The SSO page shows what is in force, and its form changes it (PUT /sso/config; a blank secret keeps the saved one)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SSO' }).click();
    await expect.poll(() => page.locator('dl.facts').innerText()).toContain(idp.issuer);
    const ssoConfig = async () => (await call(`${server.api}/sso/config`, { headers: { 'X-API-Key': enterprise.apiKey } })).body;
    expect(await page.getByLabel('Issuer').inputValue()).toBe(idp.issuer);
    expect(await page.getByLabel('Role mapping (one "group = role" a line)').inputValue()).toBe('vigil-admins = admin');
    await page.getByLabel('Role mapping (one "group = role" a line)').fill('vigil-admins = admin\nengineers = boss');
    await page.getByRole('button', { name: 'Save the configuration' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('"engineers = boss" is not "group = role"');
    await page.getByLabel('Role mapping (one "group = role" a line)').fill('vigil-admins = admin\nengineers = member');
    await page.getByLabel('Default role').selectOption('member');
    await page.getByLabel('Email domains (comma-separated)').fill('example.test, example.org');
    await page.getByRole('button', { name: 'Save the configuration' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    expect(await ssoConfig()).toMatchObject({
      protocol: 'oidc',
      oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret_set: true },
      group_claim: 'groups',
      role_mapping: { 'vigil-admins': 'admin', engineers: 'member' },
      default_role: 'member',
      // The claims, in alphabetical order (example.test verified, example.org waiting for its proof)
      email_domains: ['example.org', 'example.test'],
      sso_required: false,
    });
    await expect.poll(() => page.locator('dl.facts').innerText()).toContain('default member');
    // A refused change is said on the page and changes nothing
    await page.getByLabel('Issuer').fill('http://127.0.0.1:9/nowhere');
    await page.getByRole('button', { name: 'Save the configuration' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('SSO_ISSUER_UNREACHABLE');
    expect((await ssoConfig()).oidc.issuer).toBe(idp.issuer);
    // Back to the viewer default the next test signs in with
    await page.reload();
    await page.getByLabel('Default role').selectOption('viewer');
    await page.getByRole('button', { name: 'Save the configuration' }).click();
    await expect.poll(async () => (await ssoConfig()).default_role).toBe('viewer');
    await screenshot(page, 'sso-config-form');

    // Every write went with the session's CSRF token and no key
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const write of writes) expect(write).toMatchObject({ csrf: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/), key: undefined });

    // Sign-out ends the session on the server: a reload shows the sign-in page, the old cookie is refused
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with your company (SSO)' }).count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with your company (SSO)' }).count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    const stale = await call(`${server.api}/session`, { headers: { cookie: `vigil_session=${sessionCookie.value}` } });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ error: 'SESSION_EXPIRED' });
    await context.close();
  });

  it("a viewer sees a read-only dashboard and the server's 403 where an admin page is reached", async () => {
    const { context, page } = await newPage();
    await signInThroughIdp(page, enterprise.tenantId, { sub: 'viewer-2', email: 'cy@example.test', name: 'Cy', groups: [] });
    await expect.poll(() => page.getByText(ownScan).count()).toBe(1);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Scans', 'Trends', 'Suppressions', 'Usage & billing']);
    expect(await page.getByRole('link', { name: 'Start a scan' }).count()).toBe(0);
    // No control the role cannot use is drawn: the same pages show them to the admin (first test)
    await page.goto(`${origin}/app/scans/new`);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'The viewer role can read scans but not start them' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Start scan' }).count()).toBe(0);
    await page.goto(`${origin}/app/suppressions`);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Un-suppress' }).count()).toBe(0);
    await page.goto(`${origin}/app/billing`);
    await expect.poll(() => page.getByRole('heading', { name: 'Notifications' }).count()).toBe(1);
    for (const write of ['Rotate the API key…', 'Save channel', 'Upgrade (checkout)', 'Manage billing (portal)'])
      expect(await page.getByRole('button', { name: write }).count(), write).toBe(0);
    await page.goto(`${origin}/app/members`);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/403 FORBIDDEN: The viewer role cannot administer/);
    await screenshot(page, 'sso-viewer-forbidden');
    await context.close();
  });

  it("a refused sign-in lands on the dashboard's sign-in page, which says why in plain words; API clients keep the JSON error", async () => {
    const { context, page } = await newPage();
    const refusal = () => page.getByTestId('sso-error').innerText();
    // The IdP's ID token is for another audience: the callback refuses it
    idp.user = { sub: 'refused-1', email: 'dee@example.test', name: 'Dee', groups: [] };
    idp.tamper = (claims) => ({ ...claims, aud: 'someone-else' });
    await page.goto(`${origin}/app/`);
    await page.getByLabel('Work email or tenant id').fill('dee@example.test');
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await page.waitForURL(`${origin}/app/sign-in?sso_error=SSO_SIGN_IN_REFUSED`);
    await expect.poll(refusal).toMatch(/identity provider's answer was refused[\s\S]*Code: SSO_SIGN_IN_REFUSED/);
    expect((await context.cookies(origin)).map((c) => c.name)).not.toContain('vigil_session');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    // A callback this browser did not start (state mismatch), and a sign-in link to a tenant without SSO
    await page.goto(`${server.api}/sso/oidc/callback?code=forged&state=forged`);
    await page.waitForURL(`${origin}/app/sign-in?sso_error=SSO_STATE_MISMATCH`);
    await expect.poll(refusal).toContain('started in another browser or tab');
    await page.goto(`${server.api}/sso/login?tenant=${other.tenantId}`);
    await page.waitForURL(`${origin}/app/sign-in?sso_error=SSO_NOT_CONFIGURED`);
    await expect.poll(refusal).toContain('Single sign-on is not set up for this company');
    await screenshot(page, 'sso-refused');
    // Starting again from that page signs in and lands on the scans, not back on the refusal
    await page.getByLabel('Work email or tenant id').fill('dee@example.test');
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await page.waitForURL(`${origin}/app/scans`);
    await expect.poll(() => page.getByText(ownScan).count()).toBe(1);
    expect(await page.getByTestId('sso-error').count()).toBe(0);
    // Not a browser navigation: the JSON error body, as before
    const api = await call(`${server.api}/sso/oidc/callback?code=forged&state=forged`);
    expect(api.status).toBe(400);
    expect(api.body).toMatchObject({ error: 'SSO_STATE_MISMATCH', status: 400 });
    await context.close();
  });

  it('an email domain with no single sign-on is refused on the sign-in page', async () => {
    const { context, page } = await newPage();
    await page.goto(`${origin}/app/`);
    await page.getByLabel('Work email or tenant id').fill('someone@nowhere.test');
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Single sign-on is not set up');
    expect(page.url()).toBe(`${origin}/app/`);
    await context.close();
  });

  it('the server refuses key sign-in when the tenant requires single sign-on (403 SSO_REQUIRED, said on the page); an open key session ends; the key still works for the API', async () => {
    const { context, page } = await newPage();
    // Signed in with the key before the switch is turned on
    await page.goto(`${origin}/app/`);
    await page.fill('#key', other.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Scans', level: 1 }).count()).toBe(1);
    const required = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': other.apiKey },
      json: { protocol: 'oidc', oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret }, sso_required: true },
    });
    expect(required.status, required.text).toBe(200);
    // The open key session ended on the server: the next page shows the sign-in page
    await page.reload();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    // A new key sign-in is refused by the server, not only by the page
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/session/key'));
    await page.fill('#key', other.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const refused = await answer;
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('SSO_REQUIRED');
    await expect.poll(() => page.locator('#key-error').innerText()).toContain('This company requires single sign-on for the dashboard');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': other.apiKey } })).status).toBe(200);
    // A tenant that does not require it signs in with its key as before
    await page.fill('#key', enterprise.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Scans', level: 1 }).count()).toBe(1);
    await context.close();
  });

  it("an admin sees each email domain's DNS record on the SSO page and verifies the domain there", async () => {
    const headers = { 'X-API-Key': enterprise.apiKey };
    const domain = 'branch.example.test';
    const claimed = await call(`${server.api}/sso/domains`, { headers, json: { domain } });
    expect([200, 201], claimed.text).toContain(claimed.status);
    const { name, value } = claimed.body.txt_record;
    const { context, page } = await newPage();
    await signInThroughIdp(page, 'ana@example.test', { sub: 'admin-1', email: 'ana@example.test', name: 'Ana', groups: ['vigil-admins'] });
    await page.goto(`${origin}/app/sso`);
    const row = page.locator('tr', { hasText: domain });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toContain('pending');
    expect(await row.innerText()).toContain(name);
    expect(await row.innerText()).toContain(value);
    const verifyButton = page.getByRole('button', { name: `Verify ${domain}` });
    // Not published yet: the server's refusal, in the error shape, is shown and nothing changes
    await verifyButton.click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'DOMAIN_NOT_VERIFIED' }).count()).toBe(1);
    expect(await row.innerText()).toContain('pending');
    // Published: verified from the page, the row says so and its button is gone
    dns.setTxt(name, [value]);
    await verifyButton.click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: `${domain} is verified` })
          .count(),
      )
      .toBe(1);
    await expect.poll(() => row.innerText()).toContain('verified');
    expect(await verifyButton.count()).toBe(0);
    const listed = await call(`${server.api}/sso/domains`, { headers });
    expect(listed.body.domains.find((d: { domain: string }) => d.domain === domain)?.status).toBe('verified');
    await screenshot(page, 'sso-domains');
    await context.close();
  });

  it('threw no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});

/**
 * The same through SAML 2.0: the fixture of test/sso/saml.test.ts is no web server, so the browser's visit to
 * its SSO address is answered by Playwright as that IdP would: it reads the AuthnRequest, signs an assertion
 * with the IdP's key and posts it to the ACS with an auto-submitting form (HTTP-POST binding).
 */
describe(`dashboard single sign-on through SAML (${storeLabel})`, () => {
  let server: TestServer;
  let dns: DnsTxtServer;
  let browser: Browser;
  let origin: string;
  let enterprise: { tenantId: string; apiKey: string };
  let ownScan: string;
  let otherScan: string;
  const idpKeys = makeKeyPair('dashboard-saml-idp');

  beforeAll(async () => {
    ensureDashboardBuilt();
    dns = await startDnsTxtServer();
    server = await startServer({ env: { VIGIL_DNS_SERVERS: dns.address } });
    origin = new URL(server.api).origin;
    enterprise = await server.createTenant('enterprise');
    const other = await server.createTenant('enterprise');
    const put = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': enterprise.apiKey },
      json: {
        protocol: 'saml',
        saml: { metadata_xml: idpMetadata(idpKeys) },
        group_claim: 'groups',
        role_mapping: { 'vigil-admins': 'admin' },
        default_role: 'member',
        email_domains: ['saml.test'],
      },
    });
    expect(put.status, put.text).toBe(200);
    await proveEmailDomain(server.api, enterprise.apiKey, dns, 'saml.test');
    for (const [key, set] of [
      [enterprise.apiKey, (id: string) => (ownScan = id)],
      [other.apiKey, (id: string) => (otherScan = id)],
    ] as const) {
      const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://target.test/', mode: 'functional' } });
      expect(started.status, started.text).toBe(202);
      set(started.body.scan_id);
    }
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await dns?.close();
  });

  it("signs in through the SAML IdP, sees the tenant's scans and not another tenant's, and signs out for good", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await context.route(`${IDP_SSO_URL}**`, async (route) => {
      const request = readAuthnRequest(route.request().url());
      const assertion = signAssertion(
        assertionXml({
          inResponseTo: request.id,
          acs: request.acs,
          audience: request.issuer,
          nameId: 'sam@saml.test',
          email: 'sam@saml.test',
          groups: ['vigil-admins'],
        }),
        idpKeys,
      );
      const samlResponse = Buffer.from(responseXml(request.id, request.acs, assertion)).toString('base64');
      const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
      await route.fulfill({
        contentType: 'text/html',
        body:
          `<!doctype html><form method="post" action="${escape(request.acs)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}">` +
          `<input type="hidden" name="RelayState" value="${escape(request.relayState ?? '')}"></form><script>document.forms[0].submit()</script>`,
      });
    });
    await page.goto(`${origin}/app/`);
    await page.getByLabel('Work email or tenant id').fill('sam@saml.test');
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await page.waitForURL(`${origin}/app/scans`);
    await expect.poll(() => page.getByText(ownScan).count()).toBe(1);
    expect(await page.getByText(otherScan).count()).toBe(0);
    await expect.poll(() => page.locator('header').innerText()).toContain('sam@saml.test · admin');
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([0, 0, '']);
    await page.goto(`${origin}/app/scans/${otherScan}`);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/Not found/);

    // The admin turns single sign-on off from the SSO page: the API has it gone, the page offers to set it up again
    await page.goto(`${origin}/app/sso`);
    await page.getByRole('button', { name: 'Turn single sign-on off…' }).click();
    await page.getByRole('button', { name: 'Turn off now' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Set up single sign-on' }).count()).toBe(1);
    expect((await call(`${server.api}/sso/config`, { headers: { 'X-API-Key': enterprise.apiKey } })).status).toBe(404);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with your company (SSO)' }).count()).toBe(1);
    const me = await page.evaluate(async () => (await fetch('/api/v1/session')).status);
    expect(me).toBe(401);
    await context.close();
  });
});

/**
 * Idle expiry end to end: the server's clock is moved instead of waiting (VIGIL_SESSION_IDLE_MINUTES=1).
 * A session in use outlives its idle time; one left alone for longer ends on the server, and the dashboard
 * signs itself out at its next request and says why.
 */
describe(`dashboard session idle expiry (${storeLabel})`, () => {
  let server: TestServer;
  let dns: DnsTxtServer;
  let idp: OidcIdp;
  let browser: Browser;
  let origin: string;
  let offset = 0;

  beforeAll(async () => {
    ensureDashboardBuilt();
    dns = await startDnsTxtServer();
    server = await startServer({
      env: { VIGIL_SSO_ALLOW_HTTP: 'true', VIGIL_SESSION_IDLE_MINUTES: '1', VIGIL_DNS_SERVERS: dns.address },
      clock: () => new Date(Date.now() + offset),
    });
    origin = new URL(server.api).origin;
    idp = await startOidcIdp([`${server.api}/sso/oidc/callback`]);
    const tenant = await server.createTenant('enterprise');
    const put = await call(`${server.api}/sso/config`, {
      method: 'PUT',
      headers: { 'X-API-Key': tenant.apiKey },
      json: {
        protocol: 'oidc',
        oidc: { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret },
        default_role: 'member',
        email_domains: ['idle.test'],
      },
    });
    expect(put.status, put.text).toBe(200);
    await proveEmailDomain(server.api, tenant.apiKey, dns, 'idle.test');
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await idp?.close();
    await server?.stop();
    await dns?.close();
  });

  it('keeps a session in use past its idle time, ends one left idle longer, and the dashboard then shows the sign-in page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    idp.user = { sub: 'idle-1', email: 'ida@idle.test', name: 'Ida', groups: [] };
    await page.goto(`${origin}/app/`);
    await page.getByLabel('Work email or tenant id').fill('ida@idle.test');
    await page.getByRole('button', { name: 'Sign in with your company (SSO)' }).click();
    await page.waitForURL(`${origin}/app/scans`);
    await expect.poll(() => page.locator('header').innerText()).toContain('ida@idle.test · member');
    const sessionStatus = () => page.evaluate(async () => (await fetch('/api/v1/session')).status);

    // Used every 45 s (three quarters of the idle minute): alive after 90 s, more than the idle time
    offset += 45_000;
    expect(await sessionStatus()).toBe(200);
    offset += 45_000;
    expect(await sessionStatus()).toBe(200);

    // Then left alone for more than the idle time: ended on the server, and the dashboard signs out at its next call
    offset += 61_000;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trends' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with your company (SSO)' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Signed out' }).innerText()).toMatch(/dashboard session has ended or expired/);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    const gone = await page.evaluate(async () => {
      const res = await fetch('/api/v1/session');
      return { status: res.status, body: (await res.json()) as { error: string } };
    });
    expect(gone).toMatchObject({ status: 401, body: { error: 'SESSION_EXPIRED' } });
    await context.close();
  });
});
