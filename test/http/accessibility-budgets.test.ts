/**
 * Accessibility budgets judged by the server (issue 29, item 2): a scan with `accessibility>=N` in
 * options.budgets lists the line on each page's budget lines (the page's own accessibility score), fails
 * the page's accessibility task on a missed `error` line and passes the page that keeps it; the missed
 * line carries its fingerprint (`budget/accessibility` on the page), a server-side suppression marks it,
 * and the CLI's gate then takes the server's line as suppressed instead of failing on it. The real
 * functional engine against the fixture site (axe's verdicts do not depend on the machine's speed).
 * Runs on the store the environment selects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, type GateOptions } from '../../src/cli/gate.js';
import type { Budget } from '../../src/domain/budgets.js';
import { functionalFingerprint } from '../../src/domain/suppressions.js';
import { startSite } from '../fixtures/site/server.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

describe(`accessibility budgets judged by the server (${storeLabel})`, () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof startSite>>;
  const as = { 'X-API-Key': '' };
  let clean: string;
  let bad: string;
  let scanId: string;
  /** Between the two pages' scores: /clean (no violation) keeps it, /violations (three rules violated) misses it. */
  const BUDGETS: Budget[] = [{ metric: 'accessibility', min: 95, level: 'error' }];
  const results = async () => (await call(`${server.api}/scan/${scanId}/results`, { headers: as })).body;
  /** The CLI's gate over a results body with these budgets, accessibility violations out of the way. */
  const gate = (body: Record<string, unknown>) =>
    judge(body, {
      failOn: 'none',
      failOnA11y: 'none',
      failOnVisual: false,
      budgets: BUDGETS,
      suppressions: [],
      baseline: null,
      today: new Date().toISOString().slice(0, 10),
    } satisfies GateOptions);
  const linesOf = (body: Record<string, any>, url: string) =>
    (body.performance.metrics as Array<{ page_url: string; budgets?: Array<Record<string, any>> }>).find((p) => p.page_url === url)?.budgets ?? [];

  beforeAll(async () => {
    site = await startSite();
    clean = `${site.url}/clean`;
    bad = `${site.url}/violations`;
    server = await startServer({ engines: 'real' });
    const t = await server.createTenant('enterprise');
    as['X-API-Key'] = t.apiKey;
    const started = await call(`${server.api}/scan`, {
      headers: as,
      json: { url: site.url, mode: 'functional', options: { pages: [clean, bad], throttling: 'none', budgets: BUDGETS } },
    });
    expect(started.status, started.text).toBe(202);
    scanId = started.body.scan_id;
    const done = await waitForScan(server.api, t.apiKey, scanId, undefined, 180_000);
    expect(done.status).toBe('completed');
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    site?.server.close();
  });

  it("lists the line on each page with the page's own accessibility score, and fails the accessibility task of the page that misses it", async () => {
    const body = await results();
    const a11y = await call(`${server.api}/scan/${scanId}/accessibility`, { headers: as });
    expect(a11y.status, a11y.text).toBe(200);
    const scoreOf = (url: string) =>
      (a11y.body.pages as Array<{ page_url: string; compliance_score: number }>).find((p) => p.page_url === url)!.compliance_score;
    expect(scoreOf(clean)).toBeGreaterThanOrEqual(95);
    expect(scoreOf(bad)).toBeLessThan(95);

    expect(linesOf(body, clean)).toEqual([{ metric: 'accessibility', actual: scoreOf(clean), limit: 95, kind: 'min', level: 'error', passed: true }]);
    expect(linesOf(body, bad)).toEqual([
      {
        metric: 'accessibility',
        actual: scoreOf(bad),
        limit: 95,
        kind: 'min',
        level: 'error',
        passed: false,
        fingerprint: functionalFingerprint('budget/accessibility', bad),
      },
    ]);

    const task = (name: string) => (body.tasks as Array<{ name: string; status: string; error?: string }>).find((t) => t.name === name)!;
    expect(task('Accessibility (wcag21aa): /violations')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(`over budget: accessibility ${scoreOf(bad)} (limit >= 95)`),
    });
    expect(task('Accessibility (wcag21aa): /clean').status).toBe('passed');
    // The performance task does not judge the accessibility budget.
    for (const page of ['/clean', '/violations']) expect(task(`Performance: ${page}`).error ?? '').not.toContain('accessibility');
  });

  it('a server-side suppression of the line marks it, and the CLI gate then counts it suppressed instead of failing', async () => {
    const key = functionalFingerprint('budget/accessibility', bad);
    const before = gate(await results());
    expect(before.failing.map((i) => i.key)).toEqual([key]);
    expect(before.budgetViolations).toEqual([{ page: bad, metric: 'accessibility', actual: expect.any(Number), limit: '>= 95', level: 'error' }]);
    expect(before.exit).toBe(1);

    const made = await call(`${server.api}/suppressions`, {
      headers: as,
      json: { fingerprint: key.slice(0, 10), reason: 'Legacy form, redesign in Q3' },
    });
    expect(made.status, made.text).toBe(201);
    const body = await results();
    expect(linesOf(body, bad)[0]!.suppressed).toMatchObject({ reason: 'Legacy form, redesign in Q3', source: 'server' });
    const after = gate(body);
    expect(after.failing).toEqual([]);
    expect(after.suppressed.map(({ item, suppression }) => [item.key, suppression.origin, suppression.reason])).toEqual([
      [key, 'server', 'Legacy form, redesign in Q3'],
    ]);
    expect(after.exit).toBe(0);

    expect((await call(`${server.api}/suppressions/${made.body.suppression_id}`, { method: 'DELETE', headers: as })).status).toBe(204);
    expect(linesOf(await results(), bad)[0]!.suppressed).toBeUndefined();
  });
});
