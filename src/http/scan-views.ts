/**
 * Response bodies of a stored scan: status, results, functional results and reports. Every body is
 * cut from the report model (reports/model.ts), which holds the contract's field names.
 */
import type { Plan } from '../domain/plans.js';
import type { FunctionalReport } from '../domain/results.js';
import type { FunctionalOutcome } from '../domain/scan.js';
import type { StoredScan } from '../domain/stored-scan.js';
import { buildReportModel, functionalReport as functionalSections, scanStatusModel, type ReportModel, type ReportReader, type ScanStatusColumns } from '../reports/model.js';
import type { ArtifactLinks } from './artifact-links.js';

export interface ViewContext {
  plan: Plan;
  baseUrl: string;
  links: ArtifactLinks;
}

function readerOf(view: ViewContext, tenantId: string): ReportReader {
  return { plan: view.plan, artifactUrl: (artifact) => view.links.url(view.baseUrl, tenantId, artifact) };
}

export function statusBody(scan: ScanStatusColumns) {
  const { failure_reason, ...status } = scanStatusModel(scan);
  return { ...status, ...(failure_reason ? { failure_reason } : {}) };
}

/** Polling form: not finished yet. */
export function inProgressBody(scan: StoredScan) {
  const { scan_id, status, mode, progress_percent } = scanStatusModel(scan);
  return { scan_id, status, mode, progress_percent };
}

/** The detailed functional sections (sub-reports), screenshots as signed links. */
export function functionalReport(outcome: FunctionalOutcome, tenantId: string, view: ViewContext): FunctionalReport {
  return functionalSections(outcome, readerOf(view, tenantId).artifactUrl);
}

/** The report model as this request's reader sees it: what the exports render. */
export function scanReport(scan: StoredScan, view: ViewContext): ReportModel {
  return buildReportModel(scan, readerOf(view, scan.tenant_id));
}

/** The completed (or failed / cancelled) results body of GET /scan/{id}/results: the report in the contract's shape. */
export function resultsBody(scan: StoredScan, view: ViewContext) {
  return resultsBodyOf(scanReport(scan, view));
}

function resultsBodyOf(report: ReportModel) {
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
    progress_percent: report.progress_percent,
    completed_at: report.completed_at,
    severity_counts: report.severity_counts,
    fail_on: report.fail_on,
    threshold_reached: report.threshold_reached,
    // What makes the verdicts doubtful ("0 of 29 operations answered 2xx"), at the top for CI readers.
    warnings: [...(report.security?.warnings ?? []), ...report.functional_summary.warnings],
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
      needs_review: functional.accessibility.needs_review,
      engine: functional.accessibility.engine,
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
  const report = buildReportModel(scan);
  const tasks = report.tasks.filter((t) => t.kind !== 'security');
  const failed = tasks.filter((t) => t.status === 'failed').length;
  const body: Record<string, unknown> = {
    scan_id: report.scan_id,
    status: report.status,
    mode: report.mode,
    passed: tasks.length - failed,
    failed,
    total: tasks.length,
    elapsed_seconds: report.elapsed_seconds,
    agent_count: report.agent_count,
    tasks,
    ...report.functional_summary,
  };
  if (report.failure_reason) body.failure_reason = report.failure_reason;
  return body;
}
