/**
 * Triage in the dashboard, in a real Chromium against a real server: a finding of a scan is suppressed
 * with a reason from its findings list, shows as suppressed (the API's results say so too), is listed
 * on the Suppressions page and un-suppressed from there.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';
import type { ScanEngine } from '../../src/engines/engine.js';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';
import { ensureDashboardBuilt } from './helpers.js';

const BOLA: Task = {
  task_id: 'bola',
  name: 'Broken object level authorization',
  status: 'failed',
  severity: 'high',
  check: 'bola',
  endpoint: 'GET /users/{id}',
  parameter: 'id',
};
const findingEngine: ScanEngine = { kind: 'security', run: async (): Promise<EngineOutcome> => ({ tasks: [BOLA], agent_count: 1 }) };

describe(`dashboard triage (${storeLabel})`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let scanId: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer({ engines: { security: findingEngine, functional: testEngine('functional') } });
    key = (await server.createTenant('team')).apiKey;
    const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'https://api.triage.test', mode: 'security' } });
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

  const bolaMark = async () => (await call(`${server.api}/scan/${scanId}/results`, { headers: { 'X-API-Key': key } })).body.tasks[0].suppressed;

  it('suppresses a finding with a reason, lists it, and un-suppresses it', { timeout: 120_000 }, async () => {
    const origin = new URL(server.api).origin;
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The key lives in the tab's memory only: to the scan through the list, without a reload.
    await page.locator(`tr[data-scan-id="${scanId}"] a`).first().click();
    const finding = page.locator('details.finding[data-check="bola"]');
    await finding.locator('summary').first().click();
    await finding.getByRole('button', { name: 'Suppress' }).click();
    await finding.getByLabel('Reason').fill('Public profiles by design (SEC-142)');
    await finding.locator('form.triage').getByRole('button', { name: 'Suppress' }).click();
    await finding.getByText('Public profiles by design (SEC-142)').waitFor();
    expect(await bolaMark()).toMatchObject({ reason: 'Public profiles by design (SEC-142)', source: 'server' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Suppressions' }).click();
    const row = page.locator('tr', { hasText: 'Public profiles by design (SEC-142)' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Un-suppress' }).click();
    await page.getByText('No suppressions yet').waitFor();
    expect(await bolaMark()).toBeUndefined();
  });
});
