/** Response bodies built from a stored scan: status, results, functional reports and the export report. */
import { planHasFeature, type Plan } from '../domain/plans.js';
import type { FunctionalReport, ScanReport, VisualComparison } from '../domain/results.js';
import { SEVERITIES, thresholdReached, type FunctionalOutcome, type Severity, type Task } from '../domain/scan.js';
import type { StoredScan } from '../domain/stored-scan.js';
import type { ArtifactLinks } from './artifact-links.js';
import { securitySection } from './security-section.js';

export interface ViewContext {
  plan: Plan;
  baseUrl: string;
  links: ArtifactLinks;
}

export function failOn(scan: StoredScan): Severity | null {
  return scan.input.options?.fail_on ?? null;
}

export function severityCounts(tasks: Task[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const task of tasks) if (task.status === 'failed' && task.severity) counts[task.severity] += 1;
  return counts;
}

export function statusBody(scan: Pick<StoredScan, 'id' | 'status' | 'mode' | 'url' | 'created_at' | 'updated_at' | 'completed_at' | 'progress'> & { failure_reason: string | null }) {
  return {
    scan_id: scan.id,
    status: scan.status,
    mode: scan.mode,
    url: scan.url,
    created_at: scan.created_at,
    updated_at: scan.updated_at,
    completed_at: scan.completed_at,
    progress_percent: scan.progress,
    ...(scan.failure_reason ? { failure_reason: scan.failure_reason } : {}),
  };
}

/** Polling form: not finished yet. */
export function inProgressBody(scan: StoredScan) {
  return { scan_id: scan.id, status: scan.status, mode: scan.mode, progress_percent: scan.progress };
}

export function functionalReport(outcome: FunctionalOutcome, tenantId: string, view: ViewContext): FunctionalReport {
  const link = (artifact: string) => view.links.url(view.baseUrl, tenantId, artifact);
  const pages: VisualComparison[] = outcome.visual.map((p) => ({
    page_url: p.page_url,
    viewport: `${p.viewport.width}x${p.viewport.height}`,
    diff_detected: p.diff_detected,
    diff_percent: p.diff_percent,
    screenshot_before: link(p.baseline_artifact),
    screenshot_after: link(p.current_artifact),
    diff_image: p.diff_artifact ? link(p.diff_artifact) : null,
    baseline_created: p.baseline_created,
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
      violations: outcome.accessibility.violations,
      pages: outcome.accessibility.pages,
    },
    performance: {
      pages_tested: outcome.performance.pages.length,
      performance_score: outcome.performance.performance_score,
      pages: outcome.performance.pages,
    },
  };
}

/** The completed (or failed / cancelled) results body of GET /scan/{id}/results: the report in the contract's shape. */
export function resultsBody(scan: StoredScan, view: ViewContext) {
  const report = scanReport(scan, view);
  const body: Record<string, unknown> = {
    scan_id: report.scan_id,
    status: report.status,
    mode: report.mode,
    url: report.url,
    passed: report.passed,
    failed: report.failed,
    total: report.total,
    elapsed_seconds: report.elapsed_seconds,
    agent_count: report.agent_count,
    progress_percent: scan.progress,
    completed_at: report.completed_at,
    severity_counts: report.severity_counts,
    fail_on: report.fail_on,
    threshold_reached: report.threshold_reached,
    // What makes the verdicts doubtful ("0 of 29 operations answered 2xx"), at the top for CI readers.
    warnings: report.security?.warnings ?? [],
    tasks: report.tasks,
    dom_snapshots: [],
    screenshots: [] as Array<{ page_url: string; url: string }>,
    security: report.security,
  };
  if (report.failure_reason) body.failure_reason = report.failure_reason;
  const functional = report.functional;
  if (functional) {
    body.screenshots = functional.visual_regression.pages.map((p) => ({ page_url: p.page_url, url: p.screenshot_after }));
    body.visual_regression = { comparisons: functional.visual_regression.pages, diffs_detected: functional.visual_regression.diffs_detected };
    body.accessibility = {
      pages_scanned: functional.accessibility.pages_scanned,
      violations: functional.accessibility.violations.map((v) => ({ ...v, elements: v.elements_affected })),
      compliance_score: functional.accessibility.compliance_score,
    };
    body.performance = {
      pages_tested: functional.performance.pages_tested,
      metrics: functional.performance.pages.map((p) => ({ ...p, page: p.page_url })),
      performance_score: functional.performance.performance_score,
    };
  }
  return body;
}

/** GET /scan/{id}/functional-results once finished: functional tasks and the three summaries. */
export function functionalResultsBody(scan: StoredScan) {
  const results = scan.results;
  const tasks = (results?.tasks ?? []).filter((t) => t.kind !== 'security');
  const outcome = results?.functional;
  const failed = tasks.filter((t) => t.status === 'failed').length;
  const body: Record<string, unknown> = {
    scan_id: scan.id,
    status: scan.status,
    mode: scan.mode,
    passed: tasks.length - failed,
    failed,
    total: tasks.length,
    elapsed_seconds: scan.elapsed_seconds ?? 0,
    agent_count: scan.agent_count ?? 0,
    tasks,
    visual_regression: {
      comparisons: outcome?.visual.length ?? 0,
      diffs_detected: outcome?.visual.filter((p) => p.diff_detected).length ?? 0,
      diff_threshold_percent: outcome?.diff_threshold_percent ?? scan.input.options.diff_threshold_percent,
    },
    accessibility: {
      pages_scanned: outcome?.accessibility.pages.length ?? 0,
      violations: outcome?.accessibility.violations.length ?? 0,
      compliance_score: outcome?.accessibility.compliance_score ?? 0,
    },
    performance: {
      pages_tested: outcome?.performance.pages.length ?? 0,
      performance_score: outcome?.performance.performance_score ?? 0,
    },
  };
  if (scan.failure_reason) body.failure_reason = scan.failure_reason;
  return body;
}

/** Everything the export renderers need. */
export function scanReport(scan: StoredScan, view: ViewContext): ScanReport {
  const results = scan.results;
  const tasks = results?.tasks ?? [];
  const threshold = failOn(scan);
  return {
    scan_id: scan.id,
    tenant_id: scan.tenant_id,
    mode: scan.mode,
    status: scan.status,
    url: scan.url,
    spec_url: scan.spec_url,
    created_at: scan.created_at,
    completed_at: scan.completed_at,
    elapsed_seconds: scan.elapsed_seconds ?? 0,
    agent_count: scan.agent_count ?? 0,
    passed: scan.passed ?? 0,
    failed: scan.failed ?? 0,
    total: scan.total ?? 0,
    severity_counts: severityCounts(tasks),
    fail_on: threshold,
    threshold_reached: thresholdReached(tasks, threshold),
    failure_reason: scan.failure_reason,
    tasks,
    functional: results?.functional && planHasFeature(view.plan, 'detailed_reports') ? functionalReport(results.functional, scan.tenant_id, view) : null,
    security: securitySection(results?.security),
  };
}
