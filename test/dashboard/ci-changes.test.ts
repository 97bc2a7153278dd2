/**
 * A scan started from CI in the dashboard, in a real Chromium against a real server: the scan page shows
 * its branch, commit and pull request (linked), and what changed since the previous scan of its target
 * and branch (new, fixed, still open); a still-open finding is suppressed with a reason from there and
 * un-suppressed again (the API's changes say so); the scans list filters by the branch.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';
import type { ScanEngine } from '../../src/engines/engine.js';
import { LAUNCH_ARGS, resolveChromium } from '../../src/engines/functional/browser.js';
import { until } from '../helpers/until.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';
import { ensureDashboardBuilt, screenshot } from './helpers.js';

const plan = { next: [] as string[] };
const plannedEngine: ScanEngine = {
  kind: 'security',
  run: async (): Promise<EngineOutcome> => ({
    tasks: plan.next.map(
      (check, i): Task => ({ task_id: `t${i}`, name: `Finding ${check}`, status: 'failed', severity: 'high', check, endpoint: `GET /${check}` }),
    ),
    agent_count: 1,
  }),
};
const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const TARGET = 'https://api.ci-changes.test';

describe(`dashboard: CI metadata and changes since the previous scan (${storeLabel})`, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let mainScan: string;
  let featureScan: string;

  async function scan(checks: string[], ci: Record<string, unknown>): Promise<string> {
    plan.next = checks;
    const started = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: TARGET, mode: 'security', ci } });
    expect(started.status, started.text).toBe(202);
    await waitForScan(server.api, key, started.body.scan_id);
    return started.body.scan_id;
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer({ engines: { security: plannedEngine, functional: testEngine('functional') } });
    key = (await server.createTenant('team')).apiKey;
    mainScan = await scan(['a', 'b'], { provider: 'github', branch: 'main', commit: 'e83c5163316f89bfbde7d9ab23ca2e25604af290' });
    featureScan = await scan(['b', 'c'], {
      provider: 'github',
      repository: 'acme/shop',
      repository_url: 'https://github.com/acme/shop',
      branch: 'feature/login',
      base_branch: 'main',
      commit: SHA,
      pr: 7,
      run_url: 'https://github.com/acme/shop/actions/runs/1',
    });
    browser = await chromium.launch({ executablePath: resolveChromium(), args: LAUNCH_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30_000);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const stillOpenMark = async () => (await call(`${server.api}/scan/${featureScan}/changes`, { headers: { 'X-API-Key': key } })).body.still_open[0].suppressed;

  it('shows the branch, commit and pull request, the new, fixed and still-open findings, and suppresses and un-suppresses from there', {
    timeout: 120_000,
  }, async () => {
    const origin = new URL(server.api).origin;
    await page.goto(`${origin}/app/`);
    await page.fill('#key', key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The list names each scan's branch, linked to the target's scans on that branch.
    const row = page.locator(`tr[data-scan-id="${featureScan}"]`);
    await expect.poll(() => row.getByTestId('scan-branch').textContent()).toContain('feature/login');
    await row.getByTestId('scan-branch').getByRole('link', { name: 'feature/login' }).click();
    await page.getByTestId('branch-filter').waitFor();
    await expect.poll(() => page.locator('tr[data-scan-id]').count()).toBe(1);
    await page.locator(`tr[data-scan-id="${featureScan}"] a`).first().click();

    await expect.poll(() => page.getByTestId('ci-branch').textContent()).toBe('feature/login into main');
    expect(await page.getByTestId('ci-commit').textContent()).toBe(SHA.slice(0, 7));
    expect(await page.getByTestId('ci-commit').getByRole('link').getAttribute('href')).toBe(`https://github.com/acme/shop/commit/${SHA}`);
    expect(await page.getByTestId('ci-pr').getByRole('link', { name: '#7' }).getAttribute('href')).toBe('https://github.com/acme/shop/pull/7');

    await expect.poll(() => page.getByTestId('changes-previous').textContent()).toContain(mainScan);
    expect(await page.getByTestId('changes-previous').textContent()).toContain('the latest scan of the base branch');
    expect(await page.getByTestId('changes-new').locator('li').allTextContents()).toEqual([expect.stringContaining('Finding c')]);
    expect(await page.getByTestId('changes-fixed').locator('li').allTextContents()).toEqual([expect.stringContaining('Finding a')]);
    // A finding gone from this scan is not suppressed from here (nothing to accept).
    expect(await page.getByTestId('changes-fixed').getByRole('button').count()).toBe(0);
    const open = page.getByTestId('changes-open');
    expect(await open.locator('li').allTextContents()).toEqual([expect.stringContaining('Finding b')]);
    await screenshot(page, 'scan-ci-changes');

    await open.getByRole('button', { name: 'Suppress' }).click();
    await open.getByLabel('Reason').fill('Known, fixed in SEC-9');
    await open.locator('form.triage').getByRole('button', { name: 'Suppress' }).click();
    await open.getByText('Known, fixed in SEC-9').waitFor();
    expect(await stillOpenMark()).toMatchObject({ reason: 'Known, fixed in SEC-9', source: 'server' });

    await open.getByRole('button', { name: 'Un-suppress' }).click();
    await open.getByRole('button', { name: 'Suppress' }).waitFor();
    await until(async () => (await stillOpenMark()) === undefined, 'the changes of the scan to show the finding un-suppressed');
  });
});
