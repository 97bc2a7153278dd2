/** What a finished (or failed/cancelled) scan looks like to readers: the API, exports and the CLI. */
import type { BudgetLine } from './budgets.js';
import type { ScanCi } from './ci.js';
import type {
  AccessibilityPage,
  AccessibilityReviewItem,
  AccessibilityViolation,
  MovingRegion,
  PerformancePage,
  ScanMode,
  ScanStatus,
  SecurityOutcome,
  Severity,
  Task,
  VisualRegion,
  VisualLayoutMove,
  VisualTextChange,
} from './scan.js';
import type { SuppressionMark } from './suppressions.js';

export interface VisualComparison {
  page_url: string;
  /** The page's baseline key (path and query, or label): what POST /baselines/approve takes as `page`. */
  page_key?: string;
  /** The branch of the baseline the page was compared with (absent in results stored before branches). */
  baseline_branch?: string;
  viewport: string;
  diff_detected: boolean;
  diff_percent: number;
  /** Signed, expiring URLs (absolute) that an <img> can load; diff_image null when no diff. */
  screenshot_before: string;
  screenshot_after: string;
  diff_image: string | null;
  /** The diff image at most 320 px wide (for reports and lists); null when no diff image. */
  diff_thumbnail: string | null;
  baseline_created: boolean;
  /** Changed regions, largest first (box in page pixels and changed pixels); empty for results stored before regions. */
  regions: VisualRegion[];
  /** Thresholds the page was judged with (null for results stored before they were recorded). */
  min_region_px: number | null;
  /** Part of the page kept changing between screenshots: those areas were left out, `hint` says what to mask. */
  unstable: boolean;
  moving_regions: MovingRegion[];
  hint: string | null;
  /** Texts of visible elements changed, added or removed since the baseline, with selector and box (empty when none). */
  text_changes?: VisualTextChange[];
  /** On a pixel diff: elements that moved or changed size since the baseline, runs of elements shifted alike as one (empty when none). */
  layout_moves?: VisualLayoutMove[];
  /** "Baseline recorded ..." on a first scan; how to approve the change (API, CLI, dashboard) on a diff; null otherwise. */
  message?: string | null;
  /** Signed URL of the page's visible text and boxes (JSON), null for results stored before snapshots. */
  dom_snapshot?: string | null;
  /** A page with a diff: the finding's fingerprint (check `visual`), what suppressions name. */
  fingerprint?: string;
  /** A diff a suppression covers (it fails no gate). */
  suppressed?: SuppressionMark;
}

/** An accessibility violation as reports show it: with its fingerprint (check `a11y/<rule>`) and its triage. */
export type ReportViolation = AccessibilityViolation & { fingerprint?: string; suppressed?: SuppressionMark };

/** A budget judged on a page as reports show it: a missed one with its fingerprint (check `budget/<metric>`) and its triage. */
export type ReportBudgetLine = BudgetLine & { fingerprint?: string; suppressed?: SuppressionMark };

/** A performance page as reports show it: its budget lines triaged. */
export type ReportPerformancePage = Omit<PerformancePage, 'budgets'> & { budgets?: ReportBudgetLine[] };

export interface FunctionalReport {
  visual_regression: { comparisons: number; diffs_detected: number; diff_threshold_percent: number; pages: VisualComparison[] };
  accessibility: {
    pages_scanned: number;
    total_violations: number;
    /** Null when no page was audited. */
    compliance_score: number | null;
    wcag_level: string;
    violations: ReportViolation[];
    /** Rules axe could not decide on some elements: to check by hand, not scored as failures. */
    total_needs_review: number;
    needs_review: AccessibilityReviewItem[];
    /** The axe-core that ran; null for scans made before it was reported. */
    engine: { name: 'axe-core'; version: string } | null;
    pages: AccessibilityPage[];
  };
  /** performance_score: null when no page was scored. */
  performance: { pages_tested: number; performance_score: number | null; pages: ReportPerformancePage[] };
}

/** A task as reports show it: a failed one with its fingerprint, and its triage when a suppression covers it. */
export type ReportTask = Task & {
  /** Failed tasks: the finding's fingerprint, what suppressions and baselines name. */
  fingerprint?: string;
  /** Failed tasks a suppression covers (they never fail a gate, whatever its threshold). */
  suppressed?: SuppressionMark;
};

/** Everything a report renderer needs about one scan. */
export interface ScanReport {
  scan_id: string;
  tenant_id: string;
  mode: ScanMode;
  status: ScanStatus;
  url: string;
  spec_url: string | null;
  created_at: string;
  completed_at: string | null;
  elapsed_seconds: number;
  agent_count: number;
  passed: number;
  failed: number;
  total: number;
  /** Failed security tasks per severity. */
  severity_counts: Record<Severity, number>;
  fail_on: Severity | null;
  /** True when a failed task is at or above fail_on. */
  threshold_reached: boolean;
  failure_reason: string | null;
  tasks: ReportTask[];
  /** Present for functional and full scans that ran on a plan with detailed reports. */
  functional: FunctionalReport | null;
  /**
   * Security and full scans whose engine reported coverage: warnings, what each operation reached,
   * where each check ran, and the catalogue of checks (title, risk, remediation, references).
   * Null for functional scans and for results stored before the engine reported it.
   */
  security: SecurityOutcome | null;
  /** What a CI run scanned (repository, branch, commit, pull request); null when the scan was started without it. */
  ci?: ScanCi | null;
}
