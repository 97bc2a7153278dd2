import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { startBilling, type BillingHarness } from '../billing/harness.js';
import { call, storeLabel } from '../helpers/server.js';
import { ensureDashboardBuilt, screenshot } from './helpers.js';

/**
 * A new customer's sign-up in the browser, against a server with the fake payment provider: the sign-in
 * page offers the plans, the chosen one starts a checkout (the provider's page is stubbed: no internet),
 * the test "pays" as the provider would (the session completes, the signed webhook is delivered) and
 * sends the tab back to the success address; the welcome page shows the key once and signs in with it.
 */
describe(`dashboard sign-up for a new customer (${storeLabel})`, () => {
  let billing: BillingHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    // A high per-address limit: with Redis the counters are shared by every test server of the run.
    billing = await startBilling({ VIGIL_SIGNUP_RATE_LIMIT: '100000' });
    origin = new URL(billing.api).origin;
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await context.route('https://checkout.provider.test/**', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><html lang="en"><title>Provider checkout</title><h1>Provider checkout</h1></html>',
      }),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await billing?.stop();
  });

  const seriousViolations = async (label: string) => {
    const result = await new AxeBuilder({ page: page as never }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  };

  it('choose a plan, pay, get the key once on the welcome page, sign in with it; a reload does not show it again', async () => {
    await page.goto(`${origin}/app/`);
    await page.getByRole('heading', { name: 'New to Vigil? Choose a plan' }).waitFor();
    expect(await seriousViolations('sign-in with plans')).toEqual([]);
    await screenshot(page, '09-sign-up-plans');
    // The plans with a configured price (the harness has none for enterprise).
    expect(await page.getByRole('radio').evaluateAll((radios) => radios.map((r) => (r as HTMLInputElement).value))).toEqual(['pro', 'team']);
    await page.getByRole('radio', { name: 'Team' }).check();
    const started = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/billing/signup');
    await page.getByRole('button', { name: 'Continue to checkout' }).click();
    expect((await started).postDataJSON()).toEqual({ plan: 'team' });
    await page.waitForURL(/^https:\/\/checkout\.provider\.test\/c\/pay\//);
    await page.getByRole('heading', { name: 'Provider checkout' }).waitFor();
    // The fake provider's checkout address ends with the session id.
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(billing.provider.sessions.get(sessionId)?.metadata).toMatchObject({ plan: 'team' });

    // Back on the success address before the provider's webhook: the page waits for it.
    const successUrl = billing.provider.successUrl(sessionId);
    expect(successUrl).toBe(`${origin}/app/welcome?session_id=${sessionId}`);
    await page.goto(successUrl);
    await page.getByRole('heading', { name: 'Finishing your checkout…' }).waitFor();
    const { session } = billing.provider.completeCheckout(sessionId, { email: 'new@customer.test' });
    expect((await billing.deliver(billing.event('checkout.session.completed', session))).body.outcome).toBe('applied');

    await page.getByRole('heading', { name: 'Your Vigil account is ready' }).waitFor();
    const apiKey = (await page.getByTestId('new-key').textContent())!.trim();
    expect(apiKey).toMatch(/^svc_pk_/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    expect(await seriousViolations('welcome')).toEqual([]);
    await screenshot(page, '10-welcome-key');
    // The claim token is gone from the tab; the key is in no storage and not in the address.
    const stored = await page.evaluate(() => ({
      signup: sessionStorage.getItem('vigil.signup'),
      session: JSON.stringify({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
    }));
    expect(JSON.parse(stored.signup!)).toEqual({ session_id: sessionId });
    expect(stored.session).not.toContain(apiKey);
    expect(stored.local).toBe('{}');
    expect(page.url()).not.toContain(apiKey);
    // The key works, on the plan bought.
    expect((await call(`${billing.api}/usage`, { headers: { 'X-API-Key': apiKey } })).status).toBe(200);
    expect((await billing.status(apiKey)).plan).toBe('team');

    await page.getByRole('button', { name: 'Sign in with this key' }).click();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/scans');
    expect(page.url()).not.toContain(apiKey);

    // The success address again (a reload, the back button): the key is not shown again.
    await page.goto(successUrl);
    await page.getByRole('heading', { name: 'Your key was already shown' }).waitFor();
    expect(await page.content()).not.toContain(apiKey);
    // The server would not hand it over again either.
    expect((await call(`${billing.api}/billing/checkout-sessions/${sessionId}/claim`, { json: { claim_token: 'x' } })).status).toBe(403);
  });

  it('another browser (no claim token) is told why no key is shown; a cancelled checkout says nothing was charged', async () => {
    const started = await call(`${billing.api}/billing/signup`, { json: { plan: 'pro' } });
    expect(started.status).toBe(200);
    const other = await browser.newContext();
    try {
      const elsewhere = await other.newPage();
      await elsewhere.goto(billing.provider.successUrl(started.body.session_id));
      await elsewhere.getByRole('heading', { name: 'This browser tab did not start this checkout' }).waitFor();
      expect(await elsewhere.content()).not.toContain('svc_pk_');
      await elsewhere.goto(billing.provider.sessions.get(started.body.session_id)!.cancel_url);
      await elsewhere.getByText(/Checkout cancelled: nothing was charged/).waitFor();
      await elsewhere.getByRole('heading', { name: 'New to Vigil? Choose a plan' }).waitFor();
    } finally {
      await other.close();
    }
  });
});
