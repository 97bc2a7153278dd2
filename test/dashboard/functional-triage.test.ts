/**
 * Triage of functional findings in the dashboard, in a real Chromium against a real server: on a functional
 * scan's page an accessibility violation, a visual diff and a missed budget (the performance section's
 * budget lines) are suppressed with a reason (the Suppress action of the security findings), show as
 * suppressed (the API's results say so too) and are un-suppressed there.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { functionalFindingsEngine } from '../helpers/functional-findings.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';
import { ensureDashboardBuilt } from './helpers.js';

describe(`dashboard triage of functional findings (${storeLabel})`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let scanId: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer({ engines: { functional: functionalFindingsEngine, security: testEngine('security') } });
    key = (await server.createTenant('team')).apiKey;
    const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'https://shop.test', mode: 'functional' } });
    expect(started.status, started.text).toBe(202);
    scanId = started.body.scan_id;
    await waitForScan(server.api, key, scanId);
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30_000);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const results = async () => (await call(`${server.api}/scan/${scanId}/results`, { headers: { 'X-API-Key': key } })).body;

  it('suppresses a violation and a visual diff with a reason on the scan page, and un-suppresses them there', { timeout: 120_000 }, async () => {
    const origin = new URL(server.api).origin;
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator(`tr[data-scan-id="${scanId}"] a`).first().click();

    // An accessibility violation, from its details
    const violation = page.locator('details.finding[data-rule="color-contrast"][data-page="/checkout"]');
    await violation.locator('summary').first().click();
    await violation.getByRole('button', { name: 'Suppress', exact: true }).click();
    await violation.getByLabel('Reason').fill('Brand colours, accepted by design (UX-12)');
    await violation.locator('form.triage').getByRole('button', { name: 'Suppress', exact: true }).click();
    await violation.locator('.triage.suppressed', { hasText: 'Brand colours, accepted by design (UX-12)' }).waitFor();
    await violation.locator('summary', { hasText: 'suppressed' }).waitFor();
    expect((await results()).accessibility.violations[0].suppressed).toMatchObject({ reason: 'Brand colours, accepted by design (UX-12)', source: 'server' });
    // The other page's violation of another rule is untouched, and still offers the action
    expect((await results()).accessibility.violations[1].suppressed).toBeUndefined();

    // The visual diff of /checkout, from its card
    const diff = page.locator('article.visual[data-page="/checkout"]');
    await diff.getByRole('button', { name: 'Suppress', exact: true }).click();
    await diff.getByLabel('Reason').fill('Seasonal banner');
    await diff.locator('form.triage').getByRole('button', { name: 'Suppress', exact: true }).click();
    await diff.locator('.triage.suppressed', { hasText: 'Seasonal banner' }).waitFor();
    expect((await results()).visual_regression.comparisons[0].suppressed).toMatchObject({ reason: 'Seasonal banner', source: 'server' });
    // A page without a diff is no finding: nothing to suppress
    await expect.poll(() => page.locator('article.visual[data-page="/"]').getByRole('button', { name: 'Suppress', exact: true }).count()).toBe(0);

    // Un-suppress both where they are shown
    await diff.getByRole('button', { name: 'Un-suppress' }).click();
    await diff.getByRole('button', { name: 'Suppress', exact: true }).waitFor();
    await violation.getByRole('button', { name: 'Un-suppress' }).click();
    await violation.getByRole('button', { name: 'Suppress', exact: true }).waitFor();
    const after = await results();
    expect(after.visual_regression.comparisons[0].suppressed).toBeUndefined();
    expect(after.accessibility.violations[0].suppressed).toBeUndefined();
  });

  it("shows each page's budget lines in the performance section, and suppresses and un-suppresses a missed one there", { timeout: 120_000 }, async () => {
    const origin = new URL(server.api).origin;
    // A browser context of its own: signed in afresh, whatever the first test left.
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator(`tr[data-scan-id="${scanId}"] a`).first().click();

    const line = (metric: string) => page.locator(`table.budgets tr[data-page="/checkout"][data-budget="${metric}"]`);
    const cells = async (metric: string) => (await line(metric).locator('th, td').allInnerTexts()).slice(0, 6).map((t) => t.trim());
    await line('lcp').waitFor();
    expect(await cells('lcp')).toEqual(['/checkout', 'lcp', '3200 ms', '≤ 2500 ms', 'error', 'missed']);
    expect(await cells('tbt')).toEqual(['/checkout', 'tbt', '150 ms', '≤ 300 ms', 'error', 'passed']);
    expect(await cells('accessibility')).toEqual(['/checkout', 'accessibility', '80', '≥ 90', 'error', 'missed']);
    // A budget the page kept is no finding: nothing to suppress
    expect(await line('tbt').getByRole('button', { name: 'Suppress', exact: true }).count()).toBe(0);

    const a11yBudget = line('accessibility');
    await a11yBudget.getByRole('button', { name: 'Suppress', exact: true }).click();
    await a11yBudget.getByLabel('Reason').fill('Score target set for Q3');
    await a11yBudget.locator('form.triage').getByRole('button', { name: 'Suppress', exact: true }).click();
    await a11yBudget.locator('.triage.suppressed', { hasText: 'Score target set for Q3' }).waitFor();
    await a11yBudget.locator('.badge', { hasText: 'missed (suppressed)' }).waitFor();
    const lines = (await results()).performance.metrics[0].budgets;
    expect(lines[2].suppressed).toMatchObject({ reason: 'Score target set for Q3', source: 'server' });
    // The other missed budget of the page is untouched
    expect(lines[0].suppressed).toBeUndefined();
    await line('lcp').getByRole('button', { name: 'Suppress', exact: true }).waitFor();

    await a11yBudget.getByRole('button', { name: 'Un-suppress' }).click();
    await a11yBudget.getByRole('button', { name: 'Suppress', exact: true }).waitFor();
    expect((await results()).performance.metrics[0].budgets[2].suppressed).toBeUndefined();
  });
});
