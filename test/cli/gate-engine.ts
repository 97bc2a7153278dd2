/**
 * Engines for the CLI gate tests, steered by the scan URL's query string.
 * Security:   findings=critical,high,medium   one failed task per severity (check c-<severity>, GET /items/{id}, parameter id)
 *             grow=1                          every later run of the same URL adds one more high finding (check new-<n>)
 *             reached=<ok>/<total>            security coverage: <ok> of <total> operations answered 2xx
 *             untested=1                      with reached: the target went down, the first identity was lost, check runs not tested (codes)
 * Functional: visual=diff   a11y=serious,minor   lcp=<ms>   score=<0-100>   broken=1 (a page that cannot be loaded)
 *             unreachable=1                   the scan fails (TARGET_UNREACHABLE)
 */
import { EngineFailure, type EngineContext, type ScanEngine } from '../../src/engines/engine.js';
import type { EngineOutcome, FunctionalOutcome, Task } from '../../src/domain/scan.js';

export function gateEngines(inputs: EngineContext['input'][] = []) {
  const runs = new Map<string, number>();
  const security: ScanEngine = {
    kind: 'security',
    async run(ctx: EngineContext): Promise<EngineOutcome> {
      inputs.push(ctx.input);
      const url = new URL(ctx.input.url);
      const q = url.searchParams;
      if (q.get('unreachable')) throw new EngineFailure('TARGET_UNREACHABLE', `The target ${url.origin} could not be reached: connect ECONNREFUSED.`);
      const n = (runs.get(ctx.input.url) ?? 0) + 1;
      runs.set(ctx.input.url, n);
      const severities = (q.get('findings') ?? '').split(',').filter(Boolean) as Task['severity'][];
      const tasks: Task[] = severities.map((severity, i) => ({
        task_id: `run${n}-${i}`,
        name: `${severity} finding on GET /items/{id}`,
        status: 'failed',
        severity,
        check: `c-${severity}`,
        endpoint: 'GET /items/{id}',
        parameter: 'id',
        evidence: `GET /items/${n * 100 + i} -> 200`,
        owasp: 'API1:2023',
        cwe: 'CWE-639',
      }));
      if (q.get('grow'))
        for (let k = 2; k <= n; k += 1)
          tasks.push({
            task_id: `run${n}-new${k}`,
            name: `new finding ${k}`,
            status: 'failed',
            severity: 'high',
            check: `new-${k}`,
            endpoint: 'POST /items',
            evidence: 'POST /items -> 500',
          });
      tasks.push({ task_id: `run${n}-ok`, name: 'passing check', status: 'passed', severity: 'info', check: 'ok', endpoint: 'GET /items' });
      ctx.progress(100);
      const reached = /^(\d+)\/(\d+)$/.exec(q.get('reached') ?? '');
      if (reached) {
        const [ok, total] = [Number(reached[1]), Number(reached[2])];
        if (q.get('untested')) return { tasks, agent_count: 1, security: untestedSecurity(ok, total) };
        return {
          tasks,
          agent_count: 1,
          security: {
            warnings: [],
            coverage: { operations: [], checks: [], operations_2xx: ok, operations_total: total, resources_created: 0, resources_deleted: 0 },
            checks: [],
          },
        };
      }
      return { tasks, agent_count: 1 };
    },
  };
  const functional: ScanEngine = {
    kind: 'functional',
    async run(ctx: EngineContext): Promise<EngineOutcome> {
      inputs.push(ctx.input);
      const url = new URL(ctx.input.url);
      const q = url.searchParams;
      if (q.get('unreachable')) throw new EngineFailure('NO_PAGE_LOADED', 'No page could be loaded, so nothing was tested (connect ECONNREFUSED).');
      const page = `${url.origin}/`;
      const diff = q.get('visual') === 'diff';
      const impacts = (q.get('a11y') ?? '').split(',').filter(Boolean) as Array<'critical' | 'serious' | 'moderate' | 'minor'>;
      const lcp = Number(q.get('lcp') ?? 1200);
      const score = Number(q.get('score') ?? 95);
      const tasks: Task[] = [
        {
          task_id: 'v',
          kind: 'functional',
          name: 'Visual regression: /',
          status: diff ? 'failed' : 'passed',
          duration_ms: 5,
          ...(diff ? { error: 'diff 3.2% above 0.5%' } : {}),
        },
        {
          task_id: 'a',
          kind: 'functional',
          name: 'Accessibility (wcag21aa): /',
          status: impacts.length ? 'failed' : 'passed',
          duration_ms: 5,
          ...(impacts.length ? { error: `${impacts.length} violation(s)` } : {}),
        },
        { task_id: 'p', kind: 'functional', name: 'Performance: /', status: 'passed', duration_ms: 5 },
      ];
      if (q.get('broken'))
        for (const t of ['Visual regression', 'Accessibility (wcag21aa)', 'Performance'])
          tasks.push({ task_id: `b-${t}`, kind: 'functional', name: `${t}: /broken`, status: 'failed', duration_ms: 1, error: 'HTTP 404 Not Found' });
      const functionalOutcome: FunctionalOutcome = {
        diff_threshold_percent: 0.5,
        visual: [
          {
            page_url: page,
            viewport: { width: 1280, height: 800 },
            diff_detected: diff,
            diff_percent: diff ? 3.2 : 0,
            baseline_artifact: 'art_base',
            current_artifact: 'art_cur',
            diff_artifact: diff ? 'art_diff' : null,
            baseline_created: false,
          },
        ],
        accessibility: {
          wcag_level: 'wcag21aa',
          compliance_score: impacts.length ? 70 : 100,
          violations: impacts.map((impact, i) => ({
            rule: `rule-${impact}`,
            impact,
            wcag: '1.4.3',
            page_url: page,
            elements_affected: i + 1,
            description: `A ${impact} problem`,
            help_url: 'https://dequeuniversity.com/rules/axe/4.10/color-contrast',
            nodes: [{ target: `#el${i}`, html: `<div id="el${i}">`, failure_summary: 'Fix it' }],
          })),
          pages: [{ page_url: page, violations: impacts.length, compliance_score: impacts.length ? 70 : 100 }],
        },
        performance: {
          performance_score: score,
          pages: [
            {
              page_url: page,
              performance_score: score,
              lcp_ms: lcp,
              fid_ms: 10,
              cls: 0.01,
              ttfb_ms: 100,
              fcp_ms: 800,
              tbt_ms: 50,
              si_ms: 1500,
              tti_ms: 2000,
              rating: 'good',
            },
          ],
        },
      };
      ctx.progress(100);
      return { tasks, agent_count: 1, functional: functionalOutcome };
    },
  };
  return { security, functional };
}

/** A security section of a scan that went wrong: `ok` of `total` operations reached, the target down, the first identity lost. */
function untestedSecurity(ok: number, total: number): NonNullable<EngineOutcome['security']> {
  const never = { primary: false, secondary: null, anonymous: false };
  const operations = Array.from({ length: total }, (_, i) => ({
    endpoint: `GET /things/${i}`,
    statuses: i < ok ? [200] : [401],
    reached_2xx: i < ok ? { ...never, primary: true } : never,
    requests: 3,
  }));
  return {
    warnings: ['The target stopped answering at 2026-11-22T10:00:17.000Z'],
    target_down: { at: '2026-11-22T10:00:17.000Z', check: 'resource-consumption', endpoint: 'GET /things/0', waited_seconds: 30 },
    coverage: {
      operations,
      checks: [
        {
          check: 'sql-injection',
          title: 'SQL injection',
          ran: ok,
          not_run: [
            {
              reason: 'the target stopped answering at 2026-11-22T10:00:17.000Z (after resource-consumption on GET /things/0) and did not recover',
              reason_code: 'target_down',
              count: 2,
              endpoints: ['GET /things/8', 'GET /things/9'],
            },
            { reason: 'no string parameter or body field', reason_code: 'not_applicable', count: 1, endpoints: ['GET /things/1'] },
          ],
        },
      ],
      operations_2xx: ok,
      operations_total: total,
      resources_created: 0,
      resources_deleted: 0,
      identities: [
        {
          identity: 'primary',
          verified: true,
          verified_on: 'GET /things/0',
          lost_at: '2026-11-22T10:00:09.000Z',
          lost_reason: 'a run of 401/403 from GET /things/3',
        },
      ],
    },
    checks: [],
  };
}
