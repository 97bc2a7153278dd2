import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { ensureDashboardBuilt, SCREENSHOT_DIR } from './helpers.js';

/**
 * Vigil checks its own dashboard: a functional scan of the pages a visitor reaches without a key (the
 * sign-in page, under the dashboard's deep links) reports no serious or critical accessibility violation
 * and a performance score of at least 95 on loopback. The figures are written next to the screenshots.
 */
describe(`Vigil scans its own dashboard (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startServer({ engines: 'real' });
    key = (await server.createTenant('team')).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('no serious or critical accessibility violation, performance score >= 95', { timeout: 300_000 }, async () => {
    const origin = new URL(server.api).origin;
    const headers = { 'X-API-Key': key };
    const start = await call(`${server.api}/scan`, { headers, json: { url: `${origin}/app/`, mode: 'functional', options: { pages: ['/app/', '/app/scans', '/app/billing'] } } });
    expect(start.status, start.text).toBe(202);
    const status = await waitForScan(server.api, key, start.body.scan_id, undefined, 240_000);
    expect(status.status, status.failure_reason).toBe('completed');

    const a11y = await call(`${server.api}/scan/${start.body.scan_id}/accessibility`, { headers });
    const perf = await call(`${server.api}/scan/${start.body.scan_id}/performance`, { headers });
    expect(a11y.status).toBe(200);
    expect(perf.status).toBe(200);
    const figures = {
      pages: perf.body.pages.map((p: { page_url: string; performance_score: number; lcp_ms: number; cls: number; tbt_ms: number; rating: string }) => ({
        page: new URL(p.page_url).pathname,
        performance_score: p.performance_score,
        lcp_ms: p.lcp_ms,
        cls: p.cls,
        tbt_ms: p.tbt_ms,
        rating: p.rating,
      })),
      performance_score: perf.body.performance_score,
      accessibility_score: a11y.body.compliance_score,
      violations: a11y.body.violations.map((v: { rule: string; impact: string }) => `${v.rule} (${v.impact})`),
    };
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(join(SCREENSHOT_DIR, 'self-scan.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`dashboard self-scan: ${JSON.stringify(figures)}`);

    expect(a11y.body.pages_scanned).toBe(3);
    expect(a11y.body.violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(perf.body.pages_tested).toBe(3);
    expect(perf.body.performance_score).toBeGreaterThanOrEqual(95);
  });
});
