/** Schemas of the functional results and the visual regression, accessibility and performance sub-reports. */
import { Type } from '@sinclair/typebox';
import { SCAN_MODES, SCAN_STATUSES } from '../../domain/scan.js';
import { AUTHENTICATED_ERRORS, StringEnum } from './common.js';
import {
  ACCESSIBILITY_REVIEW_EXAMPLE,
  ACCESSIBILITY_VIOLATION_EXAMPLE,
  AccessibilityEngineSchema,
  AccessibilityReviewSchema,
  AccessibilityViolationSchema,
  FunctionalTriageFields,
  TaskSchema,
} from './results.js';

const open = { additionalProperties: true } as const;
const Score = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description });

const Rect = {
  x: Type.Integer(),
  y: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
};

/** One page compared with its baseline (visual regression report, and `visual_regression.comparisons` of the results body). */
export const VisualComparisonSchema = Type.Object(
  {
    page_url: Type.String(),
    page_key: Type.Optional(Type.String({ description: "The page's baseline key (path and query, or label): what POST /baselines/approve takes as `page`" })),
    baseline_branch: Type.Optional(Type.String({ description: 'The branch of the baseline the page was compared with' })),
    viewport: Type.String({ description: 'e.g. 1280x800' }),
    diff_detected: Type.Boolean(),
    diff_percent: Type.Number({ description: 'Percent of pixels changed' }),
    screenshot_before: Type.String({ description: 'Signed, expiring URL of the baseline image' }),
    screenshot_after: Type.String({ description: 'Signed, expiring URL of the current image' }),
    diff_image: Type.Union([Type.String(), Type.Null()], { description: 'URL of the highlighted diff; null when no diff' }),
    diff_thumbnail: Type.Union([Type.String(), Type.Null()], { description: 'The diff image at most 320 px wide; null when no diff' }),
    baseline_created: Type.Boolean({ description: "This scan set the page's first baseline" }),
    regions: Type.Array(Type.Object({ ...Rect, changed_pixels: Type.Integer() }, open), { description: 'Changed regions, largest first' }),
    min_region_px: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Smallest changed region that counts as a diff (null for results stored before it was recorded)',
    }),
    unstable: Type.Boolean({ description: 'Part of the page kept changing between screenshots: those areas were left out' }),
    moving_regions: Type.Array(Type.Object({ ...Rect, selector: Type.Union([Type.String(), Type.Null()]) }, open)),
    hint: Type.Union([Type.String(), Type.Null()], { description: 'What to mask when the page is unstable' }),
    text_changes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            kind: StringEnum(['changed', 'added', 'removed']),
            selector: Type.String(),
            tag: Type.String(),
            before: Type.Union([Type.String(), Type.Null()]),
            after: Type.Union([Type.String(), Type.Null()]),
            box: Type.Object(Rect, open),
            description: Type.String(),
          },
          open,
        ),
        { description: 'Visible texts changed, added or removed since the baseline, whatever their pixel count' },
      ),
    ),
    layout_moves: Type.Optional(
      Type.Array(
        Type.Object(
          {
            selector: Type.String({ description: 'The first element of the run (current page)' }),
            tag: Type.String(),
            text: Type.String(),
            elements: Type.Integer({ minimum: 1, description: 'Consecutive elements shifted alike, counted as one move' }),
            dx: Type.Integer({ description: 'Horizontal offset in page pixels (right is positive)' }),
            dy: Type.Integer({ description: 'Vertical offset in page pixels (down is positive)' }),
            width_change: Type.Integer(),
            height_change: Type.Integer(),
            before: Type.Object(Rect, open),
            after: Type.Object(Rect, open),
            description: Type.String(),
          },
          open,
        ),
        {
          description:
            'On a pixel diff: elements that kept their text but moved or changed size (3 px or more) since the baseline, largest runs first, at most 20',
        },
      ),
    ),
    message: Type.Optional(Type.String({ description: '"baseline recorded" on a first scan; how to approve a diff otherwise' })),
    dom_snapshot: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "Signed URL of the page's visible text and boxes as captured (JSON)" }),
    ),
    ...FunctionalTriageFields,
  },
  { ...open, title: 'VisualComparison' },
);

const BudgetLineSchema = Type.Object(
  {
    metric: Type.String(),
    actual: Type.Union([Type.Number(), Type.Null()]),
    limit: Type.Number(),
    kind: Type.String(),
    level: Type.String(),
    passed: Type.Boolean(),
    // A missed budget is a finding: its fingerprint and, when a suppression covers it, its mark.
    ...FunctionalTriageFields,
  },
  { ...open, title: 'BudgetLine' },
);

/** One page's Core Web Vitals and lab metrics (performance report pages, and `performance.metrics` of the results body). */
export const PerformancePageSchema = Type.Object(
  {
    page_url: Type.String(),
    performance_score: Score('Lighthouse v10+ weights, 0-100; null when the page could not be scored'),
    lcp_ms: Type.Number(),
    fid_ms: Type.Number({ description: 'Lab stand-in: max potential FID' }),
    cls: Type.Number(),
    ttfb_ms: Type.Number(),
    fcp_ms: Type.Number(),
    tbt_ms: Type.Number(),
    si_ms: Type.Number(),
    tti_ms: Type.Number(),
    rating: StringEnum(['good', 'needs-improvement', 'poor'] as const),
    throttling: Type.Optional(Type.String({ description: 'simulate, devtools or none' })),
    budgets: Type.Optional(Type.Array(BudgetLineSchema)),
  },
  { ...open, title: 'PerformancePage' },
);

export const FunctionalResults = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(SCAN_STATUSES),
    mode: StringEnum(SCAN_MODES),
    url: Type.String({ description: 'The target, as the scan was started' }),
    progress_percent: Type.Optional(Type.Integer({ description: 'In-progress form: how far the scan is' })),
    phase: Type.Optional(Type.String({ description: 'In-progress form of a running scan: what the engine is doing' })),
    findings: Type.Optional(Type.Integer({ description: 'In-progress form of a running scan: failed tasks so far' })),
    passed: Type.Optional(Type.Integer()),
    failed: Type.Optional(Type.Integer()),
    total: Type.Optional(Type.Integer()),
    elapsed_seconds: Type.Optional(Type.Number()),
    agent_count: Type.Optional(Type.Integer()),
    tasks: Type.Optional(Type.Array(TaskSchema)),
    visual_regression: Type.Optional(
      Type.Object(
        { comparisons: Type.Integer(), diffs_detected: Type.Integer(), diff_threshold_percent: Type.Number() },
        { ...open, description: 'Summary on every plan' },
      ),
    ),
    accessibility: Type.Optional(
      Type.Object(
        {
          pages_scanned: Type.Integer(),
          violations: Type.Integer({ description: 'Violated rules, all pages together' }),
          compliance_score: Score('0-100; null when no page was audited'),
        },
        open,
      ),
    ),
    performance: Type.Optional(Type.Object({ pages_tested: Type.Integer(), performance_score: Score('0-100; null when no page was scored') }, open)),
    warnings: Type.Optional(Type.Array(Type.String(), { description: 'Pages whose results may be incomplete, "<url>: <what happened>"' })),
    failure_reason: Type.Optional(Type.String()),
  },
  {
    ...open,
    title: 'FunctionalResults',
    description:
      'Functional results: the in-progress form (scan_id, status, mode, url, progress_percent) until the scan finishes, then the functional tasks and the three summaries',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        status: 'completed',
        mode: 'functional',
        url: 'https://www.example.com',
        passed: 8,
        failed: 1,
        total: 9,
        elapsed_seconds: 14.2,
        agent_count: 3,
        tasks: [],
        visual_regression: { comparisons: 3, diffs_detected: 1, diff_threshold_percent: 0.5 },
        accessibility: { pages_scanned: 3, violations: 4, compliance_score: 91.3 },
        performance: { pages_tested: 3, performance_score: 88 },
        warnings: [],
      },
    ],
  },
);

export const FUNCTIONAL_RESULTS_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  404: 'No such scan for this tenant',
  409: 'Started in security mode (NOT_A_FUNCTIONAL_SCAN)',
};

export const VisualRegressionReport = Type.Object(
  {
    scan_id: Type.String(),
    comparisons: Type.Integer({ description: 'Page comparisons performed' }),
    diffs_detected: Type.Integer({ description: 'Pages whose difference exceeded the threshold' }),
    diff_threshold_percent: Type.Number({ description: 'Threshold used (percent of pixels)' }),
    pages: Type.Array(VisualComparisonSchema),
  },
  {
    ...open,
    description: 'Visual regression report',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        comparisons: 1,
        diffs_detected: 1,
        diff_threshold_percent: 0.5,
        pages: [
          {
            page_url: 'https://example.com/',
            page_key: '/',
            baseline_branch: 'main',
            diff_detected: true,
            diff_percent: 0.06,
            screenshot_before: 'https://vigil.example.com/api/v1/artifacts/art_...?tenant=acme&expires=...&signature=...',
            screenshot_after: '...',
            diff_image: '...',
            diff_thumbnail: '...',
            regions: [{ x: 465, y: 104, width: 116, height: 33, changed_pixels: 1108 }],
            min_region_px: 150,
            unstable: false,
            moving_regions: [],
            hint: null,
            text_changes: [
              {
                kind: 'changed',
                selector: 'main > h1',
                tag: 'h1',
                before: 'Harbour News',
                after: 'Harbour Daily',
                box: { x: 32, y: 83, width: 1216, height: 36 },
                description: "h1 text changed: 'Harbour News' → 'Harbour Daily' (main > h1)",
              },
            ],
            layout_moves: [],
            message:
              'if this change is intended, approve it as the page\'s baseline: POST /api/v1/baselines/approve with {"scan_id":"scn_Vq3b9xk2Lm0aP1cD","page":"/"} ..., or with "Approve current as baseline" on this scan\'s page of the dashboard',
            dom_snapshot: 'https://vigil.example.com/api/v1/artifacts/art_...?tenant=acme&expires=...&signature=...',
            viewport: '1280x800',
            baseline_created: false,
          },
        ],
      },
    ],
  },
);

export const AccessibilityReport = Type.Object(
  {
    scan_id: Type.String(),
    pages_scanned: Type.Integer(),
    total_violations: Type.Integer(),
    compliance_score: Type.Union([Type.Number(), Type.Null()], {
      description: "Lighthouse's accessibility score over the rules axe-core ran, all pages together (0-100); null when no page was audited",
    }),
    wcag_level: Type.String({ description: 'The profile: wcag21aa, wcag22aa or section508' }),
    engine: AccessibilityEngineSchema,
    violations: Type.Array(AccessibilityViolationSchema),
    total_needs_review: Type.Integer({ description: 'Rules axe-core could not decide on some elements, all pages together' }),
    needs_review: Type.Array(AccessibilityReviewSchema),
    pages: Type.Array(
      Type.Object(
        {
          page_url: Type.String(),
          violations: Type.Integer({ description: 'Rules violated on the page' }),
          needs_review: Type.Optional(Type.Integer({ description: 'Rules needing review on the page' })),
          compliance_score: Type.Number(),
        },
        { additionalProperties: true },
      ),
    ),
  },
  {
    additionalProperties: true,
    description:
      'Accessibility report: each violation with its elements (selector, HTML, what to fix), the needs-review results apart, the axe-core version that ran',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        pages_scanned: 1,
        total_violations: 1,
        compliance_score: 91,
        wcag_level: 'wcag21aa',
        engine: { name: 'axe-core', version: '4.14.1' },
        violations: [ACCESSIBILITY_VIOLATION_EXAMPLE],
        total_needs_review: 1,
        needs_review: [ACCESSIBILITY_REVIEW_EXAMPLE],
        pages: [{ page_url: 'https://example.com/', violations: 1, needs_review: 1, compliance_score: 91 }],
      },
    ],
  },
);

export const PerformanceReport = Type.Object(
  {
    scan_id: Type.String(),
    pages_tested: Type.Integer(),
    performance_score: Score("Mean of the pages' scores, 0-100; null when no page was scored"),
    pages: Type.Array(PerformancePageSchema),
  },
  {
    ...open,
    description: 'Performance report',
    examples: [
      {
        scan_id: 'scn_Vq3b9xk2Lm0aP1cD',
        pages_tested: 1,
        performance_score: 97,
        pages: [
          {
            page_url: 'https://example.com/',
            performance_score: 97,
            lcp_ms: 820,
            fid_ms: 16,
            cls: 0.01,
            ttfb_ms: 40,
            fcp_ms: 610,
            tbt_ms: 0,
            si_ms: 700,
            tti_ms: 820,
            rating: 'good',
            throttling: 'simulate',
            budgets: [{ metric: 'lcp', actual: 820, limit: 2500, kind: 'max', level: 'error', passed: true }],
          },
        ],
      },
    ],
  },
);

export const SUB_REPORT_ERRORS = {
  ...AUTHENTICATED_ERRORS,
  402: 'Sub-reports need the pro plan or above (FEATURE_NOT_AVAILABLE, with upgrade_url)',
  404: 'No such scan for this tenant',
  409: 'The scan has not finished (SCAN_NOT_COMPLETE) or was started in security mode (NOT_A_FUNCTIONAL_SCAN)',
};
