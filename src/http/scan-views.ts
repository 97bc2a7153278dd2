/**
 * Response bodies of a stored scan: status, results, functional results and reports. Every body is
 * cut from the report model (reports/model.ts), which holds the contract's field names.
 */
import type { ArtifactStore } from '../domain/artifacts.js';
import { planHasFeature, type Plan } from '../domain/plans.js';
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

/** What a running scan's engine last reported (columns of migration 008). */
type ProgressDetailColumns = Partial<Pick<StoredScan, 'phase' | 'findings_so_far'>>;

/**
 * `phase` and `findings` (failed tasks so far) of a running scan, when its engine reported them: an
 * extension of the contract's in-progress bodies (docs/scans.md). Queued and finished scans have none.
 */
function progressDetail(scan: ScanStatusColumns & ProgressDetailColumns): { phase?: string; findings?: number } {
  if (scan.status !== 'running') return {};
  return {
    ...(typeof scan.phase === 'string' && scan.phase ? { phase: scan.phase } : {}),
    ...(typeof scan.findings_so_far === 'number' ? { findings: scan.findings_so_far } : {}),
  };
}

export function statusBody(scan: ScanStatusColumns & ProgressDetailColumns) {
  const { failure_reason, ...status } = scanStatusModel(scan);
  return { ...status, ...progressDetail(scan), ...(failure_reason ? { failure_reason } : {}) };
}

/** Polling form: not finished yet. */
export function inProgressBody(scan: StoredScan) {
  const { scan_id, status, mode, progress_percent } = scanStatusModel(scan);
  return { scan_id, status, mode, progress_percent, ...progressDetail(scan) };
}

/** The detailed functional sections (sub-reports), screenshots as signed links. */
export function functionalReport(outcome: FunctionalOutcome, tenantId: string, view: ViewContext): FunctionalReport {
  return functionalSections(outcome, readerOf(view, tenantId).artifactUrl);
}

/** The report model as this request's reader sees it: what the exports render. */
export function scanReport(scan: StoredScan, view: ViewContext): ReportModel {
  return buildReportModel(scan, readerOf(view, scan.tenant_id));
}

/** What the HTML export embeds at most (base64 size): pages with a diff first, then the others' screenshots. */
export const EMBED_MAX_BYTES = 40 * 1024 * 1024;

/**
 * The report model for the HTML export: screenshots and diff images as data: URIs read from the
 * artifact store, so the file renders offline with its images. Past `maxBytes` (and for images that
 * are missing or not PNG/JPEG/WebP/GIF) the URL is left empty and the report says they were not embedded.
 */
export async function embeddedScanReport(scan: StoredScan, view: ViewContext, artifacts: ArtifactStore, maxBytes = EMBED_MAX_BYTES): Promise<ReportModel> {
  const visual = scan.results?.functional?.visual ?? [];
  const uris = new Map<string, string>();
  if (planHasFeature(view.plan, 'detailed_reports') && visual.length > 0) {
    const ordered = [...visual.filter((p) => p.diff_detected), ...visual.filter((p) => !p.diff_detected)];
    const ids = ordered.flatMap((p) => [p.baseline_artifact, p.current_artifact, p.diff_artifact]).filter((id): id is string => typeof id === 'string' && id.length > 0);
    let total = 0;
    for (const id of new Set(ids)) {
      const artifact = await artifacts.get(scan.tenant_id, id);
      if (!artifact || !/^image\/(png|jpeg|webp|gif)$/.test(artifact.contentType)) continue;
      const size = Math.ceil(artifact.bytes.length / 3) * 4;
      if (total + size > maxBytes) continue;
      total += size;
      uris.set(id, `data:${artifact.contentType};base64,${artifact.bytes.toString('base64')}`);
    }
  }
  return buildReportModel(scan, { plan: view.plan, artifactUrl: (id) => uris.get(id) ?? '' });
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
