/**
 * Server-side suppressions of functional findings (issue 29): an accessibility violation and a visual diff
 * carry their fingerprint (check `a11y/<rule>` or `visual` on the page's path, the one the CLI prints), a
 * suppression made with POST /suppressions by that fingerprint (or a prefix) marks them `suppressed` in the
 * results body and the functional sub-report, and the CLI's gate reads those marks. Runs on the store the
 * environment selects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, type GateOptions } from '../../src/cli/gate.js';
import { serverSuppressions } from '../../src/cli/suppressions.js';
import type { EngineOutcome, FunctionalOutcome } from '../../src/domain/scan.js';
import { functionalFingerprint } from '../../src/domain/suppressions.js';
import type { ScanEngine } from '../../src/engines/engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';

const PAGE = 'https://shop.test/checkout';
const OTHER_PAGE = 'https://shop.test/';

const OUTCOME: FunctionalOutcome = {
  diff_threshold_percent: 0.1,
  visual: [
    {
      page_url: PAGE,
      viewport: { width: 800, height: 600 },
      diff_detected: true,
      diff_percent: 4.2,
      baseline_artifact: 'art_base',
      current_artifact: 'art_now',
      diff_artifact: 'art_diff',
      baseline_created: false,
    },
    {
      page_url: OTHER_PAGE,
      viewport: { width: 800, height: 600 },
      diff_detected: false,
      diff_percent: 0,
      baseline_artifact: 'art_base2',
      current_artifact: 'art_now2',
      diff_artifact: null,
      baseline_created: false,
    },
  ],
  accessibility: {
    wcag_level: 'AA',
    compliance_score: 80,
    violations: [
      {
        rule: 'color-contrast',
        impact: 'serious',
        wcag: '1.4.3',
        page_url: PAGE,
        elements_affected: 3,
        description: 'Contrast',
        help_url: 'https://x.test/cc',
      },
      {
        rule: 'image-alt',
        impact: 'critical',
        wcag: '1.1.1',
        page_url: OTHER_PAGE,
        elements_affected: 1,
        description: 'Alt text',
        help_url: 'https://x.test/alt',
      },
    ],
    pages: [],
  },
  performance: { performance_score: null, pages: [] },
};

const functionalEngine: ScanEngine = {
  kind: 'functional',
  async run(): Promise<EngineOutcome> {
    return {
      tasks: [{ task_id: 'a11y', kind: 'functional', name: 'Accessibility: /checkout', status: 'failed', error: '1 violation' }],
      agent_count: 1,
      functional: OUTCOME,
    };
  },
};

describe(`server-side suppressions of functional findings (${storeLabel})`, () => {
  let server: TestServer;
  let t: { tenantId: string; apiKey: string };
  let scanId: string;
  const as = { 'X-API-Key': '' };
  const results = async () => (await call(`${server.api}/scan/${scanId}/results`, { headers: as })).body;
  const contrast = functionalFingerprint('a11y/color-contrast', PAGE);
  /** The CLI's gate over a results body, failing on every accessibility impact and on visual diffs. */
  const gate = (body: Record<string, unknown>) =>
    judge(body, {
      failOn: 'info',
      failOnA11y: 'minor',
      failOnVisual: true,
      budgets: [],
      suppressions: [],
      baseline: null,
      today: new Date().toISOString().slice(0, 10),
    } as GateOptions);
  const diff = functionalFingerprint('visual', PAGE);

  beforeAll(async () => {
    server = await startServer({ engines: { functional: functionalEngine, security: testEngine('security') } });
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
});
