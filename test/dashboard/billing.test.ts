import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { startBilling, type BillingHarness } from '../billing/harness.js';
import { storeLabel } from '../helpers/server.js';
import { ensureDashboardBuilt, screenshot } from './helpers.js';

/**
 * The dashboard's billing card against a server with a payment provider (the fake one the billing tests
 * use): plan and subscription status, Upgrade opens the provider's checkout and comes back to
 * /app/billing?checkout=success, Manage billing opens the portal. The provider's pages are stubbed in the
 * browser (no internet).
 */
describe(`dashboard billing with a payment provider (${storeLabel})`, () => {
  let billing: BillingHarness;
  let browser: Browser;
  let page: Page;
  let origin: string;
  let apiKey: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    billing = await startBilling();
    origin = new URL(billing.api).origin;
    ({ apiKey } = await billing.subscribedTenant('pro'));
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    const stub = (title: string) => ({
      status: 200,
      contentType: 'text/html',
      body: `<!doctype html><html lang="en"><title>${title}</title><h1>${title}</h1></html>`,
    });
    await page.route('https://checkout.provider.test/**', (route) => route.fulfill(stub('Provider checkout')));
    await page.route('https://billing.provider.test/**', (route) => route.fulfill(stub('Provider portal')));
  });
  afterAll(async () => {
    await browser?.close();
    await billing?.stop();
  });

  const openBilling = async () => {
    await page.goto(`${origin}/app/billing`);
    await page.getByRole('heading', { name: 'Plan and billing' }).waitFor();
  };

  it('shows the plan and subscription, and Upgrade starts a checkout that comes back to the dashboard', async () => {
    await page.goto(`${origin}/app/`);
    await page.fill('#key', apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
    await openBilling();
    await page.locator('.facts', { hasText: 'Subscription' }).getByText('active').waitFor();
    expect(await page.locator('.facts').first().textContent()).toContain('pro');
    await screenshot(page, '08-billing-configured');

    // The plan offered is the next one up from the current plan.
    expect(await page.locator('.card', { hasText: 'Plan and billing' }).locator('select').inputValue()).toBe('team');
    const request = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/billing/checkout');
    await page.getByRole('button', { name: 'Upgrade (checkout)' }).click();
    expect((await request).postDataJSON()).toEqual({
      plan: 'team',
      success_url: `${origin}/app/billing?checkout=success`,
      cancel_url: `${origin}/app/billing?checkout=cancel`,
    });
    await page.waitForURL(/^https:\/\/checkout\.provider\.test\/c\/pay\//);
    await page.getByRole('heading', { name: 'Provider checkout' }).waitFor();

    // The provider sends the user back to success_url: the tab is still signed in (remembered for the tab).
    await page.goto(`${origin}/app/billing?checkout=success`);
    await page.getByText(/Payment received/).waitFor();
  });

  it('Manage billing opens the provider portal with a return address into the dashboard', async () => {
    await openBilling();
    const request = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/billing/portal');
    await page.getByRole('button', { name: 'Manage billing (portal)' }).click();
    expect((await request).postDataJSON()).toEqual({ return_url: `${origin}/app/billing` });
    await page.waitForURL(/^https:\/\/billing\.provider\.test\/p\/session\//);
  });
});
