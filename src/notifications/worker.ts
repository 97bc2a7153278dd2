/**
 * Server-side sending: once a scan reached its final state, the tenant's configured channels get the
 * scan's events, and for a completed security or full scan compliance_report_ready. Plan-gated
 * (outbound_webhooks), never throws, never touches the scan.
 * Hosted deployments connect through the address guard (loopback/private/metadata refused at connect time).
 */
import type { Logger } from 'pino';
import { planHasFeature } from '../domain/plans.js';
import type { FinishedScan } from '../domain/stored-scan.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { notificationDeliveries } from '../observability/metrics.js';
import { complianceReport, type Framework } from '../reports/compliance/index.js';
import { buildReportModel, type ReportModel } from '../reports/model.js';
import type { ScanRepository } from '../store/scans.js';
import type { SuppressionRepository } from '../store/suppressions.js';
import type { TenantRepository } from '../store/tenants.js';
import type { Channel } from './channels.js';
import { complianceReadyEvent, scanEvents, type NotificationEvent, type PaymentFailedEvent } from './events.js';
import { sendAll, type DeliveryResult, type SendOptions } from './send.js';
import type { NotificationSettingsRepository } from './settings.js';

export interface NotifierDeps {
  settings: NotificationSettingsRepository;
  tenants: TenantRepository;
  scans: ScanRepository;
  appUrl: string;
  hosted: boolean;
  logger: Logger;
  send?: SendOptions;
  clock?: () => Date;
}

/** The tenant's enabled channels, or none when its plan has no outbound webhooks. */
async function channelsOf(deps: Pick<NotifierDeps, 'tenants' | 'settings'>, tenantId: string): Promise<Channel[]> {
  const tenant = await deps.tenants.get(tenantId);
  if (!tenant || !planHasFeature(tenant.plan, 'outbound_webhooks')) return [];
  const settings = await deps.settings.get(tenant.id);
  return settings.enabled ? settings.channels : [];
}

/** Each delivery's outcome, logged and counted (vigil_notification_deliveries_total). */
function logDeliveries(logger: Logger, results: DeliveryResult[], context: Record<string, string>): void {
  for (const r of results) {
    notificationDeliveries.inc({ channel: r.channel, event: r.event, outcome: r.ok ? 'delivered' : 'failed' });
    if (r.ok) logger.debug({ ...context, channel: r.channel, event: r.event }, 'notification sent');
    else logger.warn({ ...context, channel: r.channel, event: r.event, attempts: r.attempts, error: r.error }, 'notification not delivered');
  }
}

/** Billing's payment failures, sent to the tenant's channels like scan events (never throws). */
export function createPaymentNotifier(deps: NotifierDeps): (event: PaymentFailedEvent) => Promise<void> {
  const fetchImpl = guardedFetch(!deps.hosted);
  return async (event) => {
    try {
      const channels = await channelsOf(deps, event.tenant_id);
      if (channels.length === 0) return;
      logDeliveries(deps.logger, await sendAll(channels, [event], { fetchImpl, ...deps.send }), { tenant_id: event.tenant_id });
    } catch (error) {
      deps.logger.warn({ err: error, tenant_id: event.tenant_id }, 'payment notification failed');
    }
  };
}

export interface ScanNotifierDeps extends NotifierDeps {
  /** The API's public base URL, for links to it (read when a scan is announced: it may be known only once listening). */
  apiUrl: () => string;
  /** The tenant's suppressions: a suppressed finding does not make the scan reach its threshold. */
  suppressions?: Pick<SuppressionRepository, 'all'>;
}

/** The compliance report announced when a scan completes: the exact mapping, the report's default framework. */
export const ANNOUNCED_FRAMEWORK: Framework = 'owasp-api-2023';

/** compliance_report_ready once per scan: when it completed with a compliance report to read (security and full scans). */
function complianceEvents(report: ReportModel, apiUrl: string, now: Date): NotificationEvent[] {
  if (report.status !== 'completed' || report.mode === 'functional') return [];
  return [complianceReadyEvent(complianceReport(report, ANNOUNCED_FRAMEWORK, now), apiUrl)];
}

export function createNotifier(deps: ScanNotifierDeps): (scan: FinishedScan) => Promise<void> {
  const fetchImpl = guardedFetch(!deps.hosted);
  return async (finished) => {
    try {
      const channels = await channelsOf(deps, finished.tenant_id);
      if (channels.length === 0) return;
      const scan = await deps.scans.get(finished.tenant_id, finished.id);
      if (!scan) return;
      const now = deps.clock?.() ?? new Date();
      const report = buildReportModel(scan, undefined, deps.suppressions ? { suppressions: await deps.suppressions.all(scan.tenant_id), now } : undefined);
      const events = [
        ...scanEvents(report, { appUrl: deps.appUrl, now, thresholdReached: report.threshold_reached }),
        ...complianceEvents(report, deps.apiUrl(), now),
      ];
      logDeliveries(deps.logger, await sendAll(channels, events, { fetchImpl, ...deps.send }), { scan_id: scan.id });
    } catch (error) {
      deps.logger.warn({ err: error, scan_id: finished.id }, 'notifications failed');
    }
  };
}
