import { readFileSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { DASHBOARD_CSP } from '../../src/http/routes/dashboard.js';
import { startSite } from '../fixtures/site/server.js';
import { fixtureSpec, startFixture, TOKENS, type Fixture } from '../fixtures/vulnerable-api/server.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { ensureDashboardBuilt, firstPageScripts, screenshot, SCREENSHOT_DIR } from './helpers.js';

/**
 * The web dashboard end to end: a real server with the real engines, the built dashboard at /app, and a
 * real Chromium driving it as a person would: sign in, start scans from the form and watch them finish
 * live, open a diff and approve it, open a finding's evidence, rotate the key, and the refusals.
 * Screenshots of the main pages go to test-output/dashboard/ for review.
 */
describe(`web dashboard (${storeLabel})`, () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  let fixture: Fixture;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let key: string;
  let otherKey: string;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    site = await startSite();
    site.setLayout(0);
    fixture = await startFixture();
    server = await startServer({ engines: 'real' });
    origin = new URL(server.api).origin;
    key = (await server.createTenant('team')).apiKey;
    otherKey = (await server.createTenant('team')).apiKey;
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fixture?.close();
    await new Promise((r) => site?.server.close(r));
  });

  const signIn = async (apiKey: string) => {
    await page.goto(`${origin}/app/`);
    await page.fill('#key', apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };
  const nav = () => page.getByRole('navigation', { name: 'Main' });
  const scanIdFromUrl = async () => {
    await page.waitForURL(/\/app\/scans\/scn_[^/]+$/);
    return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  };
  const startFunctionalScan = async () => {
    await nav().getByRole('link', { name: 'New scan' }).click();
    await page.fill('input[name=url]', site.url);
    await page.check('input[name=mode][value=functional]');
    await page.fill('textarea[name=pages]', '/clean\n/violations\n/changing');
    await page.fill('input[name=viewport_width]', '800');
    await page.fill('input[name=viewport_height]', '600');
    await page.getByRole('button', { name: 'Start scan' }).click();
    return scanIdFromUrl();
  };
  /** On the scans list, without reloading the page: the row turns completed by itself. */
  const watchFinishOnList = async (scanId: string) => {
    await nav().getByRole('link', { name: 'Scans', exact: true }).click();
    await page.locator(`tr[data-scan-id="${scanId}"]`).waitFor();
    await page.locator(`tr[data-scan-id="${scanId}"][data-status="completed"]`).waitFor({ timeout: 240_000 });
  };

  it('serves the dashboard at /app: strict CSP, hashed assets cached for a year, index.html revalidated, deep links, / leads there', async () => {
    const index = await fetch(`${origin}/app/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toBe(DASHBOARD_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await index.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);

    const { files } = firstPageScripts();
    const asset = await fetch(`${origin}/app/${files[0]}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    const etag = asset.headers.get('etag')!;
    expect((await fetch(`${origin}/app/${files[0]}`, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const deep = await fetch(`${origin}/app/scans/scn_whatever`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    const missing = await fetch(`${origin}/app/assets/gone-123.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe('NOT_FOUND');
    const root = await fetch(`${origin}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');
  });

  it('the first page loads under 150 KB of gzipped JavaScript', () => {
    const { files, gzipBytes } = firstPageScripts();
    expect(files.length).toBeGreaterThan(0);
    console.log(`dashboard first-page JavaScript: ${files.join(', ')} = ${(gzipBytes / 1024).toFixed(1)} KB gzipped`);
    expect(gzipBytes).toBeLessThan(150 * 1024);
  });

  it('self-hosted links point into the dashboard: VIGIL_APP_URL defaults to <server>/app', async () => {
    expect(loadConfig({ PORT: '8080' }).appUrl).toBe('http://127.0.0.1:8080/app');
    expect(loadConfig({ PORT: '8080', VIGIL_PUBLIC_URL: 'https://vigil.example.com/' }).appUrl).toBe('https://vigil.example.com/app');
    expect(loadConfig({ VIGIL_APP_URL: 'https://dash.example' }).appUrl).toBe('https://dash.example');
    const free = await server.createTenant('free');
    const refused = await call(`${server.api}/scan`, { headers: { 'X-API-Key': free.apiKey }, json: { url: site.url, mode: 'security' } });
    expect(refused.status).toBe(402);
    expect(new URL(refused.body.upgrade_url).pathname).toBe('/app/billing');
  });

  it('refuses a malformed key and an unknown key with a clear message', async () => {
    await signIn('not-a-key');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not an API key: Vigil keys start with svc_pk_/);
    await signIn('svc_pk_thisKeyDoesNotExist0000000000');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/This key was refused/);
    await screenshot(page, '01-sign-in-refused');
  });

  it('signs in through the server (POST /session/key): the tab keeps no key, only the HttpOnly session cookie, and a reload stays signed in', async () => {
    const keySignIn = page.waitForResponse((r) => r.url().endsWith('/api/v1/session/key') && r.request().method() === 'POST');
    await signIn(key);
    expect((await keySignIn).status()).toBe(200);
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
    expect(page.url()).not.toContain(key);
    const stored = () => page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(await stored()).not.toContain('svc_pk_');
    const cookies = await context.cookies(origin);
    expect(cookies.find((c) => c.name === 'vigil_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // After sign-in, no request of the page carries the key: the session cookie does it all.
    const keyed: string[] = [];
    const watch = (request: Request) => {
      if (request.headers()['x-api-key'] || request.url().includes('api_key=')) keyed.push(request.url());
    };
    page.on('request', watch);
    await page.reload();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
    // The live socket is open on the cookie.
    await page.locator('header .live.on', { hasText: 'Live' }).waitFor();
    await expect.poll(() => page.locator('header .who').innerText()).toBe('API key · admin');
    page.off('request', watch);
    expect(keyed).toEqual([]);
    expect(await stored()).not.toContain('svc_pk_');
  });

  let firstScan: string;
  let secondScan: string;

  it('starts a functional scan of the fixture site from the form and watches it finish live on the list', { timeout: 300_000 }, async () => {
    firstScan = await startFunctionalScan();
    await watchFinishOnList(firstScan);
    const row = page.locator(`tr[data-scan-id="${firstScan}"]`);
    await expect(row.textContent()).resolves.toContain('functional');
    await screenshot(page, '02-scans-list');
  });

  it('opens the diff of the changed page (slider and onion skin) and approves it as the new baseline', { timeout: 300_000 }, async () => {
    site.setLayout(1);
    secondScan = await startFunctionalScan();
    await page.locator('[data-testid=scan-status]', { hasText: 'completed' }).waitFor({ timeout: 240_000 });
    const changed = page.locator('article.visual[data-page="/changing"]');
    await changed.waitFor();
    await expect(changed.textContent()).resolves.toMatch(/changed: [\d.]+ % > 0.5 %/);
    await expect(page.locator('article.visual[data-page="/clean"]').textContent()).resolves.toMatch(/unchanged/);
    await changed.getByRole('button', { name: 'Onion skin' }).click();
    await changed.getByRole('button', { name: 'Slider' }).click();
    await changed.locator('input[type=range]').fill('30');
    await changed.locator('img.over').waitFor();
    await page.getByRole('heading', { name: 'Accessibility', exact: true }).waitFor();
    await page.locator('details[data-rule]').first().waitFor();
    await page.locator('table.metrics tbody tr').first().waitFor();
    await screenshot(page, '03-functional-scan');

    await changed.getByRole('button', { name: /Approve current as baseline/ }).click();
    await changed.getByText(/Approved: the current screenshot is now the baseline of \/changing/).waitFor();
    const baselines = await call(`${server.api}/baselines?page_key=${encodeURIComponent('/changing')}`, { headers: { 'X-API-Key': key } });
    expect(baselines.status).toBe(200);
    expect(baselines.body.baselines.map((b: { scan_id: string }) => b.scan_id)).toContain(secondScan);
  });

  it('starts a security scan and opens a finding with its evidence, references and remediation', { timeout: 300_000 }, async () => {
    await nav().getByRole('link', { name: 'New scan' }).click();
    await page.fill('input[name=url]', `${fixture.url}/vuln`);
    await page.selectOption('select[name=auth_type]', 'bearer');
    await page.fill('input[name=auth_token]', TOKENS.vuln.alice);
    await page.fill('input[name=timeout]', '10');
    // The specification uploaded as a file: sent base64 in spec_content.
    const spec = JSON.stringify(fixtureSpec('vuln', `${fixture.url}/vuln`));
    await page.setInputFiles('input[name=spec_file]', { name: 'openapi.json', mimeType: 'application/json', buffer: Buffer.from(spec) });
    const startRequest = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/scan');
    await page.getByRole('button', { name: 'Start scan' }).click();
    const sent = (await startRequest).postDataJSON();
    expect(Buffer.from(sent.spec_content, 'base64').toString()).toBe(spec);
    expect(sent).toMatchObject({ url: `${fixture.url}/vuln`, mode: 'security', auth: { type: 'bearer', token: TOKENS.vuln.alice }, options: { timeout: 10 } });
    await scanIdFromUrl();
    await page.locator('[data-testid=scan-status]', { hasText: 'completed' }).waitFor({ timeout: 240_000 });
    await page.getByRole('heading', { name: 'Security', exact: true }).waitFor();
    // One identity only: what needed a second one was not tested, and the page says so first, above the counts and the findings.
    const notTested = page.getByTestId('not-tested');
    await notTested.waitFor();
    expect(await page.getByTestId('not-tested-headline').textContent()).toMatch(/check runs? (was|were) not tested\.$/);
    expect(await notTested.textContent()).toContain('no second identity');
    const before = (a: string, b: string) =>
      page.evaluate(
        ([x, y]) => Boolean(document.querySelector(x!)!.compareDocumentPosition(document.querySelector(y!)!) & Node.DOCUMENT_POSITION_FOLLOWING),
        [a, b],
      );
    expect(await before('[data-testid=not-tested]', 'dl.facts')).toBe(true);
    expect(await before('[data-testid=not-tested]', '#sec-title')).toBe(true);
    const finding = page.locator('details.finding[data-check]').first();
    await finding.locator('summary').first().click();
    await finding.getByText('Remediation').waitFor();
    await finding.locator('details.evidence summary').first().click();
    const evidence = (await finding.locator('details.evidence pre').first().textContent()) ?? '';
    expect(evidence.length).toBeGreaterThan(5);
    expect(await finding.locator('a', { hasText: /^CWE-\d+$/ }).count()).toBeGreaterThan(0);
    await screenshot(page, '04-security-scan');

    // Exports are fetched with the key in the header and saved from a blob: link.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV' }).click()]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const csvText = readFileSync((await csv.path())!, 'utf8');
    expect(csvText.split('\n').length).toBeGreaterThan(5);
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'JSON' }).click()]);
    expect(JSON.parse(readFileSync((await json.path())!, 'utf8'))).toMatchObject({ status: 'completed', mode: 'security' });
    // SARIF and JUnit come from the same report registry as the server's (GET /scan/{id}/reports/{format}).
    const [sarif] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'SARIF' }).click()]);
    expect(sarif.suggestedFilename()).toMatch(/\.sarif$/);
    expect(JSON.parse(readFileSync((await sarif.path())!, 'utf8')).runs[0].results.length).toBeGreaterThan(0);
    const [junit] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'JUnit' }).click()]);
    expect(junit.suggestedFilename()).toMatch(/\.xml$/);
    expect(readFileSync((await junit.path())!, 'utf8')).toContain('<testsuites');
    // Compliance per framework.
    await page.getByRole('button', { name: 'Show report' }).click();
    await page.getByRole('table', { name: /OWASP API Security Top 10 \(2023\): score/ }).waitFor();
    await page.getByLabel('Framework').selectOption('pci-dss-4');
    await page.getByRole('button', { name: 'Show report' }).click();
    await page.getByRole('table', { name: /PCI DSS/ }).waitFor();
  });

  it('another tenant\'s scan id in the address shows "not found"', async () => {
    const other = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': otherKey },
      json: { url: site.url, mode: 'functional', options: { pages: ['/clean'] } },
    });
    expect(other.status).toBe(202);
    await page.goto(`${origin}/app/scans/${other.body.scan_id}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain(`Scan ${other.body.scan_id} was not found`);
    await page.goto(`${origin}/app/scans/${'x'.repeat(80)}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.goto(`${origin}/app/scans/${firstScan}`);
    await page.locator('[data-testid=scan-status]', { hasText: 'completed' }).waitFor();
  });

  it('shows usage with the 80 % mark, history, and billing not configured (503) plainly; trends chart the target', async () => {
    await nav().getByRole('link', { name: 'Usage & billing' }).click();
    await page.getByRole('heading', { name: 'This period' }).waitFor();
    await page.locator('.meter-mark').first().waitFor();
    await page.getByText(/Billing is not configured on this server \(PAYMENT_NOT_CONFIGURED\)/).waitFor();
    await page.locator('.chart .uplot').first().waitFor();
    await screenshot(page, '05-usage-billing');
    await nav().getByRole('link', { name: 'Trends' }).click();
    await page.locator('.chart .uplot').first().waitFor();
    const siteTarget = await page
      .locator('select option')
      .evaluateAll((options, url) => options.map((o) => (o as HTMLOptionElement).value).find((v) => v.startsWith(url)), site.url);
    await page.selectOption('select', siteTarget!);
    await page.getByRole('img', { name: /Accessibility and performance scores/ }).waitFor();
    await page.getByRole('img', { name: /Pages with a visual diff. Diffs: 0, 1/ }).waitFor();
    await page.getByText(/The last \d+ completed scans? of/).waitFor();
    await screenshot(page, '06-trends');
  });

  it('has no serious or critical accessibility violation on its main pages (axe-core)', async () => {
    const pages = ['/app/scans', `/app/scans/${secondScan}`, '/app/scans/new', '/app/billing', '/app/trends'];
    for (const path of pages) {
      await page.goto(`${origin}${path}`);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const result = await new AxeBuilder({ page: page as never }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const serious = result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${path}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      expect(serious).toEqual([]);
    }
  });

  it('rotates the key: the new one is shown once and works, the old one is refused', async () => {
    await page.goto(`${origin}/app/billing`);
    await page.getByRole('button', { name: /Rotate the API key/ }).click();
    const reopened = page.waitForResponse((r) => r.url().endsWith('/api/v1/session/key'));
    await page.getByRole('button', { name: 'Rotate now' }).click();
    expect((await reopened).status()).toBe(200);
    const newKey = (await page.getByTestId('new-key').textContent())!.trim();
    expect(newKey).toMatch(/^svc_pk_/);
    expect(newKey).not.toBe(key);
    await screenshot(page, '07-key-rotated');
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': key } })).status).toBe(401);
    expect((await call(`${server.api}/usage`, { headers: { 'X-API-Key': newKey } })).status).toBe(200);
    // The rotation ended the old key's session; the tab carries on with a session of the new key (a reload
    // keeps it); after signing out, the old key is refused at sign-in.
    await page.reload();
    await nav().getByRole('link', { name: 'Scans', exact: true }).click();
    await page.locator(`tr[data-scan-id="${firstScan}"]`).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/This key was refused/);
    await page.fill('#key', newKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
  });

  it('ran without a Content-Security-Policy violation or an uncaught error', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
    console.log(`dashboard screenshots: ${SCREENSHOT_DIR}`);
  });
});
