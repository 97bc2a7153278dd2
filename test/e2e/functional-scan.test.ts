import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { startSite } from '../fixtures/site/server.js';
import { startMisbehavingSite } from '../fixtures/misbehaving-site/server.js';
import { pageRating, performanceScore } from '../../src/engines/functional/performance/score.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The functional engine end to end: real Chromium behind the API. Functional and full scans, the
 * three sub-reports, baseline set then compared then reset, and the signed image links.
 */
describe(`functional scans through the API (${storeLabel})`, () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let server: TestServer;
  let key: string;
  let otherKey: string;
  let otherTenant: string;
  let clockOffsetMs = 0;
  const headers = (k = key) => ({ 'X-API-Key': k });

  beforeAll(async () => {
    site = await startSite();
    site.setLayout(0);
    server = await startServer({ engines: 'real', clock: () => new Date(Date.now() + clockOffsetMs) });
    key = (await server.createTenant('team')).apiKey;
    ({ apiKey: otherKey, tenantId: otherTenant } = await server.createTenant('team'));
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => site?.server.close(r));
  });

  async function functionalScan(extra: Record<string, unknown> = {}, k = key) {
    const start = await call(`${server.api}/scan`, {
      headers: headers(k),
      json: { url: site.url, mode: 'functional', options: { pages: ['/clean', '/violations', '/changing'], viewport: { width: 800, height: 600 } }, ...extra },
    });
    expect(start.status, start.text).toBe(202);
    expect(start.body.mode).toBe('functional');
    const status = await waitForScan(server.api, k, start.body.scan_id, undefined, 120_000);
    expect(status.status, status.failure_reason).toBe('completed');
    return start.body.scan_id as string;
  }
  const report = async (scanId: string, which: string, k = key) => call(`${server.api}/scan/${scanId}/${which}`, { headers: headers(k) });
  const pageOf = (body: any, path: string) => body.pages.find((p: any) => new URL(p.page_url).pathname === path);

  let firstScan: string;
  let diffScan: string;

  it('first scan: sets the baselines, audits accessibility and measures performance', async () => {
    firstScan = await functionalScan();
    const summary = await report(firstScan, 'functional-results');
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ scan_id: firstScan, status: 'completed', mode: 'functional', total: 9 });
    expect(summary.body.passed + summary.body.failed).toBe(9);
    expect(summary.body.visual_regression).toMatchObject({ comparisons: 3, diffs_detected: 0, diff_threshold_percent: 0.5 });
    expect(summary.body.accessibility.pages_scanned).toBe(3);
    expect(summary.body.accessibility.violations).toBeGreaterThan(0);
    expect(summary.body.performance.pages_tested).toBe(3);

    const visual = await report(firstScan, 'visual-regression');
    expect(visual.status).toBe(200);
    for (const page of visual.body.pages) {
      expect(page.diff_detected).toBe(false);
      expect(page.diff_percent).toBe(0);
      expect(page.diff_image).toBeNull();
      expect(page.screenshot_before).toMatch(/\/api\/v1\/artifacts\//);
    }

    const a11y = await report(firstScan, 'accessibility');
    expect(a11y.status).toBe(200);
    expect(a11y.body.wcag_level).toBe('wcag21aa');
    expect(pageOf(a11y.body, '/clean').violations).toBe(0);
    expect(pageOf(a11y.body, '/clean').compliance_score).toBe(100);
    expect(pageOf(a11y.body, '/violations').violations).toBeGreaterThanOrEqual(2);
    expect(pageOf(a11y.body, '/violations').compliance_score).toBeLessThan(100);
    const rules = a11y.body.violations.filter((v: any) => new URL(v.page_url).pathname === '/violations').map((v: any) => v.rule);
    expect(rules).toEqual(expect.arrayContaining(['image-alt', 'color-contrast']));
    for (const v of a11y.body.violations) {
      expect(v.impact).toMatch(/^(critical|serious|moderate|minor)$/);
      expect(v.wcag).toMatch(/^\d\.\d\.\d+/);
      expect(v.help_url).toMatch(/^https:\/\/dequeuniversity\.com\//);
      expect(v.elements_affected).toBeGreaterThan(0);
    }
    expect(a11y.body.total_violations).toBe(a11y.body.violations.length);

    const perf = await report(firstScan, 'performance');
    expect(perf.status).toBe(200);
    expect(perf.body.pages_tested).toBe(3);
    expect(perf.body.pages.map((p: any) => new URL(p.page_url).pathname)).toEqual(['/clean', '/violations', '/changing']);
    for (const page of perf.body.pages) {
      // Every page paints its text: first paint after navigation, largest paint and interactivity not before it.
      expect(page.fcp_ms).toBeGreaterThan(0);
      expect(page.lcp_ms).toBeGreaterThanOrEqual(page.fcp_ms);
      expect(page.tti_ms).toBeGreaterThanOrEqual(page.fcp_ms);
      // Score and rating are those of the page's own metrics (desktop curves).
      expect(page.performance_score).toBe(performanceScore(page, 'desktop'));
      expect(page.rating).toBe(pageRating(page));
    }
    // Static HTML in one response, no script, image or font: nothing moves after the first paint.
    for (const path of ['/clean', '/changing']) expect(pageOf(perf.body, path).cls, path).toBe(0);
    const scores = perf.body.pages.map((p: any) => p.performance_score);
    expect(perf.body.performance_score).toBe(Math.round((scores.reduce((a: number, b: number) => a + b, 0) / scores.length) * 10) / 10);
  }, 180_000);

  it('second scan: compares against the baseline and produces a diff image for the changed page only', async () => {
    site.setLayout(1);
    diffScan = await functionalScan();
    const visual = await report(diffScan, 'visual-regression');
    expect(visual.body.diffs_detected).toBe(1);
    const changed = pageOf(visual.body, '/changing');
    expect(changed.diff_detected).toBe(true);
    expect(changed.diff_percent).toBeGreaterThan(0.5);
    expect(changed.diff_image).toMatch(/\/api\/v1\/artifacts\//);
    expect(changed.screenshot_before).not.toBe(changed.screenshot_after);
    const clean = pageOf(visual.body, '/clean');
    expect(clean.diff_detected).toBe(false);
    expect(clean.diff_image).toBeNull();

    const results = await call(`${server.api}/scan/${diffScan}/results`, { headers: headers() });
    const task = results.body.tasks.find((t: any) => t.name === 'Visual regression: /changing');
    expect(task).toMatchObject({ status: 'failed' });
    expect(task.error).toMatch(/% of pixels changed/);
  }, 180_000);

  it('reset_baseline replaces the baseline; the next scan compares against the new one', async () => {
    await functionalScan({ reset_baseline: true });
    const after = await functionalScan();
    const visual = await report(after, 'visual-regression');
    expect(visual.body.diffs_detected).toBe(0);
    expect(pageOf(visual.body, '/changing').diff_detected).toBe(false);
    site.setLayout(0);
  }, 240_000);

  it('image links load without a key, and refuse other tenants, tampering and expiry', async () => {
    const visual = await report(diffScan, 'visual-regression');
    const changed = pageOf(visual.body, '/changing');
    for (const link of [changed.screenshot_before, changed.screenshot_after, changed.diff_image]) {
      const res = await fetch(link);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await res.arrayBuffer()).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    }

    // The other tenant sees neither the scan nor, by rewriting the link, the image.
    expect((await report(diffScan, 'visual-regression', otherKey)).status).toBe(404);
    const forged = new URL(changed.diff_image);
    forged.searchParams.set('tenant', otherTenant);
    const refused = await call(forged.toString());
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('LINK_INVALID');

    const tampered = new URL(changed.diff_image);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 86_400));
    expect((await call(tampered.toString())).body.error).toBe('LINK_INVALID');

    clockOffsetMs = (server.config.artifactLinkSeconds + 60) * 1000;
    try {
      const expired = await call(changed.diff_image);
      expect(expired.status).toBe(403);
      expect(expired.body.error).toBe('LINK_EXPIRED');
      // A fresh report hands out fresh links.
      const fresh = pageOf((await report(diffScan, 'visual-regression')).body, '/changing');
      expect((await fetch(fresh.diff_image)).status).toBe(200);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('a full scan runs the security checks and the functional pages in one scan', async () => {
    const spec = {
      openapi: '3.0.3',
      info: { title: 'site', version: '1' },
      paths: { '/clean': { get: { responses: { '200': { description: 'page' } } } } },
    };
    const start = await call(`${server.api}/scan`, {
      headers: headers(),
      json: { url: site.url, mode: 'full', spec_content: Buffer.from(JSON.stringify(spec)).toString('base64'), options: { pages: ['/clean'] } },
    });
    expect(start.status, start.text).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 180_000);
    expect(status.status, status.failure_reason).toBe('completed');
    const results = await call(`${server.api}/scan/${start.body.scan_id}/results`, { headers: headers() });
    const kinds = new Set(results.body.tasks.map((t: any) => t.kind));
    expect(kinds).toEqual(new Set(['security', 'functional']));
    expect(results.body.accessibility.pages_scanned).toBe(1);
    expect(results.body.performance.pages_tested).toBe(1);
    const summary = await report(start.body.scan_id, 'functional-results');
    expect(summary.body.mode).toBe('full');
    expect(summary.body.total).toBe(3);
    for (const which of ['visual-regression', 'accessibility', 'performance']) expect((await report(start.body.scan_id, which)).status).toBe(200);
  }, 240_000);

  it('POST /functional/run starts a functional scan; advanced profiles need team or above', async () => {
    const run = await call(`${server.api}/functional/run`, {
      headers: headers(),
      json: { url: site.url, options: { pages: ['/violations'], accessibility_profile: 'wcag22aa' } },
    });
    expect(run.status, run.text).toBe(202);
    expect(run.body.mode).toBe('functional');
    const status = await waitForScan(server.api, key, run.body.scan_id, undefined, 120_000);
    expect(status.status).toBe('completed');
    expect((await report(run.body.scan_id, 'accessibility')).body.wcag_level).toBe('wcag22aa');

    const pro = (await server.createTenant('pro')).apiKey;
    const refused = await call(`${server.api}/scan`, {
      headers: headers(pro),
      json: { url: site.url, mode: 'functional', options: { accessibility_profile: 'section508' } },
    });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe('FEATURE_NOT_AVAILABLE');
  }, 180_000);

  it('misbehaving pages: a hung image is measured with a warning, a PDF is refused; a scan with no loadable page fails with the reasons', async () => {
    const bad = await startMisbehavingSite();
    try {
      const scan = async (pages: string[]) => {
        const start = await call(`${server.api}/scan`, { headers: headers(), json: { url: bad.url, mode: 'functional', options: { pages, timeout: 5 } } });
        expect(start.status, start.text).toBe(202);
        return waitForScan(server.api, key, start.body.scan_id, undefined, 120_000);
      };
      const mixed = await scan(['/hung-image', '/report.pdf']);
      expect(mixed.status, mixed.failure_reason).toBe('completed');
      const results = await call(`${server.api}/scan/${mixed.scan_id}/results`, { headers: headers() });
      expect(results.body.warnings).toEqual([
        `${bad.url}/hung-image: the page did not finish loading within 5 s (options.timeout); it was measured and audited as it was then`,
      ]);
      expect(results.body.performance.pages_tested).toBe(1);
      const pdf = results.body.tasks.filter((t: any) => t.name.endsWith('/report.pdf'));
      expect(pdf.map((t: any) => [t.status, t.error])).toEqual(Array(3).fill(['failed', 'not an HTML page (application/pdf); not audited']));

      const none = await scan(['/gone', '/api/data.json']);
      expect(none.status).toBe('failed');
      expect(none.failure_reason).toBe(
        `No page could be loaded, so nothing was tested (${bad.url}/gone: HTTP 410; ${bad.url}/api/data.json: not an HTML page (application/json); not audited).`,
      );
      const summary = await report(none.scan_id, 'functional-results');
      expect(summary.body.accessibility.compliance_score).toBeNull();
      expect(summary.body.performance.performance_score).toBeNull();
    } finally {
      await bad.close();
    }
  }, 240_000);
});

describe(`hosted functional scans stay off the hosting network (${storeLabel})`, () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let server: TestServer;
  beforeAll(async () => {
    site = await startSite();
    server = await startServer({
      engines: 'real',
      env: { VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk_test_unused', PAYMENT_WEBHOOK_SECRET: 'whsec_unused' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => site?.server.close(r));
  });

  it('fails a functional scan of a loopback or localhost target with TARGET_BLOCKED', async () => {
    const { apiKey } = await server.createTenant('pro');
    for (const url of [site.url, site.url.replace('127.0.0.1', 'localhost')]) {
      const start = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url, mode: 'functional', options: { pages: ['/clean'] } } });
      expect(start.status, start.text).toBe(202);
      const status = await waitForScan(server.api, apiKey, start.body.scan_id, undefined, 60_000);
      expect(status.status).toBe('failed');
      expect(status.failure_reason).toMatch(/non-public/);
    }
  });
});
