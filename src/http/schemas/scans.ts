/** Schemas of the scan routes: start, status, results, list, cancel, export (and the scan id every scan route takes). */
import { Type } from '@sinclair/typebox';
import { SCAN_MODES, SCAN_STATUSES } from '../../domain/scan.js';
import { EXPORT_FORMATS } from '../../reports/index.js';
import { AccessibilitySectionSchema, SECURITY_RESULTS_EXAMPLE, SecuritySectionSchema, TaskSchema } from './results.js';
import { AUTHENTICATED_ERRORS, PagingQuery, StringEnum } from './common.js';

/** `{id}` of every `/scan/{id}/...` route. */
export const ScanIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'scan_id' }) });

export const ScanStarted = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(['queued', 'running'] as const, { description: 'The scan\'s real state when the response was written' }),
    created_at: Type.String({ format: 'date-time' }),
    mode: Type.String(),
  },
  { description: 'Scan admitted: one scan counted against the quota', examples: [{ scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'queued', created_at: '2026-11-22T10:00:00.000Z', mode: 'security' }] },
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
    phase: Type.Optional(Type.String({ description: 'Running scans, once the engine reports it: what it is doing (security: `discovery`, then the operation phases `read`, `create`, `update`, `delete`, `destructive`; functional: `pages`). An extension of the contract.' })),
    findings: Type.Optional(Type.Integer({ description: 'Running scans, once the engine reports it: failed tasks found so far. An extension of the contract.' })),
    failure_reason: Type.Optional(Type.String({ description: 'Why a failed or cancelled scan ended' })),
  },
  { examples: [{ scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'running', mode: 'security', url: 'https://api.example.com', created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:04.000Z', completed_at: null, progress_percent: 40, phase: 'read', findings: 2 }] },
);

export const ResultsBody = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(SCAN_STATUSES),
    progress_percent: Type.Integer({ description: 'In-progress form: how far the scan is' }),
    phase: Type.Optional(Type.String({ description: 'In-progress form of a running scan, once the engine reports it: what it is doing (security: `discovery`, `read`, `create`, `update`, `delete`, `destructive`; functional: `pages`). An extension of the contract.' })),
    findings: Type.Optional(Type.Integer({ description: 'In-progress form of a running scan, once the engine reports it: failed tasks found so far. An extension of the contract.' })),
    passed: Type.Optional(Type.Integer()),
    failed: Type.Optional(Type.Integer()),
    total: Type.Optional(Type.Integer()),
    elapsed_seconds: Type.Optional(Type.Number()),
    agent_count: Type.Optional(Type.Integer()),
    tasks: Type.Optional(Type.Array(TaskSchema)),
    severity_counts: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Failed tasks per severity' })),
    fail_on: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    threshold_reached: Type.Optional(Type.Boolean({ description: 'A failed task is at or above options.fail_on' })),
    failure_reason: Type.Optional(Type.String()),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'Finished scans: what makes the verdicts doubtful, e.g. "0 of 29 operations answered 2xx: is the base URL right?", or a page measured before it finished loading (empty when nothing does)' }),
    ),
    security: Type.Optional(Type.Union([SecuritySectionSchema, Type.Null()])),
    accessibility: Type.Optional(AccessibilitySectionSchema),
  },
  {
    additionalProperties: true,
    description:
      'While queued or running: `scan_id`, `status`, `mode`, `progress_percent`, and while running `phase` and `findings` (failed tasks so far) ' +
      'once the engine reports them (an extension of the contract). Once finished: counts, tasks, and for functional ' +
      'and full scans on pro and above the `visual_regression`, `accessibility` and `performance` sections. Security and full scans add ' +
      '`security` (coverage per operation and per check, and every check\'s title, description, risk, remediation and references) and ' +
      'its `warnings` at the top level.',
    examples: [{ scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'running', mode: 'security', progress_percent: 40, phase: 'read', findings: 2 }, SECURITY_RESULTS_EXAMPLE],
  },
);

export const ScanListQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(StringEnum(SCAN_STATUSES, { description: 'Only scans in this state' })),
  mode: Type.Optional(StringEnum(SCAN_MODES, { description: 'Only scans of this mode' })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Only scans of this target URL (exactly as started)' })),
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
      }),
    ),
    total: Type.Integer(),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_pages: Type.Integer(),
  },
  { examples: [{ scans: [{ scan_id: 'scn_Vq3b9xk2Lm0aP1cD', status: 'completed', mode: 'security', url: 'https://api.example.com', created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:12.000Z', completed_at: '2026-11-22T10:00:12.000Z', passed: 41, failed: 2, total: 43, progress_percent: 100 }], total: 1, page: 1, per_page: 20, total_pages: 1 }] },
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

