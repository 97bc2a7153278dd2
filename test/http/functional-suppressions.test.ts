/**
 * Server-side suppressions of functional findings (issue 29): an accessibility violation, a visual diff and
 * a missed performance budget carry their fingerprint (check `a11y/<rule>`, `visual` or `budget/<metric>`
 * on the page's path, the one the CLI prints), a suppression made with POST /suppressions by that
 * fingerprint (or a prefix) marks them `suppressed` in the results body and the functional sub-reports,
 * the CLI's gate reads those marks, and every report format (SARIF, JUnit, CSV, HTML) shows them, with
 * the page's task suppressed once all its findings are. Runs on the store the environment selects.
 */
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, type GateOptions } from '../../src/cli/gate.js';
import { serverSuppressions } from '../../src/cli/suppressions.js';
import type { Task } from '../../src/domain/scan.js';
import { functionalFingerprint } from '../../src/domain/suppressions.js';
import { parseCsv, textContent } from '../reports/parse.js';
import { functionalFindingsEngine, OTHER_PAGE, PAGE } from '../helpers/functional-findings.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';

describe(`server-side suppressions of functional findings (${storeLabel})`, () => {
  let server: TestServer;
  let t: { tenantId: string; apiKey: string };
  let scanId: string;
  const as = { 'X-API-Key': '' };
  const results = async () => (await call(`${server.api}/scan/${scanId}/results`, { headers: as })).body;
  const contrast = functionalFingerprint('a11y/color-contrast', PAGE);
  /** The CLI's gate over a results body, failing on every accessibility impact and on visual diffs (and on `budgets`). */
  const gate = (body: Record<string, unknown>, budgets: GateOptions['budgets'] = []) =>
    judge(body, {
      failOn: 'info',
      failOnA11y: 'minor',
      failOnVisual: true,
      budgets,
      suppressions: [],
      baseline: null,
      today: new Date().toISOString().slice(0, 10),
    } as GateOptions);
  const diff = functionalFingerprint('visual', PAGE);

  beforeAll(async () => {
    server = await startServer({ engines: { functional: functionalFindingsEngine, security: testEngine('security') } });
    t = await server.createTenant('enterprise');
    as['X-API-Key'] = t.apiKey;
    const started = await call(`${server.api}/scan`, { headers: as, json: { url: 'https://shop.test', mode: 'functional' } });
    expect(started.status, started.text).toBe(202);
    scanId = started.body.scan_id;
    await waitForScan(server.api, t.apiKey, scanId);
  });
  afterAll(async () => server?.stop());

  it('results carry the fingerprint of each violation and visual diff, the one the CLI computes', async () => {
    const body = await results();
    expect(body.accessibility.violations.map((v: { fingerprint: string }) => v.fingerprint)).toEqual([
      contrast,
      functionalFingerprint('a11y/image-alt', OTHER_PAGE),
    ]);
    expect(body.visual_regression.comparisons[0].fingerprint).toBe(diff);
    // A page without a diff is no finding
    expect(body.visual_regression.comparisons[1].fingerprint).toBeUndefined();
    expect(body.accessibility.violations[0].suppressed).toBeUndefined();
    expect(serverSuppressions(body)).toEqual([]);
    expect(
      gate(body)
        .failing.map((i) => i.key)
        .sort(),
    ).toEqual(expect.arrayContaining([contrast, diff]));
  });

  it('a suppression by fingerprint prefix marks the violation and the diff in the results, the sub-report and for the gate; removing it un-marks them', async () => {
    const made = [];
    for (const [fingerprint, reason] of [
      [contrast.slice(0, 10), 'Brand colours, accepted by design (UX-12)'],
      [diff, 'Seasonal banner'],
    ] as const) {
      const res = await call(`${server.api}/suppressions`, { headers: as, json: { fingerprint, reason } });
      expect(res.status, res.text).toBe(201);
      made.push(res.body);
    }
    expect(made[0].fingerprint).toBe(contrast);
    const body = await results();
    expect(body.accessibility.violations[0].suppressed).toMatchObject({
      reason: 'Brand colours, accepted by design (UX-12)',
      source: 'server',
      author: expect.any(String),
    });
    expect(body.accessibility.violations[1].suppressed).toBeUndefined();
    expect(body.visual_regression.comparisons[0].suppressed).toMatchObject({ reason: 'Seasonal banner', source: 'server' });
    const sub = await call(`${server.api}/scan/${scanId}/accessibility`, { headers: as });
    expect(sub.status, sub.text).toBe(200);
    expect(sub.body.violations[0].suppressed.reason).toBe('Brand colours, accepted by design (UX-12)');
    // The CLI's gate takes the server's marks as suppressions of these fingerprints
    expect(
      serverSuppressions(body)
        .map((s) => s.fingerprint)
        .sort(),
    ).toEqual([contrast, diff].sort());

    for (const s of made) expect((await call(`${server.api}/suppressions/${s.suppression_id}`, { method: 'DELETE', headers: as })).status).toBe(204);
    const after = await results();
    expect(after.accessibility.violations[0].suppressed).toBeUndefined();
    expect(after.visual_regression.comparisons[0].suppressed).toBeUndefined();
  });

  const budget = functionalFingerprint('budget/lcp', PAGE);
  const a11yBudget = functionalFingerprint('budget/accessibility', PAGE);
  const LCP_BUDGET = [{ metric: 'lcp', max: 2500, level: 'error' as const }];
  const suppress = async (fingerprint: string, reason: string, expires_at?: string) => {
    const res = await call(`${server.api}/suppressions`, { headers: as, json: { fingerprint, reason, ...(expires_at ? { expires_at } : {}) } });
    expect(res.status, res.text).toBe(201);
    return res.body as { suppression_id: string; fingerprint: string; author: string };
  };
  const unsuppress = async (made: Array<{ suppression_id: string }>) => {
    for (const s of made) expect((await call(`${server.api}/suppressions/${s.suppression_id}`, { method: 'DELETE', headers: as })).status).toBe(204);
  };

  it('a missed budget carries its fingerprint; a suppression of it marks it on the server and the CLI gate judging the same budget counts it suppressed', async () => {
    let body = await results();
    const lines = body.performance.metrics[0].budgets;
    expect(lines[0].fingerprint).toBe(budget);
    // A budget the page kept is no finding
    expect(lines[1].fingerprint).toBeUndefined();
    // The accessibility budget the accessibility audit judged is listed with the others, a finding of its own
    expect(lines[2]).toMatchObject({ metric: 'accessibility', passed: false, fingerprint: a11yBudget });
    expect(gate(body, LCP_BUDGET).failing.map((i) => i.key)).toContain(budget);

    const made = await suppress(budget.slice(0, 9), 'LCP budget waived for the sale');
    expect(made.fingerprint).toBe(budget);
    body = await results();
    expect(body.performance.metrics[0].budgets[0].suppressed).toMatchObject({ reason: 'LCP budget waived for the sale', source: 'server' });
    expect(body.performance.metrics[0].budgets[1].suppressed).toBeUndefined();
    const sub = await call(`${server.api}/scan/${scanId}/performance`, { headers: as });
    expect(sub.status, sub.text).toBe(200);
    expect(sub.body.pages[0].budgets[0].suppressed.reason).toBe('LCP budget waived for the sale');
    // The page's performance task failed over budget only: it is suppressed with its budget
    expect(body.tasks.find((t: Task) => t.task_id === 'perf').suppressed.reason).toBe('LCP budget waived for the sale');
    const verdict = gate(body, LCP_BUDGET);
    expect(verdict.failing.map((i) => i.key)).not.toContain(budget);
    expect(verdict.suppressed.find((x) => x.item.key === budget)?.suppression).toMatchObject({ origin: 'server', reason: 'LCP budget waived for the sale' });

    await unsuppress([made]);
    expect((await results()).performance.metrics[0].budgets[0].suppressed).toBeUndefined();
  });

  it('a suppression of the missed accessibility budget marks its line; the accessibility task is suppressed once its violation is too', async () => {
    const a11yTask = async () => (await results()).tasks.find((t: Task) => t.task_id === 'a11y');
    const made = [await suppress(contrast, 'Brand colours, accepted by design (UX-12)')];
    // The page's accessibility task stands for its violation and its missed accessibility budget
    expect((await a11yTask()).suppressed).toBeUndefined();
    made.push(await suppress(a11yBudget.slice(0, 8), 'Score target set for Q3'));
    const body = await results();
    expect(body.performance.metrics[0].budgets[2].suppressed).toMatchObject({ reason: 'Score target set for Q3', source: 'server' });
    expect((await a11yTask()).suppressed.reason).toBe('Brand colours, accepted by design (UX-12); Score target set for Q3');
    // The CLI gate judging the same budget counts it suppressed by the server
    const verdict = gate(body, [{ metric: 'accessibility', min: 90, level: 'error' }]);
    expect(verdict.failing.map((i) => i.key)).not.toContain(a11yBudget);
    expect(verdict.suppressed.find((x) => x.item.key === a11yBudget)?.suppression).toMatchObject({ origin: 'server', reason: 'Score target set for Q3' });
    await unsuppress(made);
  });

  it("SARIF, JUnit, CSV and HTML show the suppressed violation, diff and budgets, and their pages' tasks, as suppressed", async () => {
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const day = until.slice(0, 10);
    const report = async (format: string) => {
      const res = await fetch(`${server.api}/scan/${scanId}/reports/${format}`, { headers: as });
      expect(res.status, format).toBe(200);
      return res.text();
    };
    // Before any suppression the missed accessibility budget is a SARIF result of its own (the violations are theirs)
    const a11ySarif = (text: string) => (JSON.parse(text).runs[0].results as Array<Record<string, any>>).filter((r) => r.ruleId === 'functional/accessibility');
    expect(a11ySarif(await report('sarif'))).toEqual([
      expect.objectContaining({
        message: { text: 'Accessibility (wcag2aa): /checkout: over budget: accessibility 80 (limit >= 90)' },
        properties: expect.objectContaining({ fingerprint: a11yBudget }),
      }),
    ]);
    expect(a11ySarif(await report('sarif'))[0]!.suppressions).toBeUndefined();
    const made = [
      await suppress(contrast, 'Brand colours, accepted by design (UX-12)'),
      await suppress(diff, 'Seasonal banner', until),
      await suppress(budget, 'LCP budget waived for the sale'),
      await suppress(a11yBudget, 'Score target set for Q3'),
    ];
    const author = made[0]!.author;

    // SARIF: a suppressions entry (kind external, the reason as justification) on each suppressed result
    const sarif = JSON.parse(await report('sarif')).runs[0].results as Array<Record<string, any>>;
    const sarifOf = (ruleId: string) => sarif.filter((r) => r.ruleId === ruleId);
    expect(sarifOf('accessibility/color-contrast')[0]!.suppressions).toEqual([
      expect.objectContaining({ kind: 'external', status: 'accepted', justification: 'Brand colours, accepted by design (UX-12)' }),
    ]);
    expect(sarifOf('accessibility/image-alt')[0]!.suppressions).toBeUndefined();
    expect(sarifOf('functional/visual-regression')[0]!.suppressions).toEqual([
      expect.objectContaining({ kind: 'external', justification: `Seasonal banner (until ${day})` }),
    ]);
    expect(sarifOf('functional/performance')[0]!.suppressions).toEqual([
      expect.objectContaining({ kind: 'external', justification: 'LCP budget waived for the sale' }),
    ]);
    expect(sarifOf('functional/accessibility')[0]!.suppressions).toEqual([
      expect.objectContaining({ kind: 'external', justification: 'Score target set for Q3' }),
    ]);

    // JUnit: a testcase whose findings are all suppressed is skipped, not failed
    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(
      await report('junit'),
    );
    const cases = (junit.testsuites.testsuite as Array<{ testcase: Array<Record<string, any>> }>).flatMap((s) => s.testcase);
    const testcase = (name: string) => cases.find((c) => c.name === name)!;
    expect(testcase('Visual regression: /checkout')).toMatchObject({ skipped: { message: `suppressed: Seasonal banner (until ${day})` } });
    expect(testcase('Accessibility (wcag2aa): /checkout')).toMatchObject({
      skipped: { message: 'suppressed: Brand colours, accepted by design (UX-12); Score target set for Q3' },
    });
    expect(testcase('Performance: /checkout')).toMatchObject({ skipped: { message: 'suppressed: LCP budget waived for the sale' } });
    for (const name of ['Visual regression: /checkout', 'Accessibility (wcag2aa): /checkout', 'Performance: /checkout'])
      expect(testcase(name).failure, name).toBeUndefined();
    // The home page's violation is not suppressed: its testcase still fails
    expect(testcase('Accessibility (wcag2aa): /').failure).toBeDefined();

    // CSV: the suppressed columns of the pages' tasks, and the violation's line in the accessibility column
    const [header, ...rows] = parseCsv(await report('csv'));
    const cell = (taskId: string, column: string) => rows.find((r) => r[header!.indexOf('task_id')] === taskId)![header!.indexOf(column)];
    expect(cell('a11y', 'suppressed_reason')).toBe('Brand colours, accepted by design (UX-12); Score target set for Q3');
    expect(cell('a11y', 'suppressed_by')).toBe(author);
    expect(cell('a11y', 'accessibility')).toContain(`[suppressed: Brand colours, accepted by design (UX-12), by ${author}]`);
    expect(cell('visual', 'suppressed_reason')).toBe('Seasonal banner');
    expect(cell('visual', 'suppressed_until')).toBe(until);
    expect(cell('perf', 'suppressed_reason')).toBe('LCP budget waived for the sale');
    expect(cell('a11y-home', 'suppressed_reason')).toBe('');

    // HTML: the visible "Suppressed" note (reason, by, until) in each functional section
    const html = await report('html');
    const section = (id: string, doc = html) => textContent(doc.split('<section id="').find((part) => part.startsWith(`${id}"`)) ?? '');
    expect(section('accessibility')).toContain(`Suppressed Brand colours, accepted by design (UX-12) by ${author}`);
    expect(section('visual-regression')).toContain(`Suppressed Seasonal banner by ${author} until ${day}`);
    expect(section('performance')).toContain(`Suppressed LCP budget waived for the sale by ${author}`);
    expect(section('performance')).toContain(`accessibility: 80 / ≥ 90 underSuppressed Score target set for Q3 by ${author}`);

    await unsuppress(made);
    const after = await report('html');
    for (const id of ['accessibility', 'visual-regression', 'performance', 'tasks']) expect(section(id, after), id).not.toContain('Suppressed');
  });
});
