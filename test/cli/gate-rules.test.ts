/** The gate's rules as functions: budget flags, suppression matching and expiry, judging a results body. */
import { describe, expect, it } from 'vitest';
import { acceptingBudgets, evaluateBudgets, parseBudgetFlag } from '../../src/cli/budgets.js';
import { ApiFailure } from '../../src/cli/client.js';
import { judge, unambiguousSuppressions, type GateOptions } from '../../src/cli/gate.js';
import { checkSuppressions } from '../../src/cli/suppressions.js';
import { findingFingerprint } from '../../src/domain/fingerprint.js';

const base: GateOptions = { failOn: 'high', failOnA11y: 'serious', failOnVisual: true, budgets: [], suppressions: [], baseline: null, today: '2026-06-01' };
const finding = (severity: string, check = `c-${severity}`, endpoint = 'GET /a/{id}') => ({
  task_id: Math.random().toString(36),
  name: `${check} on ${endpoint}`,
  status: 'failed',
  severity,
  check,
  endpoint,
  parameter: 'id',
});

describe('budget flags', () => {
  it('parses metric, operator, page and level', () => {
    expect(parseBudgetFlag('lcp=2500')).toEqual({ metric: 'lcp', max: 2500, level: 'error' });
    expect(parseBudgetFlag('performance>=90:warn')).toEqual({ metric: 'performance', min: 90, level: 'warn' });
    expect(parseBudgetFlag('performance=90')).toEqual({ metric: 'performance', min: 90, level: 'error' });
    expect(parseBudgetFlag('/checkout*@cls<0.1')).toEqual({ metric: 'cls', max: 0.1, page: '/checkout*', level: 'error' });
    expect(() => parseBudgetFlag('lcp>=2500')).toThrow(/upper limit/);
    expect(() => parseBudgetFlag('accessibility<=90')).toThrow(/lower limit/);
    expect(() => parseBudgetFlag('lpc=2500')).toThrow(/unknown metric "lpc"/);
    expect(() => parseBudgetFlag('lcp')).toThrow(/expected/);
  });

  it('judges each page a budget applies to; null values are not judged', () => {
    const pages = [
      { page_url: 'https://s.test/', lcp_ms: 3000, performance_score: 95 },
      { page_url: 'https://s.test/checkout/pay', lcp_ms: 1000, performance_score: null },
    ];
    expect(evaluateBudgets([parseBudgetFlag('lcp=2500'), parseBudgetFlag('performance>=90')], pages)).toEqual([
      { page: 'https://s.test/', metric: 'lcp', actual: 3000, limit: '<= 2500', level: 'error' },
    ]);
    expect(evaluateBudgets([parseBudgetFlag('/checkout@lcp=500')], pages)).toEqual([
      { page: 'https://s.test/checkout/pay', metric: 'lcp', actual: 1000, limit: '<= 500', level: 'error' },
    ]);
  });
});

describe('budgets the server judged', () => {
  const a11y = parseBudgetFlag('accessibility>=90');
  const page = (budgets?: unknown[]) => ({
    page_url: 'https://s.test/',
    lcp_ms: 3000,
    performance_score: 95,
    accessibility_score: 95,
    ...(budgets ? { budgets } : {}),
  });
  const line = (metric: string, actual: number, limit: number, kind: 'max' | 'min', passed: boolean) => ({
    metric,
    actual,
    limit,
    kind,
    level: 'error',
    passed,
  });

  it("takes the server's lines of a metric (its per-page accessibility score) over the CLI's own judging", () => {
    // The server judged the page's own score (80); the scan's score the CLI would use for the page is 95.
    expect(evaluateBudgets([a11y], [page([line('accessibility', 80, 90, 'min', false)])])).toEqual([
      { page: 'https://s.test/', metric: 'accessibility', actual: 80, limit: '>= 90', level: 'error' },
    ]);
    expect(evaluateBudgets([parseBudgetFlag('lcp=2500')], [page([line('lcp', 3000, 4000, 'max', true)])])).toEqual([]);
  });

  it('judges itself the budgets of a metric the server listed no line for on the page (an older server)', () => {
    const old = page([line('lcp', 3000, 2500, 'max', false)]);
    expect(evaluateBudgets([parseBudgetFlag('lcp=2500'), parseBudgetFlag('accessibility>=99')], [old])).toEqual([
      { page: 'https://s.test/', metric: 'lcp', actual: 3000, limit: '<= 2500', level: 'error' },
      { page: 'https://s.test/', metric: 'accessibility', actual: 95, limit: '>= 99', level: 'error' },
    ]);
  });

  it('a failed accessibility task that only missed its budget is no violation of unknown rule on a plan without detailed reports', () => {
    const tasks = [
      { task_id: 't', kind: 'functional', name: 'Accessibility (wcag21aa): /', status: 'failed', error: 'over budget: accessibility 80 (limit >= 90)' },
    ];
    expect(judge({ status: 'completed', tasks }, base).failing).toEqual([]);
  });
});

describe('starting a scan on a server older than accessibility budgets', () => {
  const refusal = new ApiFailure(
    422,
    'VALIDATION_ERROR',
    'Validation failed',
    { fields: [{ field: 'options.budgets.1.metric', message: 'must be one of lcp, ...' }] },
    null,
  );

  it('starts again without them, with a new idempotency key, and says so', async () => {
    const body = { options: { budgets: [{ metric: 'lcp' }, { metric: 'accessibility' }] } };
    const idempotency = { 'Idempotency-Key': 'first' };
    const sent: Array<{ budgets: unknown; key: string }> = [];
    const notes: string[] = [];
    const start = acceptingBudgets(
      body,
      idempotency,
      (l) => notes.push(l),
      async () => {
        sent.push({ budgets: structuredClone(body.options.budgets), key: idempotency['Idempotency-Key'] });
        if (sent.length === 1) throw refusal;
        return 'started';
      },
    );
    expect(await start()).toBe('started');
    expect(sent[1]!.budgets).toEqual([{ metric: 'lcp' }]);
    expect(sent[1]!.key).not.toBe('first');
    expect(notes.join('')).toContain('does not judge accessibility budgets');
  });

  it('passes on any other refusal', async () => {
    const body = { options: { budgets: [{ metric: 'lcp' }, { metric: 'accessibility' }] } };
    const other = new ApiFailure(422, 'VALIDATION_ERROR', 'Validation failed', { fields: [{ field: 'options.budgets.0.metric', message: 'x' }] }, null);
    let calls = 0;
    const start = acceptingBudgets(
      body,
      { 'Idempotency-Key': 'k' },
      () => undefined,
      async () => {
        calls++;
        throw other;
      },
    );
    await expect(start()).rejects.toBe(other);
    expect(calls).toBe(1);
    expect(body.options.budgets).toHaveLength(2);
  });
});

describe('judge', () => {
  it('fails at or above the threshold, sorted most severe first', () => {
    const r = judge({ status: 'completed', tasks: [finding('medium'), finding('critical'), finding('high'), finding('low')] }, base);
    expect(r.exit).toBe(1);
    expect(r.failing.map((i) => i.severity)).toEqual(['critical', 'high']);
    expect(r.below.map((i) => i.severity)).toEqual(['medium', 'low']);
    expect(judge({ status: 'completed', tasks: [finding('critical')] }, { ...base, failOn: 'none' }).exit).toBe(0);
    expect(judge({ status: 'failed', tasks: [] }, base).exit).toBe(2);
  });

  it('--fail-on-coverage: fails a completed security scan that reached less than the share of its operations, beside its findings', () => {
    const security = (ok: number, total: number) => ({ coverage: { operations_2xx: ok, operations_total: total } });
    const not_tested = { headline: '7 of 10 operations never answered 2xx to any identity.' };
    const few = judge({ status: 'completed', tasks: [finding('critical')], security: security(3, 10), not_tested }, { ...base, failOnCoverage: 50 });
    expect(few.exit).toBe(1);
    // Listed first, with the findings that fail too (not only when nothing else failed).
    expect(few.failing.map((i) => [i.kind, i.title])).toEqual([
      ['coverage', 'Coverage 30%: 3 of 10 operations answered 2xx (--fail-on-coverage 50)'],
      ['security', 'c-critical on GET /a/{id}'],
    ]);
    expect(few.failing[0]!.detail).toBe(not_tested.headline);
    // At the percentage it passes; one decimal (2 of 3 is 66.7%).
    expect(judge({ status: 'completed', tasks: [], security: security(5, 10) }, { ...base, failOnCoverage: 50 }).exit).toBe(0);
    expect(judge({ status: 'completed', tasks: [], security: security(2, 3) }, { ...base, failOnCoverage: 66.7 }).exit).toBe(0);
    expect(judge({ status: 'completed', tasks: [], security: security(2, 3) }, { ...base, failOnCoverage: 66.8 }).exit).toBe(1);
    // Off without the flag; nothing to judge without a security section or operations; a failed scan stays 2.
    expect(judge({ status: 'completed', tasks: [], security: security(0, 10) }, base).exit).toBe(0);
    expect(judge({ status: 'completed', tasks: [] }, { ...base, failOnCoverage: 100 }).exit).toBe(0);
    expect(judge({ status: 'completed', tasks: [], security: security(0, 0) }, { ...base, failOnCoverage: 100 }).exit).toBe(0);
    const failed = judge({ status: 'failed', tasks: [], security: security(0, 10) }, { ...base, failOnCoverage: 50 });
    expect([failed.exit, failed.failing]).toEqual([2, []]);
  });

  it('suppressions: matched by check, operation and parameter, or fingerprint; expired ones fail again', () => {
    const tasks = [finding('critical', 'bola'), finding('high', 'sqli', 'POST /search')];
    const suppressions = checkSuppressions(
      [
        { check: 'bola', operation: 'get https://x.test/a/{id}/', parameter: 'id', reason: 'accepted', until: '2026-06-01' },
        { fingerprint: findingFingerprint(tasks[1]!), reason: 'old', until: '2026-05-31' },
      ],
      'ignore.yml',
    );
    const r = judge({ status: 'completed', tasks }, { ...base, suppressions });
    expect(r.suppressed.map((x) => x.item.check)).toEqual(['bola']);
    expect(r.expired.map((x) => [x.item.check, x.suppression.until])).toEqual([['sqli', '2026-05-31']]);
    expect(r.failing.map((i) => i.check)).toEqual(['sqli']);
    expect(() => checkSuppressions([{ check: 'x' }], 'f')).toThrow(/f suppression #1: "reason" is required/);
    expect(() => checkSuppressions([{ reason: 'r' }], 'f')).toThrow(/at least one of/);
    expect(() => checkSuppressions([{ check: 'x', reason: 'r', until: 'soon' }], 'f')).toThrow(/"until" must be a date/);
  });

  it('a baseline excuses the findings it had (by fingerprint), not new ones', () => {
    const old = finding('critical');
    const r = judge(
      { status: 'completed', tasks: [{ ...old, task_id: 'new-id', evidence: 'other' }, finding('high', 'new-check')] },
      { ...base, baseline: new Set([findingFingerprint(old)]) },
    );
    expect(r.known.map((i) => i.check)).toEqual(['c-critical']);
    expect(r.failing.map((i) => i.check)).toEqual(['new-check']);
  });
});

describe('documented exit codes', () => {
  it('docs/cli.md lists every exit code vigil scan uses, and vigil --help names them', async () => {
    const { readFileSync } = await import('node:fs');
    const { SCAN_EXIT } = await import('../../src/cli/scan/exit-codes.js');
    const { SCAN_HELP } = await import('../../src/cli/scan/help.js');
    const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const table = docs.slice(docs.indexOf('## Exit codes'), docs.indexOf('## `vigil scan'));
    const documented = [...table.matchAll(/^\| (\d) \|/gm)].map((m) => Number(m[1]));
    expect(documented).toEqual(Object.values(SCAN_EXIT).sort());
    for (const code of Object.values(SCAN_EXIT)) expect(SCAN_HELP).toMatch(new RegExp(`\\b${code} [a-z]`));
  });
});

describe('triage is one thing', () => {
  const keyOf = (t: ReturnType<typeof finding>) => findingFingerprint({ name: t.name, check: t.check, endpoint: t.endpoint, parameter: t.parameter });
  const suppress = (fingerprint: string) => checkSuppressions([{ fingerprint, reason: 'triaged (SEC-9)' }], 'ignore.yml');

  it('matches any prefix of the fingerprint of 8 characters or more (the 12 the CLI prints included); shorter is refused', () => {
    const t = finding('high');
    const key = keyOf(t);
    for (const length of [8, 12, 32]) {
      const r = judge({ status: 'completed', tasks: [t] }, { ...base, suppressions: suppress(key.slice(0, length)) });
      expect(r.exit, `prefix of ${length}`).toBe(0);
      expect(r.suppressed).toHaveLength(1);
    }
    expect(() => suppress(key.slice(0, 7))).toThrow(/at least 8 hex characters/);
    expect(judge({ status: 'completed', tasks: [t] }, { ...base, suppressions: suppress(`${key.slice(0, 11)}${key[11] === '0' ? '1' : '0'}`) }).exit).toBe(1);
  });

  it('a prefix shared by two findings suppresses neither, and a note says why', () => {
    const notes: string[] = [];
    const keys = ['0123456789abcdef0000000000000000', '0123456789abffff1111111111111111', 'fedcba9876543210aaaaaaaaaaaaaaaa'];
    const kept = unambiguousSuppressions([...suppress('0123456789ab'), ...suppress('0123456789abc'), ...suppress('fedcba98')], keys, notes);
    expect(kept.map((s) => s.fingerprint)).toEqual(['0123456789abc', 'fedcba98']);
    expect(notes).toEqual([
      `suppression ignore.yml #1 not applied: fingerprint "0123456789ab" is the start of 2 findings' fingerprints (0123456789ab, 0123456789ab); give more characters`,
    ]);
  });

  it('a suppression holds whatever --fail-on: a finding below the threshold is listed as suppressed, not below', () => {
    const t = finding('medium');
    for (const failOn of ['high', 'medium', 'low'] as const) {
      const r = judge({ status: 'completed', tasks: [t] }, { ...base, failOn, suppressions: suppress(keyOf(t).slice(0, 12)) });
      expect(
        r.suppressed.map((s) => s.item.key),
        failOn,
      ).toEqual([keyOf(t)]);
      expect(r.below, failOn).toEqual([]);
      expect(r.exit, failOn).toBe(0);
    }
  });

  it('lists the same finding once on one operation, keeping its most severe occurrence', () => {
    const once = finding('medium', 'headers', 'GET /a');
    const twice = { ...once, task_id: 'other', severity: 'high' };
    const r = judge({ status: 'completed', tasks: [once, twice] }, base);
    expect([...r.failing, ...r.below].map((i) => [i.key, i.severity])).toEqual([[keyOf(once), 'high']]);
  });
});
