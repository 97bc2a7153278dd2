/** Notification event payloads, with exactly the contract's fields. */
import type { ComplianceReport } from '../reports/compliance/index.js';

/** The contract's notification events, plus payment_failed (issue 6: billing failures reach the tenant's channels too). */
export const EVENT_KINDS = ['scan_complete', 'scan_failed', 'finding_critical', 'finding_high', 'compliance_report_ready', 'payment_failed'] as const;

export interface Summary {
  critical: number;
  high: number;
  medium: number;
  low: number;
  info: number;
  total: number;
}
export interface ScanEvent {
  event: 'scan_complete' | 'scan_failed';
  scan_id: string;
  timestamp: string;
  target: string;
  spec: string | null;
  summary: Summary;
  status: string;
  duration_seconds: number;
  dashboard_url: string;
}
export interface FindingEvent {
  event: 'finding_critical' | 'finding_high';
  scan_id: string;
  timestamp: string;
  finding: { id: string; title: string; severity: string; endpoint: string | null; parameter: string | null; cwe: string | null; owasp: string | null };
  dashboard_url: string;
}
export interface ComplianceEvent {
  event: 'compliance_report_ready';
  timestamp: string;
  report: { framework: string; scan_id: string; score: number; download_url: string };
}
export interface PaymentFailedEvent {
  event: 'payment_failed';
  timestamp: string;
  tenant_id: string;
  message: string;
  invoice_id: string | null;
  amount_due: number | null;
  currency: string | null;
  attempt_count: number | null;
  next_payment_attempt: string | null;
  hosted_invoice_url: string | null;
  billing_url: string;
}
export type NotificationEvent = ScanEvent | FindingEvent | ComplianceEvent | PaymentFailedEvent;

/** The fields of a results body (GET /scan/{id}/results) or ScanReport these events read. */
export interface ResultsLike {
  scan_id: string;
  status: string;
  url: string;
  spec_url?: string | null;
  elapsed_seconds?: number;
  tasks?: Array<{ task_id: string; name: string; status: string; severity?: string; endpoint?: string; parameter?: string; cwe?: string; owasp?: string }>;
}

export function dashboardUrl(appUrl: string, scanId: string): string {
  return `${appUrl.replace(/\/+$/, '')}/scans/${encodeURIComponent(scanId)}`;
}

/** The HTML form of a scan's compliance report in one framework (GET /scan/{id}/compliance). */
export function complianceDownloadUrl(apiUrl: string, report: Pick<ComplianceReport, 'scan_id' | 'framework'>): string {
  return `${apiUrl.replace(/\/+$/, '')}/api/v1/scan/${encodeURIComponent(report.scan_id)}/compliance?framework=${report.framework}&format=html`;
}

/** compliance_report_ready: the report's score and where to download it. */
export function complianceReadyEvent(report: Pick<ComplianceReport, 'scan_id' | 'framework' | 'score' | 'generated_at'>, apiUrl: string): ComplianceEvent {
  return {
    event: 'compliance_report_ready',
    timestamp: report.generated_at,
    report: { framework: report.framework, scan_id: report.scan_id, score: report.score, download_url: complianceDownloadUrl(apiUrl, report) },
  };
}

/**
 * scan_complete for every finished scan; scan_failed too when the scan failed or was cancelled
 * or its findings reached fail_on (the "non-zero exit" of the contract); one finding_critical /
 * finding_high per failed task of that severity.
 */
export function scanEvents(results: ResultsLike, opts: { appUrl: string; now?: Date; thresholdReached?: boolean }): NotificationEvent[] {
  const timestamp = (opts.now ?? new Date()).toISOString();
  const dashboard_url = dashboardUrl(opts.appUrl, results.scan_id);
  const failed = (results.tasks ?? []).filter((t) => t.status === 'failed');
  const summary: Summary = { critical: 0, high: 0, medium: 0, low: 0, info: 0, total: 0 };
  for (const t of failed) {
    const s = (t.severity ?? 'info') as keyof Summary;
    if (s in summary && s !== 'total') summary[s] += 1;
    summary.total += 1;
  }
  const base = {
    scan_id: results.scan_id,
    timestamp,
    target: results.url,
    spec: results.spec_url ?? null,
    summary,
    status: results.status,
    duration_seconds: Math.round(Number(results.elapsed_seconds ?? 0)),
    dashboard_url,
  };
  const events: NotificationEvent[] = [{ event: 'scan_complete', ...base }];
  if (results.status !== 'completed' || opts.thresholdReached) events.push({ event: 'scan_failed', ...base });
  for (const t of failed) {
    if (t.severity !== 'critical' && t.severity !== 'high') continue;
    events.push({
      event: t.severity === 'critical' ? 'finding_critical' : 'finding_high',
      scan_id: results.scan_id,
      timestamp,
      finding: {
        id: t.task_id,
        title: t.name,
        severity: t.severity,
        endpoint: t.endpoint ?? null,
        parameter: t.parameter ?? null,
        cwe: t.cwe ?? null,
        owasp: t.owasp ?? null,
      },
      dashboard_url,
    });
  }
  return events;
}
