/**
 * A security engine for API and CLI tests that answers with a security outcome as the v2 engine
 * reports it (warnings, coverage, check catalogue, a finding of the whole target, a task with
 * invented values) and records every input it was given. The token of the first identity is put into
 * a warning, so tests can see the worker redact it. A scan URL with `?old` gets no security section,
 * as results stored before the engine reported coverage; one with `?down` saw the target go down and
 * lost its first identity (security.target_down, coverage.identities).
 */
import type { EngineContext, ScanEngine } from '../../src/engines/engine.js';
import type { EngineOutcome, ScanInput, SecurityOutcome, Task } from '../../src/domain/scan.js';

/** The outcome for a scan input. */
export function outcomeFor(input: ScanInput): EngineOutcome {
  const security: SecurityOutcome = {
    warnings: ['0 of 3 operations answered 2xx: is the base URL right?', `token ${input.auth?.token ?? '-'} was refused everywhere`],
    coverage: {
      operations: [
        {
          endpoint: 'GET /orders/{id}',
          statuses: [401, 404],
          reached_2xx: { primary: false, secondary: false, anonymous: false },
          requests: 9,
          invented_values: true,
        },
        { endpoint: 'GET /orders', statuses: [401], reached_2xx: { primary: false, secondary: false, anonymous: false }, requests: 4 },
        {
          endpoint: 'POST /admin/reset',
          statuses: [],
          reached_2xx: { primary: false, secondary: null, anonymous: false },
          requests: 0,
          skipped: 'safe mode: destructive',
        },
      ],
      checks: [
        {
          check: 'bola',
          title: 'Broken object level authorization',
          ran: 1,
          not_run: [{ reason: 'safe mode', reason_code: 'safe_mode', count: 1, endpoints: ['POST /admin/reset'] }],
        },
      ],
      operations_2xx: 0,
      operations_total: 3,
      resources_created: 0,
      resources_deleted: 0,
    },
    checks: [
      {
        id: 'bola',
        title: 'Broken object level authorization',
        description: 'Resources of the first identity are read with the second.',
        risk: "Users read each other's data.",
        remediation: 'Check object ownership on every request.',
        owasp: { id: 'API1:2023', url: 'https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/' },
        cwe: { id: 'CWE-639', url: 'https://cwe.mitre.org/data/definitions/639.html' },
        references: [],
      },
      {
        id: 'headers',
        title: 'Security headers',
        description: 'Responses carry nosniff and no-store.',
        risk: 'Content sniffing, cached private answers.',
        remediation: 'Send X-Content-Type-Options: nosniff.',
        owasp: { id: 'API8:2023', url: 'https://owasp.org/API-Security/editions/2023/en/0xa8-security-misconfiguration/' },
        cwe: { id: 'CWE-693', url: 'https://cwe.mitre.org/data/definitions/693.html' },
        references: [],
      },
    ],
  };
  const tasks: Task[] = [
    {
      task_id: 'bola:GET /orders/{id}',
      name: 'BOLA on orders',
      status: 'passed',
      severity: 'critical',
      check: 'bola',
      owasp: 'API1:2023',
      cwe: 'CWE-639',
      endpoint: 'GET /orders/{id}',
      invented_values: true,
    },
    {
      task_id: 'headers',
      name: 'Security headers missing',
      status: 'failed',
      severity: 'low',
      check: 'headers',
      owasp: 'API8:2023',
      cwe: 'CWE-693',
      endpoints: ['GET /orders', 'GET /orders/{id}'],
      evidence: 'GET /orders -> 401 without nosniff',
    },
  ];
  return { tasks, agent_count: 2, security };
}

/** The outcome of a scan whose target went down for good after the first identity was lost. */
export function withOutage(outcome: EngineOutcome): EngineOutcome {
  const security = outcome.security!;
  return {
    ...outcome,
    security: {
      ...security,
      target_down: { at: '2026-11-22T10:00:17.000Z', check: 'resource-consumption', endpoint: 'GET /orders', waited_seconds: 30 },
      coverage: {
        ...security.coverage,
        identities: [
          {
            identity: 'primary',
            verified: true,
            verified_on: 'GET /orders',
            lost_at: '2026-11-22T10:00:09.000Z',
            lost_reason: 'a run of 401/403 from GET /orders/{id}',
            logins: 1,
          },
        ],
        resources_left: [{ created_by: 'POST /orders', identity: 'primary', id: '17' }],
      },
    },
  };
}

export function securityEngine(inputs: ScanInput[]): ScanEngine {
  return {
    kind: 'security',
    async run(ctx: EngineContext): Promise<EngineOutcome> {
      inputs.push(ctx.input);
      const params = new URL(ctx.input.url).searchParams;
      if (params.has('old')) return { tasks: outcomeFor(ctx.input).tasks, agent_count: 1 };
      if (params.has('down')) return withOutage(outcomeFor(ctx.input));
      return outcomeFor(ctx.input);
    },
  };
}
