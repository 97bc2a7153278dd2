/**
 * Server-side sending: after a worker wrote a scan's final state, the tenant's configured
 * channels get the scan's events. Plan-gated (outbound_webhooks), never throws, never touches the scan.
 * Hosted deployments connect through the address guard (loopback/private/metadata refused at connect time).
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { Logger } from 'pino';
import { planHasFeature } from '../domain/plans.js';
import { thresholdReached } from '../domain/scan.js';
import type { FinishedScan } from '../domain/stored-scan.js';
import { guardedLookup } from '../net/address-guard.js';
import type { ScanRepository } from '../store/scans.js';
import type { TenantRepository } from '../store/tenants.js';
import type { Channel } from './channels.js';
import { scanEvents, type PaymentFailedEvent } from './events.js';
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

/** A fetch whose connections go through the address guard. */
export function guardedFetch(allowPrivate: boolean): typeof fetch {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(allowPrivate) as never } });
  return ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

/** The tenant's enabled channels, or none when its plan has no outbound webhooks. */
async function channelsOf(deps: Pick<NotifierDeps, 'tenants' | 'settings'>, tenantId: string): Promise<Channel[]> {
  const tenant = await deps.tenants.get(tenantId);
  if (!tenant || !planHasFeature(tenant.plan, 'outbound_webhooks')) return [];
  const settings = await deps.settings.get(tenant.id);
  return settings.enabled ? settings.channels : [];
}

function logDeliveries(logger: Logger, results: DeliveryResult[], context: Record<string, string>): void {
  for (const r of results) {
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

export function createNotifier(deps: NotifierDeps): (scan: FinishedScan) => Promise<void> {
  const fetchImpl = guardedFetch(!deps.hosted);
  return async (finished) => {
    try {
      const channels = await channelsOf(deps, finished.tenant_id);
      if (channels.length === 0) return;
      const scan = await deps.scans.get(finished.tenant_id, finished.id);
      if (!scan) return;
      const stored = scan.results;
      const tasks = stored?.tasks ?? [];
      const events = scanEvents(
        { scan_id: scan.id, status: scan.status, url: scan.url, spec_url: scan.spec_url, elapsed_seconds: scan.elapsed_seconds ?? stored?.elapsed_seconds ?? 0, tasks: tasks as never },
        { appUrl: deps.appUrl, now: deps.clock?.(), thresholdReached: thresholdReached(tasks, scan.input.options?.fail_on) },
      );
      logDeliveries(deps.logger, await sendAll(channels, events, { fetchImpl, ...deps.send }), { scan_id: scan.id });
    } catch (error) {
      deps.logger.warn({ err: error, scan_id: finished.id }, 'notifications failed');
    }
  };
}
