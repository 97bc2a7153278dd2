/**
 * Response bodies of a stored scan: status, results, functional results and reports. Every body is
 * cut from the report model (reports/model.ts), which holds the contract's field names.
 */
import type { ArtifactStore } from '../domain/artifacts.js';
import { planHasFeature, type Plan } from '../domain/plans.js';
import type { FunctionalReport } from '../domain/results.js';
import type { FunctionalOutcome } from '../domain/scan.js';
import type { StoredScan } from '../domain/stored-scan.js';
import {
  buildReportModel,
  functionalReport as functionalSections,
  scanStatusModel,
  type ReportModel,
  type ReportReader,
  type ReportTriage,
  type ScanStatusColumns,
} from '../reports/model.js';
import { resultsBodyOf } from '../reports/results-body.js';
import type { ArtifactLinks } from './artifact-links.js';
import { screenshotThumbnail } from './report-thumbnails.js';

export interface ViewContext {
  plan: Plan;
  baseUrl: string;
  links: ArtifactLinks;
  /** The tenant's suppressions: findings they name are marked suppressed in every body and report. */
  triage?: ReportTriage;
}

function readerOf(view: ViewContext, tenantId: string): ReportReader {
  return { plan: view.plan, artifactUrl: (artifact) => view.links.url(view.baseUrl, tenantId, artifact) };
}

/** What a running scan's engine last reported (columns of migration 008), and its CI metadata (017). */
type ProgressDetailColumns = Partial<Pick<StoredScan, 'phase' | 'findings_so_far' | 'ci'>>;

/** `ci` of a scan started with CI metadata (left out otherwise): an extension of the contract (docs/ci.md). */
export function ciField(scan: Partial<Pick<StoredScan, 'ci'>>): { ci?: NonNullable<StoredScan['ci']> } {
  return scan.ci ? { ci: scan.ci } : {};
}

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
  return { ...status, ...progressDetail(scan), ...(failure_reason ? { failure_reason } : {}), ...ciField(scan) };
}

/** Polling form: not finished yet. */
export function inProgressBody(scan: StoredScan) {
  const { scan_id, status, mode, url, progress_percent } = scanStatusModel(scan);
  return { scan_id, status, mode, url, progress_percent, ...progressDetail(scan), ...ciField(scan) };
}

/** The detailed functional sections (sub-reports), screenshots as signed links. */
export function functionalReport(outcome: FunctionalOutcome, tenantId: string, view: ViewContext, url: string): FunctionalReport {
  return functionalSections(outcome, readerOf(view, tenantId).artifactUrl, url, view.triage);
}

/** The report model as this request's reader sees it: what the exports render. */
export function scanReport(scan: StoredScan, view: ViewContext): ReportModel {
  return buildReportModel(scan, readerOf(view, scan.tenant_id), view.triage);
}

/**
 * What the HTML report embeds at most (base64 size), so a 15-page scan's file stays under 5 MB: full-size
 * images of pages with a diff (baseline, this scan, diff: the before / after slider needs them) first,
 * then thumbnails of every other page within their own budget.
 */
export const EMBED_MAX_BYTES = 3 * 1024 * 1024;
export const THUMBNAILS_MAX_BYTES = 1536 * 1024;

const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const base64Size = (bytes: Buffer) => Math.ceil(bytes.length / 3) * 4;

/**
 * The report model for the HTML report: screenshots and diff images as data: URIs read from the
 * artifact store, so the file renders offline with its images. Pages with a diff get their full-size
 * images while `maxBytes` lasts; every other page (and a diff page past the budget) gets a thumbnail of
 * this scan's screenshot and the diff thumbnail, listed in `thumbnail_pages` (the report says where the
 * full size is). Missing images, images that are not PNG/JPEG/WebP/GIF and images past both budgets are
 * left empty and the report says they were not embedded.
 */
export async function embeddedScanReport(
  scan: StoredScan,
  view: ViewContext,
  artifacts: ArtifactStore,
  maxBytes = EMBED_MAX_BYTES,
  thumbnailsMaxBytes = THUMBNAILS_MAX_BYTES,
): Promise<ReportModel> {
  const visual = scan.results?.functional?.visual ?? [];
  const uris = new Map<string, string>();
  const thumbnailPages: string[] = [];
  const thumbnailOf = new Map<string, string>();
  if (planHasFeature(view.plan, 'detailed_reports') && visual.length > 0) {
    const image = async (id: string | null | undefined) => {
      if (typeof id !== 'string' || id.length === 0) return undefined;
      const artifact = await artifacts.get(scan.tenant_id, id);
      return artifact && /^image\/(png|jpeg|webp|gif)$/.test(artifact.contentType) ? artifact : undefined;
    };
    let full = 0;
    const thumbnailed = [];
    for (const p of visual) {
      const ids = [p.baseline_artifact, p.current_artifact, p.diff_artifact].filter((id): id is string => typeof id === 'string' && id.length > 0);
      if (p.diff_detected && !p.baseline_created) {
        const found = (await Promise.all(ids.map(async (id) => [id, await image(id)] as const))).filter(([, a]) => a);
        const size = found.reduce((n, [, a]) => n + base64Size(a!.bytes), 0);
        if (found.length > 0 && full + size <= maxBytes) {
          full += size;
          for (const [id, a] of found) uris.set(id, dataUri(a!.contentType, a!.bytes));
          continue;
        }
      }
      thumbnailed.push(p);
    }
    let small = 0;
    for (const p of thumbnailed) {
      const shot = await image(p.current_artifact);
      const thumb = shot?.contentType === 'image/png' ? await screenshotThumbnail(shot.bytes) : undefined;
      const diff = await image(p.diff_thumbnail_artifact);
      const size = (thumb ? base64Size(thumb) : 0) + (diff ? base64Size(diff.bytes) : 0);
      if (!thumb || small + size > thumbnailsMaxBytes) continue;
      small += size;
      thumbnailPages.push(p.page_url);
      thumbnailOf.set(p.current_artifact, dataUri('image/png', thumb));
      if (diff && p.diff_artifact) thumbnailOf.set(p.diff_artifact, dataUri(diff.contentType, diff.bytes));
    }
  }
  const model = buildReportModel(scan, { plan: view.plan, artifactUrl: (id) => uris.get(id) ?? thumbnailOf.get(id) ?? '' }, view.triage);
  return thumbnailPages.length ? { ...model, thumbnail_pages: thumbnailPages } : model;
}

/** The completed (or failed / cancelled) results body of GET /scan/{id}/results: the report in the contract's shape. */
export function resultsBody(scan: StoredScan, view: ViewContext) {
  return resultsBodyOf(scanReport(scan, view));
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
    url: report.url,
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
