/** Schemas of the scan routes: start, status, results, list, cancel, export (and the scan id every scan route takes). */
import { Type, type TInteger } from '@sinclair/typebox';
import { SCAN_MODES, SCAN_STATUSES, SEVERITIES } from '../../domain/scan.js';
import { EXPORT_FORMATS } from '../../reports/index.js';
import {
  AccessibilitySectionSchema,
  CI_EXAMPLE,
  CiBodySchema,
  NOT_RUN_CODES_UNCLASSIFIED,
  SECURITY_RESULTS_EXAMPLE,
  SecuritySectionSchema,
  SuppressionMarkSchema,
  TaskSchema,
} from './results.js';
import { AUTHENTICATED_ERRORS, PagingQuery, StringEnum } from './common.js';
import { PerformancePageSchema, VisualComparisonSchema } from './functional.js';

/** `{id}` of every `/scan/{id}/...` route. */
/** No length limit: an unknown id of any length is 404 NOT_FOUND, never a validation error (the contract's rule 3). */
export const ScanIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'scan_id (as returned by POST /scan; any other value is 404)' }) });

export const ScanStarted = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(['queued', 'running'] as const, { description: "The scan's real state when the response was written" }),
    created_at: Type.String({ format: 'date-time' }),
    mode: Type.String(),
  },
  {
    description: 'Scan admitted: one scan counted against the quota',
    examples: [{ scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'queued', created_at: '2026-11-22T10:00:00.000Z', mode: 'security' }],
  },
);

export const ScanStatusBody = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(SCAN_STATUSES),
    mode: Type.String(),
    url: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    progress_percent: Type.Integer(),
    phase: Type.Optional(
      Type.String({
        description:
          'Running scans, once the engine reports it: what it is doing (security: `discovery`, then the operation phases `read`, `create`, `update`, `delete`, `destructive`; functional: `pages`). An extension of the contract.',
      }),
    ),
    findings: Type.Optional(
      Type.Integer({ description: 'Running scans, once the engine reports it: failed tasks found so far. An extension of the contract.' }),
    ),
    failure_reason: Type.Optional(Type.String({ description: 'Why a failed or cancelled scan ended' })),
    ci: Type.Optional(CiBodySchema),
  },
  {
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        status: 'running',
        mode: 'security',
        url: 'https://api.example.com',
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:04.000Z',
        completed_at: null,
        progress_percent: 40,
        phase: 'read',
        findings: 2,
        ci: CI_EXAMPLE,
      },
    ],
  },
);

const NOT_TESTED_EXAMPLE = {
  everything_tested: false,
  headline: '12 of 40 operations never answered 2xx to any identity; 85 of 310 check runs were not tested.',
  causes: [
    {
      kind: 'target_down',
      at: '2026-11-22T10:00:17.000Z',
      text: "The target stopped answering at 2026-11-22T10:00:17.000Z, after the resource-consumption check's probe on POST /search, and did not answer again within 30 s: the scan stopped there and nothing after it was tested.",
    },
  ],
  operations: {
    total: 40,
    reached: 28,
    never_reached: 12,
    skipped: 1,
    reasons: [
      {
        reason_code: 'never_authorised',
        reason: 'never authorised: answered only 401/403',
        count: 9,
        endpoints: ['GET /admin/users', 'DELETE /admin/users/{id}'],
      },
      { reason_code: 'safe_mode', reason: 'skipped: safe mode: destructive or global', count: 1, endpoints: ['POST /admin/reset'] },
    ],
  },
  checks: {
    runs: 310,
    not_tested: 85,
    not_applicable: 120,
    reasons: [
      {
        reason_code: 'target_down',
        reason: 'the target stopped answering at 2026-11-22T10:00:17.000Z (after resource-consumption on POST /search) and did not recover',
        count: 60,
        checks: [
          {
            check: 'sqli',
            title: 'SQL injection',
            reason: 'the target stopped answering at 2026-11-22T10:00:17.000Z (after resource-consumption on POST /search) and did not recover',
            count: 30,
            endpoints: ['GET /orders', 'POST /orders'],
          },
        ],
      },
    ],
  },
};

const NotTestedReasonOperations = Type.Object(
  {
    reason_code: StringEnum(['not_reached', 'no_answer', 'never_authorised', 'server_error', 'excluded', 'safe_mode'] as const, {
      description: 'never answered 2xx (or no request was sent), no answer, only 401/403, only 5xx; or skipped whole: excluded, safe mode',
    }),
    reason: Type.String({ description: 'The text the operations share, else the code in words' }),
    count: Type.Integer({ minimum: 0 }),
    endpoints: Type.Array(Type.String(), { description: '`METHOD /path` of each operation' }),
  },
  { additionalProperties: true },
);

const NotTestedSchema = Type.Object(
  {
    everything_tested: Type.Boolean({
      description:
        'True when every operation answered 2xx to some identity, none was skipped, every check that applies ran and no identity or target was lost: readers show nothing then',
    }),
    headline: Type.String({ description: 'What was not tested, in one sentence of numbers' }),
    causes: Type.Array(
      Type.Object(
        {
          kind: StringEnum(['target_down', 'identity_lost', 'identity_refused'] as const, {
            description:
              'The target went down for good; an identity was lost (or could not log in); an identity was refused where authentication is needed before discovery',
          }),
          at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it happened, when known' }),
          text: Type.String(),
        },
        { additionalProperties: true },
      ),
      { description: 'Scan-level events behind what was not tested (from security.target_down and security.coverage.identities)' },
    ),
    operations: Type.Object(
      {
        total: Type.Integer({ minimum: 0, description: 'Operations tested (security.coverage.operations_total)' }),
        reached: Type.Integer({ minimum: 0, description: 'Of those, how many answered 2xx to some identity' }),
        never_reached: Type.Integer({ minimum: 0 }),
        skipped: Type.Integer({ minimum: 0, description: 'Operations skipped whole (excluded, safe mode)' }),
        reasons: Type.Array(NotTestedReasonOperations, {
          description:
            'Operations never reached, grouped by reason code (what they answered: "never authorised: answered only 401/403"), then those skipped, most first',
        }),
      },
      { additionalProperties: true },
    ),
    checks: Type.Object(
      {
        runs: Type.Integer({
          minimum: 0,
          description: 'Check runs that apply (a check on one operation, or once for a check of the whole target): those that ran and those not tested',
        }),
        not_tested: Type.Integer({ minimum: 0 }),
        not_applicable: Type.Integer({
          minimum: 0,
          description: 'Check runs that do not apply (no body, no object id, public by design...): counted, not listed',
        }),
        reasons: Type.Array(
          Type.Object(
            {
              reason_code: StringEnum(NOT_RUN_CODES_UNCLASSIFIED, {
                description:
                  'security.coverage.checks[].not_run[].reason_code (never not_applicable: those are only counted); unclassified for results stored before the codes existed',
              }),
              reason: Type.String({
                description: 'The text the check runs of the group share (as in security.coverage.checks[].not_run), else the code in words',
              }),
              count: Type.Integer({ minimum: 0 }),
              checks: Type.Array(
                Type.Object(
                  {
                    check: Type.String(),
                    title: Type.String(),
                    reason: Type.String({ description: 'As in security.coverage.checks[].not_run' }),
                    count: Type.Integer({ minimum: 0 }),
                    endpoints: Type.Array(Type.String()),
                  },
                  { additionalProperties: true },
                ),
              ),
            },
            { additionalProperties: true },
          ),
          { description: "Check runs not tested, grouped by reason code, most first, with the checks (and each one's reason text) and operations of each" },
        ),
      },
      { additionalProperties: true },
    ),
  },
  {
    additionalProperties: true,
    title: 'NotTested',
    description:
      'Finished security and full scans: what was not tested and why, per operation and per check, grouped from `security` (coverage, target_down, identities). ' +
      'null for functional scans and for scans without a security section (stored before coverage, or failed before the engine reported any). ' +
      "The HTML report, SARIF (invocation notifications and properties.not_tested), JUnit (the security suite's properties and system-out) and the dashboard lead with it.",
    examples: [NOT_TESTED_EXAMPLE],
  },
);

export const ResultsBody = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(SCAN_STATUSES),
    progress_percent: Type.Integer({ description: 'In-progress form: how far the scan is' }),
    phase: Type.Optional(
      Type.String({
        description:
          'In-progress form of a running scan, once the engine reports it: what it is doing (security: `discovery`, `read`, `create`, `update`, `delete`, `destructive`; functional: `pages`). An extension of the contract.',
      }),
    ),
    findings: Type.Optional(
      Type.Integer({ description: 'In-progress form of a running scan, once the engine reports it: failed tasks found so far. An extension of the contract.' }),
    ),
    passed: Type.Optional(Type.Integer()),
    failed: Type.Optional(Type.Integer()),
    total: Type.Optional(Type.Integer()),
    elapsed_seconds: Type.Optional(Type.Number()),
    agent_count: Type.Optional(Type.Integer()),
    tasks: Type.Optional(Type.Array(TaskSchema)),
    severity_counts: Type.Optional(
      Type.Object(Object.fromEntries(SEVERITIES.map((s) => [s, Type.Integer({ minimum: 0 })])) as Record<(typeof SEVERITIES)[number], TInteger>, {
        additionalProperties: true,
        description: 'Failed tasks per severity',
      }),
    ),
    fail_on: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    threshold_reached: Type.Optional(Type.Boolean({ description: 'A failed task is at or above options.fail_on' })),
    failure_reason: Type.Optional(Type.String()),
    not_tested: Type.Optional(
      Type.Union([NotTestedSchema, Type.Null()], {
        description: 'Finished scans: what was not tested and why (null for functional scans and scans without a security section)',
      }),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Finished scans: what makes the verdicts doubtful, e.g. "0 of 29 operations answered 2xx: is the base URL right?", or a page measured before it finished loading (empty when nothing does)',
      }),
    ),
    mode: StringEnum(SCAN_MODES),
    url: Type.String({ description: 'The target, as the scan was started' }),
    ci: Type.Optional(CiBodySchema),
    spec_url: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Finished scans: the specification's URL when the scan was started from one (null when it was uploaded, given inline or not needed)",
      }),
    ),
    completed_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    dom_snapshots: Type.Optional(
      Type.Array(
        Type.Object(
          {
            page_url: Type.String(),
            url: Type.String({ description: "Signed, expiring URL of the page's visible text and boxes as captured (JSON)" }),
            text_changes: Type.Array(
              Type.Object({ kind: Type.String(), selector: Type.String(), description: Type.String() }, { additionalProperties: true }),
              { description: 'Texts changed, added or removed since the baseline' },
            ),
          },
          { additionalProperties: true },
        ),
        { description: 'Functional scans: per captured page, its visible text and boxes (pages captured before snapshots existed have none)' },
      ),
    ),
    screenshots: Type.Optional(
      Type.Array(
        Type.Object(
          { page_url: Type.String(), url: Type.String({ description: 'Signed, expiring link to the current screenshot' }) },
          { additionalProperties: true },
        ),
        {
          description: 'Functional and full scans on pro and above: one current screenshot per page',
        },
      ),
    ),
    security: Type.Optional(Type.Union([SecuritySectionSchema, Type.Null()])),
    visual_regression: Type.Optional(
      Type.Object(
        { comparisons: Type.Array(VisualComparisonSchema, { description: 'One comparison per page' }), diffs_detected: Type.Integer() },
        { additionalProperties: true, description: 'Functional and full scans on pro and above' },
      ),
    ),
    accessibility: Type.Optional(AccessibilitySectionSchema),
    performance: Type.Optional(
      Type.Object(
        {
          pages_tested: Type.Integer(),
          metrics: Type.Array(
            Type.Object(
              { ...PerformancePageSchema.properties, page: Type.String({ description: "The page URL (the contract's name for page_url)" }) },
              { additionalProperties: true },
            ),
          ),
          performance_score: Type.Union([Type.Number(), Type.Null()], { description: '0-100; null when no page was scored' }),
        },
        { additionalProperties: true, description: 'Functional and full scans on pro and above' },
      ),
    ),
  },
  {
    additionalProperties: true,
    title: 'ScanResults',
    description:
      'While queued or running: `scan_id`, `status`, `mode`, `progress_percent`, and while running `phase` and `findings` (failed tasks so far) ' +
      'once the engine reports them (an extension of the contract). Once finished: counts, tasks, and for functional ' +
      'and full scans on pro and above the `visual_regression`, `accessibility` and `performance` sections. Security and full scans add ' +
      "`security` (coverage per operation and per check, and every check's title, description, risk, remediation and references) and " +
      'its `warnings` and `not_tested` (what was not tested and why) at the top level.',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        status: 'running',
        mode: 'security',
        url: 'https://api.example.com',
        progress_percent: 40,
        phase: 'read',
        findings: 2,
      },
      { ...SECURITY_RESULTS_EXAMPLE, not_tested: NOT_TESTED_EXAMPLE },
    ],
  },
);

export const ScanListQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(StringEnum(SCAN_STATUSES, { description: 'Only scans in this state' })),
  mode: Type.Optional(StringEnum(SCAN_MODES, { description: 'Only scans of this mode' })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Only scans of this target URL (exactly as started)' })),
  branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only scans started with this CI branch (`ci.branch`)' })),
});

export const ScanList = Type.Object(
  {
    scans: Type.Array(
      Type.Object({
        scan_id: Type.String(),
        status: Type.String(),
        mode: Type.String(),
        url: Type.String(),
        created_at: Type.String(),
        updated_at: Type.String(),
        completed_at: Type.Union([Type.String(), Type.Null()]),
        passed: Type.Union([Type.Integer(), Type.Null()]),
        failed: Type.Union([Type.Integer(), Type.Null()]),
        total: Type.Union([Type.Integer(), Type.Null()]),
        progress_percent: Type.Integer({ description: 'How far the scan is (100 once finished)' }),
        ci: Type.Optional(CiBodySchema),
      }),
    ),
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_pages: Type.Integer(),
  },
  {
    examples: [
      {
        scans: [
          {
            scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
            status: 'completed',
            mode: 'security',
            url: 'https://api.example.com',
            created_at: '2026-11-22T10:00:00.000Z',
            updated_at: '2026-11-22T10:00:12.000Z',
            completed_at: '2026-11-22T10:00:12.000Z',
            passed: 41,
            failed: 2,
            total: 43,
            progress_percent: 100,
            ci: CI_EXAMPLE,
          },
        ],
        total: 1,
        page: 1,
        per_page: 20,
        total_pages: 1,
      },
    ],
  },
);

export const ExportQuery = Type.Object({ format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'json', description: 'html, json or csv' })) });

/** What the multipart upload documents (the form is read and validated by code: see scan-form.ts). */
export const ScanUploadForm = Type.Object({
  spec_file: Type.String({ format: 'binary', description: 'OpenAPI/Swagger document' }),
  base_url: Type.String({ description: 'Target base URL' }),
  mode: Type.Optional(StringEnum(['security', 'functional', 'full'] as const)),
  auth: Type.Optional(Type.String({ description: 'JSON object, as in POST /scan' })),
  options: Type.Optional(Type.String({ description: 'JSON object, as in POST /scan' })),
});

/** Errors of the three start routes and the upload. */
export const START_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  400: 'Body is not JSON or not an object (INVALID_REQUEST)',
  402: 'Plan lacks the feature (FEATURE_NOT_AVAILABLE, with upgrade_url) or the quota is used up (QUOTA_EXCEEDED, with quota_reset_date)',
  422: 'A field failed validation (VALIDATION_ERROR, with fields[])',
  429: 'Rate limit (RATE_LIMIT_EXCEEDED) or too many scans queued or running at once (CONCURRENT_LIMIT)',
};

const ChangedFindingSchema = Type.Object(
  {
    fingerprint: Type.String({ description: 'The finding fingerprint (32 hex characters): what suppressions name' }),
    name: Type.String(),
    kind: Type.Optional(StringEnum(['security', 'functional'] as const)),
    severity: Type.Optional(StringEnum(SEVERITIES)),
    check: Type.Optional(Type.String()),
    endpoint: Type.Optional(Type.String({ description: '`METHOD /path` of the operation' })),
    parameter: Type.Optional(Type.String()),
    task_id: Type.String({ description: "The task of the scan the finding was found in (the previous scan's for a fixed one)" }),
    suppressed: Type.Optional(
      Type.Object(
        {
          ...SuppressionMarkSchema.properties,
          suppression_id: Type.Optional(Type.String({ description: 'The suppression: DELETE /suppressions/{suppression_id} un-suppresses the finding' })),
        },
        { additionalProperties: true, description: 'Present when an active suppression covers the finding (judged now, for fixed findings too)' },
      ),
    ),
  },
  { additionalProperties: true },
);

const CHANGES_EXAMPLE = {
  scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
  url: 'https://api.example.com',
  mode: 'security',
  branch: 'feature/new-checkout',
  commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  previous: {
    scan_id: 'scn_Pz8c2Wq1Nn7bT4eR',
    completed_at: '2026-11-21T16:40:12.000Z',
    branch: 'main',
    commit: 'e83c5163316f89bfbde7d9ab23ca2e25604af290',
    basis: 'base_branch',
  },
  counts: { new: 1, fixed: 1, still_open: 1, suppressed: 1 },
  new: [
    {
      fingerprint: '3f2a9c0d41b7e5a09c1d2e3f4a5b6c7d',
      name: 'SQL injection in parameter q',
      kind: 'security',
      severity: 'critical',
      check: 'sqli',
      endpoint: 'GET /search',
      parameter: 'q',
      task_id: 'task_sqli_3',
    },
  ],
  fixed: [
    {
      fingerprint: '0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e',
      name: 'Missing rate limiting',
      kind: 'security',
      severity: 'medium',
      check: 'rate-limit',
      endpoint: 'POST /login',
      task_id: 'task_rate_1',
    },
  ],
  still_open: [
    {
      fingerprint: '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d',
      name: 'Object-level authorization bypass',
      kind: 'security',
      severity: 'high',
      check: 'bola',
      endpoint: 'GET /users/{id}',
      task_id: 'task_bola_2',
      suppressed: {
        reason: 'Public profiles by design (SEC-142)',
        author: 'dana@example.com',
        expires_at: null,
        source: 'server',
        suppression_id: 'sup_Qm9vdHN0cmFwcGVk',
      },
    },
  ],
};

export const ScanChangesBody = Type.Object(
  {
    scan_id: Type.String(),
    url: Type.String({ description: 'The target, as the scan was started' }),
    mode: StringEnum(SCAN_MODES),
    branch: Type.Union([Type.String(), Type.Null()], { description: "The scan's CI branch (ci.branch); null without" }),
    commit: Type.Union([Type.String(), Type.Null()], { description: "The scan's CI commit (ci.commit); null without" }),
    previous: Type.Union(
      [
        Type.Object(
          {
            scan_id: Type.String(),
            completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            branch: Type.Union([Type.String(), Type.Null()]),
            commit: Type.Union([Type.String(), Type.Null()]),
            basis: StringEnum(['same_branch', 'base_branch', 'target'] as const, {
              description:
                'same_branch: the latest completed scan of the target (URL and mode) on the same branch (for a scan without branch: without branch); base_branch: none there, the latest on ci.base_branch; target: neither, the latest of the target on any branch',
            }),
          },
          { additionalProperties: true },
        ),
        Type.Null(),
      ],
      { description: "The completed scan compared with; null for the target's first completed scan (every finding is then new)" },
    ),
    counts: Type.Object(
      {
        new: Type.Integer({ minimum: 0 }),
        fixed: Type.Integer({ minimum: 0 }),
        still_open: Type.Integer({ minimum: 0 }),
        suppressed: Type.Integer({ minimum: 0, description: 'New and still-open findings an active suppression covers' }),
      },
      { additionalProperties: true },
    ),
    new: Type.Array(ChangedFindingSchema, { description: 'Found by this scan, not by the previous one' }),
    fixed: Type.Array(ChangedFindingSchema, { description: 'Found by the previous scan, not by this one' }),
    still_open: Type.Array(ChangedFindingSchema, { description: 'Found by both' }),
  },
  {
    title: 'ScanChanges',
    description: 'What changed since the previous completed scan of the same target and branch, by finding fingerprint',
    examples: [CHANGES_EXAMPLE],
  },
);
