/**
 * OpenAPI schemas of what a finished scan's results body carries beyond the counts: the task, the
 * top-level warnings and the security section (coverage and the catalogue of checks). Objects allow
 * more properties so that a field an engine adds later is serialised rather than silently dropped.
 */
import { Type } from '@sinclair/typebox';
import { NOT_RUN_CODES, SEVERITIES } from '../../domain/scan.js';
import { StringEnum } from './common.js';

const open = { additionalProperties: true } as const;

export const CI_EXAMPLE = {
  provider: 'github',
  repository: 'acme/shop',
  repository_url: 'https://github.com/acme/shop',
  branch: 'feature/new-checkout',
  base_branch: 'main',
  commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  pr: '42',
  run_url: 'https://github.com/acme/shop/actions/runs/123456789',
};

/** A scan's CI metadata as returned (left out for scans started without it): an extension of the contract. */
export const CiBodySchema = Type.Object(
  {
    provider: Type.Optional(Type.String({ description: '`github`, `gitlab`, `cli` or another CI' })),
    repository: Type.Optional(Type.String({ description: '`owner/name` as the CI names it' })),
    repository_url: Type.Optional(Type.String({ description: "The repository's web address" })),
    branch: Type.Optional(Type.String({ description: 'The branch scanned' })),
    base_branch: Type.Optional(Type.String({ description: "A pull request's target branch" })),
    commit: Type.Optional(Type.String({ description: 'The commit scanned (lower-case hex)' })),
    pr: Type.Optional(Type.String({ description: "The pull (merge) request's number or id, as text" })),
    run_url: Type.Optional(Type.String({ description: "The CI run's web address" })),
  },
  {
    ...open,
    title: 'ScanCi',
    description: 'What a CI run scanned: repository, branch, commit, pull request and run (docs/ci.md). Left out for scans started without it',
    examples: [CI_EXAMPLE],
  },
);

/** A failed task's triage: present when a suppression covers the finding (it then fails no gate, whatever its threshold). */
export const SuppressionMarkSchema = Type.Object(
  {
    reason: Type.String({ description: 'Why the finding is accepted' }),
    author: Type.Union([Type.String(), Type.Null()], { description: "Who suppressed it (a member's email or an API key's prefix); null for the ignore file" }),
    expires_at: Type.Union([Type.String(), Type.Null()], {
      description: 'When the suppression ends (ISO timestamp, or the last day for the ignore file); null: until removed',
    }),
    source: StringEnum(['server', 'file'] as const, {
      description: '`server`: made in the dashboard or with POST /suppressions; `file`: `.vigil/ignore.yml` (CLI)',
    }),
  },
  {
    description: 'Failed tasks a suppression covers: they are listed as suppressed in every report and never fail a gate, whatever its threshold',
    examples: [{ reason: 'Public profiles by design (SEC-142)', author: 'dana@example.com', expires_at: '2027-03-31T00:00:00.000Z', source: 'server' }],
  },
);

/** A functional finding's identity and triage (accessibility violations, visual diffs, missed budgets): what POST /suppressions names. */
export const FunctionalTriageFields = {
  fingerprint: Type.Optional(
    Type.String({
      description:
        "The finding's fingerprint (check `a11y/<rule>`, `visual` or `budget/<metric>` on the page's path): give it (or 8+ characters of it) to POST /suppressions",
    }),
  ),
  suppressed: Type.Optional(SuppressionMarkSchema),
};

export const TaskSchema = Type.Object(
  {
    task_id: Type.String(),
    name: Type.String(),
    status: StringEnum(['passed', 'failed'] as const),
    kind: Type.Optional(StringEnum(['security', 'functional'] as const, { description: 'Which engine produced the task' })),
    severity: Type.Optional(StringEnum(SEVERITIES, { description: 'Security tasks' })),
    evidence: Type.Optional(Type.String({ description: 'Security tasks: the request sent and the response part that proves the verdict (secrets masked)' })),
    error: Type.Optional(Type.String({ description: 'Functional tasks that failed' })),
    duration_ms: Type.Optional(Type.Number({ description: 'Functional tasks' })),
    check: Type.Optional(Type.String({ description: 'Security tasks: the check id; its explanation is in security.checks' })),
    owasp: Type.Optional(Type.String({ description: 'OWASP API Security Top 10 2023 id, e.g. API1:2023' })),
    cwe: Type.Optional(Type.String({ description: 'e.g. CWE-639' })),
    endpoint: Type.Optional(Type.String({ description: '`METHOD /path` of the operation tested' })),
    parameter: Type.Optional(Type.String({ description: 'The parameter involved, if any' })),
    endpoints: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Findings that are the same on every operation (missing headers, TRACE...): one task per target listing every operation affected',
      }),
    ),
    invented_values: Type.Optional(Type.Boolean({ description: 'True when the verdict rests on invented values: no real resource was found to test with' })),
    fingerprint: Type.Optional(
      Type.String({ description: "Failed tasks: the finding's fingerprint (32 hex characters), the same in every scan; what suppressions and baselines name" }),
    ),
    suppressed: Type.Optional(SuppressionMarkSchema),
  },
  open,
);

const Reference = Type.Object({ id: Type.String(), url: Type.String() }, open);

export const SecurityCheckSchema = Type.Object(
  {
    id: Type.String({ description: 'The check id tasks name in `check`' }),
    title: Type.String(),
    description: Type.String({ description: 'What the check does' }),
    risk: Type.String({ description: 'What an attacker gains when it fails' }),
    remediation: Type.String({ description: 'How to fix it' }),
    owasp: { ...Reference, description: 'OWASP API Security Top 10 2023 id and link' },
    cwe: { ...Reference, description: 'CWE id and link' },
    references: Type.Array(Type.Object({ title: Type.String(), url: Type.String() }, open)),
  },
  open,
);

export const OperationCoverageSchema = Type.Object(
  {
    endpoint: Type.String({ description: '`METHOD /path`' }),
    statuses: Type.Array(Type.Integer(), { description: 'Distinct HTTP statuses the operation answered during the scan (0: no response)' }),
    reached_2xx: Type.Object(
      {
        primary: Type.Boolean(),
        secondary: Type.Union([Type.Boolean(), Type.Null()], { description: 'null: no second identity was given' }),
        anonymous: Type.Boolean(),
      },
      { ...open, description: 'Whether a 2xx was reached with each identity' },
    ),
    requests: Type.Integer({ description: 'Requests sent to it' }),
    skipped: Type.Optional(Type.String({ description: 'Why the operation was skipped whole ("excluded", "safe mode: destructive")' })),
    invented_values: Type.Optional(Type.Boolean({ description: 'Its path parameters had only invented values (no real resource found)' })),
  },
  open,
);

/** Why a check run was not tested, machine-readable (docs/security-checks.md, "What not tested means"). */
export const NotRunCodeSchema = StringEnum(NOT_RUN_CODES, {
  description:
    'Why, as a stable code set by the engine: not_applicable (the check does not apply there: counted, not "not tested"), excluded, safe_mode, prerequisite_missing, ' +
    'never_authorised, validation_refused, not_found, server_error, no_answer, not_reached, inconclusive, target_down, identity_lost, own_account, time_ceiling, check_error. ' +
    'Absent in results stored before the codes existed.',
});

/** The codes a not-tested group of the results' `not_tested` may carry: the engine's, and `unclassified` for results stored before codes. */
export const NOT_RUN_CODES_UNCLASSIFIED = [...NOT_RUN_CODES, 'unclassified'] as const;

export const CheckCoverageSchema = Type.Object(
  {
    check: Type.String(),
    title: Type.String(),
    ran: Type.Integer({ description: 'Operations it ran on (1 for a check of the whole target)' }),
    not_run: Type.Array(
      Type.Object(
        {
          reason: Type.String({ description: 'e.g. "no second identity (auth.secondary)", "no JWT seen", "safe mode"' }),
          reason_code: Type.Optional(NotRunCodeSchema),
          count: Type.Integer(),
          endpoints: Type.Array(Type.String()),
        },
        open,
      ),
      { description: 'Operations it did not run on, grouped by reason' },
    ),
  },
  open,
);

export const SecuritySectionSchema = Type.Object(
  {
    warnings: Type.Array(Type.String(), { description: 'Also at the top level of the results body' }),
    coverage: Type.Object(
      {
        operations: Type.Array(OperationCoverageSchema),
        checks: Type.Array(CheckCoverageSchema),
        operations_2xx: Type.Integer({ description: 'Operations that answered 2xx with some identity' }),
        operations_total: Type.Integer({ description: 'Operations of the specification' }),
        resources_created: Type.Integer({ description: 'Resources the scan created on the target' }),
        resources_deleted: Type.Integer({ description: 'Of those, how many it deleted again' }),
        resources_left: Type.Optional(
          Type.Array(
            Type.Object({ created_by: Type.String(), identity: Type.String(), id: Type.Optional(Type.String()), path: Type.Optional(Type.String()) }, open),
            {
              description: 'Resources the scan created and could not delete (first 200): the operation that created each, its owner, its id or path',
            },
          ),
        ),
        identities: Type.Optional(
          Type.Array(
            Type.Object(
              {
                identity: Type.String({ description: '`primary` (auth) or `secondary` (auth.secondary)' }),
                verified: Type.Boolean(),
                verified_on: Type.Optional(Type.String()),
                unverified: Type.Optional(Type.String({ description: 'Why it could not be verified before discovery' })),
                lost_at: Type.Optional(Type.String({ description: 'When it stopped being accepted (or could not log in): nothing was sent as it after that' })),
                lost_reason: Type.Optional(Type.String()),
                logins: Type.Optional(Type.Integer()),
                refreshes: Type.Optional(Type.Integer()),
              },
              open,
            ),
            { description: 'Scans with identities: each one verified before discovery (on which operation) or why not, and when it was lost' },
          ),
        ),
      },
      { ...open, description: 'Passed must mean tested: what each operation reached, and where each check ran and, where not, why' },
    ),
    checks: Type.Array(SecurityCheckSchema, { description: 'Every check of the scan, with its explanation' }),
    target_down: Type.Optional(
      Type.Object(
        {
          at: Type.String({ format: 'date-time' }),
          check: Type.String(),
          endpoint: Type.Optional(Type.String()),
          waited_seconds: Type.Integer({ minimum: 0 }),
        },
        {
          ...open,
          description:
            "Set when the target stopped answering mid-scan and did not recover: when, after which check's probe on which operation, and how long the scan waited",
        },
      ),
    ),
  },
  {
    ...open,
    description:
      'Security and full scans: warnings, coverage and the catalogue of checks. null for functional scans and for scans finished before coverage was reported',
  },
);

/** A completed security scan's body, for the examples of GET /scan/{id}/results and the docs. */
export const SECURITY_RESULTS_EXAMPLE = {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
  status: 'completed',
  mode: 'security',
  url: 'https://api.example.com',
  spec_url: 'https://api.example.com/openapi.json',
  passed: 40,
  failed: 3,
  total: 43,
  elapsed_seconds: 12.4,
  agent_count: 5,
  progress_percent: 100,
  completed_at: '2026-11-22T10:00:12.000Z',
  fail_on: 'high',
  threshold_reached: true,
  severity_counts: { critical: 1, high: 1, medium: 0, low: 1, info: 0 },
  warnings: ['3 of 29 operations answered 2xx: is the base URL right, and are the credentials valid?'],
  tasks: [
    {
      task_id: 'bola-read:GET /orders/{id}',
      kind: 'security',
      name: "BOLA: another user's order is readable",
      status: 'failed',
      severity: 'critical',
      check: 'bola-read',
      owasp: 'API1:2023',
      cwe: 'CWE-639',
      endpoint: 'GET /orders/{id}',
      parameter: 'id',
      evidence: 'GET /orders/1002 as the second identity -> 200 {"id":1002,"owner":"alice",...}',
    },
    {
      task_id: 'security-headers',
      kind: 'security',
      name: 'Security headers missing',
      status: 'failed',
      severity: 'low',
      check: 'security-headers',
      owasp: 'API8:2023',
      cwe: 'CWE-693',
      endpoints: ['GET /orders', 'GET /orders/{id}', 'POST /orders'],
      evidence: 'GET /orders -> 200 without X-Content-Type-Options',
    },
  ],
  dom_snapshots: [],
  screenshots: [],
  security: {
    warnings: ['3 of 29 operations answered 2xx: is the base URL right, and are the credentials valid?'],
    coverage: {
      operations: [
        { endpoint: 'GET /orders/{id}', statuses: [200, 404], reached_2xx: { primary: true, secondary: true, anonymous: false }, requests: 14 },
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
          check: 'bola-read',
          title: 'Broken object level authorization (read)',
          ran: 3,
          not_run: [
            {
              reason: 'no resource of the first identity found',
              reason_code: 'prerequisite_missing',
              count: 2,
              endpoints: ['GET /invoices/{id}', 'GET /users/{name}'],
            },
          ],
        },
      ],
      operations_2xx: 3,
      operations_total: 29,
      resources_created: 2,
      resources_deleted: 2,
    },
    checks: [
      {
        id: 'bola-read',
        title: 'Broken object level authorization (read)',
        description: 'A resource the first identity owns is read with the second identity.',
        risk: "Any user can read other users' data by changing an id.",
        remediation: 'Check on every request that the caller owns (or may see) the object the id names.',
        owasp: { id: 'API1:2023', url: 'https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/' },
        cwe: { id: 'CWE-639', url: 'https://cwe.mitre.org/data/definitions/639.html' },
        references: [{ title: 'OWASP Authorization Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authorization_Cheat_Sheet.html' }],
      },
    ],
  },
};

const IMPACTS = ['critical', 'serious', 'moderate', 'minor'] as const;

export const AccessibilityNodeSchema = Type.Object(
  {
    target: Type.String({ description: 'axe-core\'s CSS selector of the element; inside frames or shadow roots one selector per level, joined with " >>> "' }),
    html: Type.String({ description: "The element's HTML as axe-core cut it (its opening tag and the start of its content)" }),
    failure_summary: Type.String({ description: 'What to fix, as axe-core words it ("Fix any of the following: ...")' }),
  },
  open,
);

const RuleFields = {
  rule: Type.String({ description: 'axe-core rule id' }),
  wcag: Type.String({ description: 'WCAG success criteria from the rule\'s tags ("1.4.3"), else "best-practice" or the Section 508 tag' }),
  page_url: Type.String(),
  elements_affected: Type.Integer({ description: 'Every element concerned; `nodes` lists the first 20' }),
  description: Type.String(),
  help_url: Type.String(),
};

export const AccessibilityViolationSchema = Type.Object(
  {
    ...RuleFields,
    impact: StringEnum(IMPACTS),
    nodes: Type.Optional(
      Type.Array(AccessibilityNodeSchema, { description: 'The first 20 failing elements (absent for scans made before elements were reported)' }),
    ),
    ...FunctionalTriageFields,
  },
  open,
);

export const AccessibilityReviewSchema = Type.Object(
  {
    ...RuleFields,
    impact: Type.Union([StringEnum(IMPACTS), Type.Null()]),
    nodes: Type.Array(AccessibilityNodeSchema, { description: 'The first 20 elements to check' }),
    error: Type.Optional(Type.String({ description: 'axe-core failed on the rule (it is then not scored)' })),
  },
  {
    ...open,
    description: 'A rule axe-core could not decide on some elements ("needs review", axe\'s incomplete): a person has to check them; not scored as a failure',
  },
);

export const AccessibilityEngineSchema = Type.Union(
  [Type.Object({ name: Type.Literal('axe-core'), version: Type.String({ examples: ['4.14.1'] }) }, open), Type.Null()],
  { description: 'The axe-core that ran; null for scans made before it was reported' },
);

/** An example violation, in the results body and the accessibility report. */
export const ACCESSIBILITY_VIOLATION_EXAMPLE = {
  rule: 'image-alt',
  impact: 'critical',
  wcag: '1.1.1',
  page_url: 'https://example.com/',
  elements_affected: 2,
  description: 'Ensure <img> elements have alternative text or a role of none or presentation',
  help_url: 'https://dequeuniversity.com/rules/axe/4.14/image-alt?application=axeAPI',
  nodes: [
    {
      target: 'main > img:nth-child(4)',
      html: '<img src="/hero.jpg" width="600">',
      failure_summary: 'Fix any of the following:\n  Element does not have an alt attribute\n  aria-label attribute does not exist or is empty',
    },
    { target: '#chat >>> form > img', html: '<img src="/agent.png">', failure_summary: 'Fix any of the following:\n  Element does not have an alt attribute' },
  ],
};

export const ACCESSIBILITY_REVIEW_EXAMPLE = {
  rule: 'color-contrast',
  impact: 'serious',
  wcag: '1.4.3',
  page_url: 'https://example.com/',
  elements_affected: 1,
  description: 'Ensure the contrast between foreground and background colors meets WCAG 2 AA minimum contrast ratio thresholds',
  help_url: 'https://dequeuniversity.com/rules/axe/4.14/color-contrast?application=axeAPI',
  nodes: [
    {
      target: '.hero > h1',
      html: '<h1>Restoring a 1970s bicycle</h1>',
      failure_summary: "Fix any of the following:\n  Element's background color could not be determined due to a background image",
    },
  ],
};

export const AccessibilitySectionSchema = Type.Object(
  {
    pages_scanned: Type.Integer(),
    violations: Type.Array(AccessibilityViolationSchema),
    needs_review: Type.Optional(Type.Array(AccessibilityReviewSchema)),
    engine: Type.Optional(AccessibilityEngineSchema),
    compliance_score: Type.Union([Type.Number(), Type.Null()], {
      description: "Lighthouse's accessibility score over the rules axe-core ran (0-100): see docs/functional-testing.md; null when no page was audited",
    }),
  },
  { ...open, description: 'Functional and full scans on pro and above' },
);
