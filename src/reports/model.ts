/**
 * The report model of a stored scan: the one place where the stored columns get the contract's names
 * (id -> scan_id, progress -> progress_percent, nullable counts -> numbers) and the stored results
 * their derived values (severity counts, fail_on threshold, security section, functional sections).
 * The results body, the exports, compliance reports and notifications are all rendered from it.
 */
import { planHasFeature, type Plan } from '../domain/plans.js';
import { pagePathKey } from '../domain/artifacts.js';
import type { FunctionalReport, ReportTask, ScanReport, VisualComparison } from '../domain/results.js';
import { SEVERITIES, thresholdReached, type FunctionalOutcome, type ScanMode, type ScanStatus, type Severity, type Task } from '../domain/scan.js';
import type { StoredScan } from '../domain/stored-scan.js';
import {
  applicableSuppressions,
  budgetCheck,
  combinedMark,
  functionalFingerprint,
  taskFingerprint,
  type StoredSuppression,
  type SuppressionMark,
} from '../domain/suppressions.js';
import { taskFindingKeys, type PageFindings } from './functional-findings.js';
import { securitySection } from './security-section.js';

/** The functional-results summaries (GET /scan/{id}/functional-results), on every plan. */
export interface FunctionalSummary {
  visual_regression: { comparisons: number; diffs_detected: number; diff_threshold_percent: number };
  /** Scores are null when nothing was measured (no page audited or scored). */
  accessibility: { pages_scanned: number; violations: number; compliance_score: number | null };
  performance: { pages_tested: number; performance_score: number | null };
  /** Pages whose results may be incomplete (measured at the timeout...), "<url>: <what happened>". */
  warnings: string[];
}

export interface ReportModel extends ScanReport {
  /** How far the scan got: 100 once completed, where it stopped for a failed or cancelled scan. */
  progress_percent: number;
  functional_summary: FunctionalSummary;
  /** Pages whose images are thumbnails (the HTML report embeds full size only for pages with a diff, within its budget). */
  thumbnail_pages?: string[];
}

/** Who reads the report: the plan gates the detailed functional sections, whose artifacts need signed links. */
export interface ReportReader {
  plan: Plan;
  /** A URL an <img> can load for one of the scan's artifacts (screenshots, diffs). */
  artifactUrl: (artifactId: string) => string;
}

/** The tenant's server-side suppressions and the time they are judged at (expired ones no longer apply). */
export interface ReportTriage {
  suppressions: readonly StoredSuppression[];
  now: Date;
}

/** The columns a scan's status reads, as stored. */
export type ScanStatusColumns = Pick<
  StoredScan,
  'id' | 'status' | 'mode' | 'url' | 'created_at' | 'updated_at' | 'completed_at' | 'progress' | 'failure_reason'
>;

/** A scan's status in the contract's names. */
export interface ScanStatusModel {
  scan_id: string;
  status: ScanStatus;
  mode: ScanMode;
  url: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  progress_percent: number;
  failure_reason: string | null;
}

export function scanStatusModel(scan: ScanStatusColumns): ScanStatusModel {
  return {
    scan_id: scan.id,
    status: scan.status,
    mode: scan.mode,
    url: scan.url,
    created_at: scan.created_at,
    updated_at: scan.updated_at,
    completed_at: scan.completed_at,
    progress_percent: scan.progress,
    failure_reason: scan.failure_reason,
  };
}

/** The tenant's suppressions that apply to a scan of `url`, by fingerprint, as the marks reports show. */
function marksByFingerprint(url: string, triage: ReportTriage | undefined): Map<string, SuppressionMark> {
  return new Map(
    applicableSuppressions(triage?.suppressions ?? [], url, triage?.now ?? new Date()).map((s) => [
      s.fingerprint,
      { reason: s.reason, author: s.author, expires_at: s.expires_at, source: 'server' as const },
    ]),
  );
}

/**
 * Each failed task with its fingerprint, and `suppressed` when an active suppression of the scan's target
 * names it, or names every page finding a functional task stands for (`functional`, functional-findings.ts):
 * the one place triage is applied, so the results body and every format agree.
 */
export function triagedTasks(tasks: readonly Task[], url: string, triage: ReportTriage | undefined, functional?: FunctionalOutcome): ReportTask[] {
  const marks = marksByFingerprint(url, triage);
  const findings: PageFindings | undefined = functional && {
    visual: functional.visual,
    violations: functional.accessibility.violations,
    performance: functional.performance.pages,
  };
  return tasks.map((task) => {
    const fingerprint = taskFingerprint(task);
    if (!fingerprint) return task;
    const keys = findings && task.kind === 'functional' ? taskFindingKeys(task, findings) : undefined;
    const covered = keys?.map((k) => marks.get(k));
    const mark = marks.get(fingerprint) ?? (covered?.every(Boolean) ? combinedMark(covered as SuppressionMark[]) : undefined);
    return { ...task, fingerprint, ...(mark ? { suppressed: mark } : {}) };
  });
}

/** Failed tasks per severity. */
export function severityCounts(tasks: Task[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const task of tasks) if (task.status === 'failed' && task.severity) counts[task.severity] += 1;
  return counts;
}

/** A functional finding's fingerprint and, when an active suppression of the scan's target names it, its mark. */
function functionalTriage(
  url: string,
  triage: ReportTriage | undefined,
): (check: string, pageUrl: string) => { fingerprint: string; suppressed?: SuppressionMark } {
  const marks = marksByFingerprint(url, triage);
  return (check, pageUrl) => {
    const fingerprint = functionalFingerprint(check, pageUrl);
    const suppressed = marks.get(fingerprint);
    return suppressed ? { fingerprint, suppressed } : { fingerprint };
  };
}

/**
 * The detailed functional sections, artifacts as links; each visual diff, accessibility violation and missed
 * budget with its fingerprint and, when a suppression of the scan's target (`url`) covers it, `suppressed`.
 */
export function functionalReport(outcome: FunctionalOutcome, artifactUrl: (artifactId: string) => string, url = '', triage?: ReportTriage): FunctionalReport {
  const mark = functionalTriage(url, triage);
  const pages: VisualComparison[] = outcome.visual.map((p) => ({
    page_url: p.page_url,
    page_key: p.page_key ?? pagePathKey(p.page_url),
    ...(p.baseline_branch ? { baseline_branch: p.baseline_branch } : {}),
    viewport: `${p.viewport.width}x${p.viewport.height}`,
    diff_detected: p.diff_detected,
    diff_percent: p.diff_percent,
    screenshot_before: artifactUrl(p.baseline_artifact),
    screenshot_after: artifactUrl(p.current_artifact),
    diff_image: p.diff_artifact ? artifactUrl(p.diff_artifact) : null,
    diff_thumbnail: p.diff_thumbnail_artifact ? artifactUrl(p.diff_thumbnail_artifact) : null,
    baseline_created: p.baseline_created,
    regions: p.regions ?? [],
    min_region_px: p.min_region_px ?? null,
    unstable: p.unstable ?? false,
    moving_regions: p.moving_regions ?? [],
    hint: p.hint ?? null,
    text_changes: p.text_changes ?? [],
    layout_moves: p.layout_moves ?? [],
    message: p.message ?? null,
    dom_snapshot: p.dom_snapshot_artifact ? artifactUrl(p.dom_snapshot_artifact) : null,
    ...(p.diff_detected ? mark('visual', p.page_url) : {}),
  }));
  return {
    visual_regression: {
      comparisons: pages.length,
      diffs_detected: pages.filter((p) => p.diff_detected).length,
      diff_threshold_percent: outcome.diff_threshold_percent,
      pages,
    },
    accessibility: {
      pages_scanned: outcome.accessibility.pages.length,
      total_violations: outcome.accessibility.violations.length,
      compliance_score: outcome.accessibility.compliance_score,
      wcag_level: outcome.accessibility.wcag_level,
      violations: outcome.accessibility.violations.map((v) => ({ ...v, ...mark(`a11y/${v.rule}`, v.page_url) })),
      total_needs_review: outcome.accessibility.needs_review?.length ?? 0,
      needs_review: outcome.accessibility.needs_review ?? [],
      engine: outcome.accessibility.engine ?? null,
      pages: outcome.accessibility.pages,
    },
    performance: {
      pages_tested: outcome.performance.pages.length,
      performance_score: outcome.performance.performance_score,
      // A budget a page missed is a finding of its own (check `budget/<metric>`), which a suppression can cover.
      pages: outcome.performance.pages.map((p) =>
        p.budgets ? { ...p, budgets: p.budgets.map((b) => (b.passed ? b : { ...b, ...mark(budgetCheck(b.metric), p.page_url) })) } : p,
      ),
    },
  };
}

/** The summaries of a functional outcome; zeros (and the requested threshold) when the engine produced none. */
function functionalSummary(outcome: FunctionalOutcome | undefined, scan: StoredScan): FunctionalSummary {
  return {
    visual_regression: {
      comparisons: outcome?.visual.length ?? 0,
      diffs_detected: outcome?.visual.filter((p) => p.diff_detected).length ?? 0,
      diff_threshold_percent: outcome?.diff_threshold_percent ?? scan.input.options.diff_threshold_percent,
    },
    accessibility: {
      pages_scanned: outcome?.accessibility.pages.length ?? 0,
      violations: outcome?.accessibility.violations.length ?? 0,
      compliance_score: outcome?.accessibility.compliance_score ?? null,
    },
    performance: {
      pages_tested: outcome?.performance.pages.length ?? 0,
      performance_score: outcome?.performance.performance_score ?? null,
    },
    warnings: outcome?.warnings ?? [],
  };
}

/**
 * The report model of a stored scan, with the tenant's suppressions applied (`triage`). Without a reader (notifications, compliance reports) the
 * detailed functional sections are left out (null), as they are for plans without detailed reports.
 */
export function buildReportModel(scan: StoredScan, reader?: ReportReader, triage?: ReportTriage): ReportModel {
  const results = scan.results;
  const tasks = triagedTasks(results?.tasks ?? [], scan.url, triage, results?.functional);
  const failOn = scan.input.options?.fail_on ?? null;
  return {
    scan_id: scan.id,
    tenant_id: scan.tenant_id,
    mode: scan.mode,
    status: scan.status,
    url: scan.url,
    spec_url: scan.spec_url,
    created_at: scan.created_at,
    completed_at: scan.completed_at,
    elapsed_seconds: scan.elapsed_seconds ?? results?.elapsed_seconds ?? 0,
    agent_count: scan.agent_count ?? 0,
    passed: scan.passed ?? 0,
    failed: scan.failed ?? 0,
    total: scan.total ?? 0,
    severity_counts: severityCounts(tasks),
    fail_on: failOn,
    // A suppressed finding never reaches the threshold, whatever it is.
    threshold_reached: thresholdReached(
      tasks.filter((t) => !t.suppressed),
      failOn,
    ),
    failure_reason: scan.failure_reason,
    tasks,
    functional:
      results?.functional && reader && planHasFeature(reader.plan, 'detailed_reports')
        ? functionalReport(results.functional, reader.artifactUrl, scan.url, triage)
        : null,
    security: securitySection(results?.security),
    progress_percent: scan.progress,
    functional_summary: functionalSummary(results?.functional, scan),
    ci: scan.ci ?? null,
  };
}
