/**
 * The results body of GET /scan/{id}/results (completed, failed or cancelled form) cut from the report
 * model: what the JSON report is, and what the SARIF and JUnit renderers read (the CLI gives them the
 * same body from the API).
 */
import type { ReportModel } from './model.js';
import { notTestedSummary } from './not-tested.js';

/** The report in the contract's results shape. */
export function resultsBodyOf(report: ReportModel): Record<string, unknown> {
  const body: Record<string, unknown> = {
    scan_id: report.scan_id,
    status: report.status,
    mode: report.mode,
    url: report.url,
    spec_url: report.spec_url ?? null,
    passed: report.passed,
    failed: report.failed,
    total: report.total,
    elapsed_seconds: report.elapsed_seconds,
    agent_count: report.agent_count,
    progress_percent: report.progress_percent,
    completed_at: report.completed_at,
    // What a CI run scanned (left out without): SARIF's versionControlProvenance and JUnit's properties read it.
    ...(report.ci ? { ci: report.ci } : {}),
    severity_counts: report.severity_counts,
    fail_on: report.fail_on,
    threshold_reached: report.threshold_reached,
    // What makes the verdicts doubtful ("0 of 29 operations answered 2xx"), at the top for CI readers.
    warnings: [...(report.security?.warnings ?? []), ...report.functional_summary.warnings],
    // What was not tested and why (null without a security section), before the tasks that could be mistaken for a clean scan.
    not_tested: notTestedSummary(report),
    tasks: report.tasks,
    dom_snapshots: [] as Array<{ page_url: string; url: string; text_changes: unknown[] }>,
    screenshots: [] as Array<{ page_url: string; url: string }>,
    security: report.security,
  };
  if (report.failure_reason) body.failure_reason = report.failure_reason;
  const functional = report.functional;
  if (functional) {
    body.screenshots = functional.visual_regression.pages.map((p) => ({ page_url: p.page_url, url: p.screenshot_after }));
    // Each page's visible text and boxes as captured (JSON), for pages captured since snapshots exist.
    body.dom_snapshots = functional.visual_regression.pages.flatMap((p) =>
      p.dom_snapshot ? [{ page_url: p.page_url, url: p.dom_snapshot, text_changes: p.text_changes ?? [] }] : [],
    );
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
