import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { ensureDashboardBuilt } from './helpers.js';

/**
 * The scans list and the live socket in the browser, with the test engine (fast, steered by the target's
 * query string): pages, filters in the address, cancel from the list, and the usage page refreshed by the
 * usage_update a finishing scan sends over /ws/live (that page does not poll).
 */
describe(`dashboard scans list and live updates (${storeLabel})`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let origin: string;
  let key: string;
  const A = 'http://a.test/?delay_ms=10';
  const B = 'http://b.test/?delay_ms=10';

  const start = async (url: string, mode = 'security') => {
    const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url, mode } });
    expect(res.status, res.text).toBe(202);
    return res.body.scan_id as string;
  };

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer();
    origin = new URL(server.api).origin;
    key = (await server.createTenant('enterprise')).apiKey;
    for (let i = 0; i < 20; i += 1) await waitForScan(server.api, key, await start(A));
    for (let i = 0; i < 3; i += 1) await waitForScan(server.api, key, await start(B, 'functional'));
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const rows = () => page.locator('table.scans tbody tr');

  it('pages through the list, 20 to a page, most recent first', async () => {
    await page.getByText('Page 1 of 2').waitFor();
    expect(await rows().count()).toBe(20);
    expect(await rows().first().locator('td').nth(1).textContent()).toBe('functional');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect.poll(() => rows().count()).toBe(3);
  });

  it('filters by mode and by target, in the address', async () => {
    await page.getByLabel('Mode').selectOption('functional');
    await page.waitForURL(/mode=functional/);
    await expect.poll(() => rows().count()).toBe(3);
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.getByLabel('Target').fill(A);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/target=/);
    await expect.poll(async () => (await rows().locator('td.target a').allTextContents()).every((t) => t === A) && (await rows().count()) === 20).toBe(true);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No scans match these filters').waitFor();
    await page.getByRole('link', { name: 'Clear filters' }).click();
  });

  it('cancels a running scan from the list; its row follows it live', { timeout: 120_000 }, async () => {
    const hanging = await start('http://a.test/?outcome=hang');
    const row = page.locator(`tr[data-scan-id="${hanging}"]`);
    // Started elsewhere (the API): the idle list picks it up by itself.
    await row.locator('progress').waitFor();
    await row.getByRole('button', { name: `Cancel scan ${hanging}` }).click();
    await page.locator(`tr[data-scan-id="${hanging}"][data-status="cancelled"]`).waitFor();
    expect((await call(`${server.api}/scan/${hanging}`, { headers: { 'X-API-Key': key } })).body.status).toBe('cancelled');
  });

  it('the usage page is refreshed by the usage_update of a scan that finishes', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage & billing' }).click();
    const meter = page.locator('.meter-row', { hasText: 'Functional scans' });
    await meter.waitFor();
    const before = Number(/(\d+) \//.exec((await meter.textContent()) ?? '')![1]);
    await page.locator('header .live.on').waitFor();
    const scanId = await start('http://b.test/?delay_ms=300', 'functional');
    await meter.getByText(`${before + 1} / unlimited`).waitFor();
    expect((await waitForScan(server.api, key, scanId)).status).toBe('completed');
  });

  it('sets a notification channel; the API keeps it and shows only its scheme and host', async () => {
    const card = page.locator('.card', { hasText: 'Notifications' });
    await card.getByText('No channels.').waitFor();
    await card.getByLabel('Kind').selectOption('webhook');
    await card.getByLabel('Webhook URL').fill('http://127.0.0.1:9/hooks/secret-path');
    await card.getByLabel('scan_failed').check();
    await card.getByRole('button', { name: 'Save channel' }).click();
    await card.getByText('Saved.').waitFor();
    const listed = await card.locator('ul li').first().textContent();
    expect(listed).toContain('webhook');
    expect(listed).not.toContain('secret-path');
    const settings = await call(`${server.api}/notifications`, { headers: { 'X-API-Key': key } });
    expect(settings.body.channels).toMatchObject([{ kind: 'webhook', events: ['scan_failed'] }]);
  });
});

describe(`dashboard on the free plan (${storeLabel})`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let origin: string;
  let key: string;
  let lastScan: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer();
    origin = new URL(server.api).origin;
    key = (await server.createTenant('free')).apiKey;
    // 41 of the 50 functional scans: above the 80 % mark.
    for (let i = 0; i < 41; i += 1) {
      const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://a.test/?delay_ms=5', mode: 'functional' } });
      expect(res.status, res.text).toBe(202);
      lastScan = res.body.scan_id;
      await waitForScan(server.api, key, lastScan);
    }
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Scans', exact: true }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the quota above the 80 % mark and the approaching_limit alert', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage & billing' }).click();
    const meter = page.locator('.meter-row', { hasText: 'Functional scans' });
    await meter.getByText('41 / 50 (over 80 %)').waitFor();
    expect(await meter.locator('.meter.m-warn').count()).toBe(1);
    // The free plan's API-specification quota (1), untouched by functional scans
    await page.locator('.meter-row', { hasText: 'API specifications' }).getByText('0 / 1').waitFor();
    await page.getByText('A quota is more than 80 % used.').waitFor();
    await page.locator('.card', { hasText: 'Alerts' }).getByText('approaching_limit').waitFor();
  });

  it('a detailed report the plan lacks is explained, with a link to upgrade in the dashboard', async () => {
    await page.goto(`${origin}/app/scans/${lastScan}`);
    await page.locator('[data-testid=scan-status]', { hasText: 'completed' }).waitFor();
    const refusal = page.getByRole('alert').filter({ hasText: 'FEATURE_NOT_AVAILABLE' }).first();
    await refusal.waitFor();
    const link = refusal.getByRole('link', { name: 'See plans and upgrade' });
    expect(await link.getAttribute('href')).toBe('/app/billing?upgrade=pro');
    await link.click();
    await page.getByText('That feature needs the pro plan or above.').waitFor();
  });
});
