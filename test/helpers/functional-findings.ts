/**
 * A functional scan's findings, as the functional engine would report them for two pages of shop.test:
 * on /checkout a visual diff, a colour-contrast violation, a missed LCP budget and a missed accessibility
 * budget (each page's task failed for those findings only: the accessibility task for its violation and
 * its accessibility budget), on / an image-alt violation. Used by the triage tests of the API and the dashboard.
 */
import type { EngineOutcome, FunctionalOutcome, Task } from '../../src/domain/scan.js';
import type { ScanEngine } from '../../src/engines/engine.js';

export const PAGE = 'https://shop.test/checkout';
export const OTHER_PAGE = 'https://shop.test/';

export const OUTCOME: FunctionalOutcome = {
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
    pages: [
      { page_url: PAGE, violations: 1, compliance_score: 80 },
      { page_url: OTHER_PAGE, violations: 1, compliance_score: 80 },
    ],
  },
  performance: {
    performance_score: 71,
    pages: [
      {
        page_url: PAGE,
        performance_score: 71,
        lcp_ms: 3200,
        fid_ms: 40,
        cls: 0.02,
        ttfb_ms: 200,
        fcp_ms: 900,
        tbt_ms: 150,
        si_ms: 1800,
        tti_ms: 2500,
        rating: 'needs-improvement',
        // The engine judged the scan's options.budgets (sent by the CLI): lcp missed, tbt kept, and the
        // accessibility audit the page's accessibility score (missed).
        budgets: [
          { metric: 'lcp', actual: 3200, limit: 2500, kind: 'max', level: 'error', passed: false },
          { metric: 'tbt', actual: 150, limit: 300, kind: 'max', level: 'error', passed: true },
          { metric: 'accessibility', actual: 80, limit: 90, kind: 'min', level: 'error', passed: false },
        ],
      },
    ],
  },
};

/** The tasks the functional engine reports for these pages (what SARIF, JUnit and CSV list). */
export const TASKS: Task[] = [
  { task_id: 'visual', kind: 'functional', name: 'Visual regression: /checkout', status: 'failed', error: '4.2% of pixels differ' },
  {
    task_id: 'a11y',
    kind: 'functional',
    name: 'Accessibility (wcag2aa): /checkout',
    status: 'failed',
    error: '1 violation(s); over budget: accessibility 80 (limit >= 90)',
  },
  { task_id: 'a11y-home', kind: 'functional', name: 'Accessibility (wcag2aa): /', status: 'failed', error: '1 violation' },
  { task_id: 'perf', kind: 'functional', name: 'Performance: /checkout', status: 'failed', error: 'over budget: lcp 3200 (limit <= 2500)' },
];

/** A functional engine that reports these findings for every scan. */
export const functionalFindingsEngine: ScanEngine = {
  kind: 'functional',
  async run(): Promise<EngineOutcome> {
    return {
      tasks: TASKS,
      agent_count: 1,
      functional: OUTCOME,
    };
  },
};
