import type { Logger } from 'pino';
import type { FinishedScan } from '../domain/stored-scan.js';
import type { UsageUpdates } from '../events/usage-updates.js';
import type { ScanStates } from '../store/scan-states.js';

/** Sends the tenant's notifications about a finished scan (notifications/worker.ts createNotifier). */
export type NotifyFinished = (scan: FinishedScan) => Promise<void>;

export interface ScanFinishedDeps {
  usageUpdates: UsageUpdates;
  states: Pick<ScanStates, 'markAnnounced'>;
  notify: NotifyFinished;
  logger: Logger;
}

/**
 * The one announcement of a scan reaching a final state, whoever ended it: the worker (completed,
 * failed), the cancel request, or the maintenance job (abandoned, timed out, or left unannounced by a
 * finisher that died).
 *
 * The usage_update is published first, then the announcement recorded: a finisher that dies in between
 * leaves the scan for the maintenance job to announce again, and the live socket drops the repeat. The
 * notifications go out only from the call that recorded the announcement, so a repeat sends none; they
 * are sent in the background, so a slow receiver holds neither a worker slot nor a cancel request.
 */
export class ScanFinishedPublisher {
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly deps: ScanFinishedDeps) {}

  async publish(scan: FinishedScan): Promise<void> {
    await this.deps.usageUpdates.publish(scan);
    if (!(await this.deps.states.markAnnounced(scan.id))) return;
    const sending = this.deps
      .notify(scan)
      .catch((error) => this.deps.logger.warn({ err: error, scan_id: scan.id }, 'after-scan notifications failed'))
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
  }

  /** Resolves when the notifications under way are sent or given up, or after `timeoutMs`: at shutdown. */
  async settled(timeoutMs = Infinity): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.sending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(deadline - Date.now(), 2 ** 31 - 1))));
      await Promise.race([Promise.allSettled([...this.sending]), timeout]);
      clearTimeout(timer);
    }
  }
}
