import type { Plan } from '../domain/plans.js';
import type { ScanInput, ScanStatus } from '../domain/scan.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { StoredScan } from '../domain/stored-scan.js';
import type { EventBus } from '../events/bus.js';
import type { ScanStates } from '../store/scan-states.js';
import type { ScanRepository } from '../store/scans.js';
import type { ScanFinishedPublisher } from './finished.js';
import type { Logger } from 'pino';

export interface ScanServiceDeps {
  states: ScanStates;
  scans: ScanRepository;
  secretBox: SecretBox;
  bus: EventBus;
  finished: ScanFinishedPublisher;
  /** Scans a tenant of each plan may have queued or running at once. */
  concurrentScans: Record<Plan, number>;
  logger?: Pick<Logger, 'warn'>;
}

/** Starting and cancelling scans, whatever asks for it (the API today). */
export class ScanService {
  constructor(private readonly deps: ScanServiceDeps) {}

  /**
   * Seals the target credentials, admits the scan (domain/admission.ts: a refusal throws its error and
   * changes nothing) and tells idle workers. Returns the scan and its state by then: a worker may
   * already have taken it. With an `idempotencyKey` that already admitted a scan (within 24 h), that
   * scan is returned and nothing is charged again.
   *
   * Once admitted, the scan is committed: nothing that must reach Redis decides the answer. The
   * `scan-queued` nudge is best effort (idle workers poll the queue anyway), so a Redis outage delays
   * the claim by one poll at most and never turns a committed scan into an error.
   */
  async start(tenantId: string, input: ScanInput, idempotencyKey?: string): Promise<{ scan: StoredScan; status: ScanStatus }> {
    const { auth, ...stored } = input;
    const scan = await this.deps.states.admit(
      tenantId,
      { input: stored, secret: auth ? this.deps.secretBox.seal(JSON.stringify(auth)) : null, idempotencyKey },
      (plan) => this.deps.concurrentScans[plan],
    );
    // Not awaited: while Redis is unreachable the publish waits for its reconnection attempts.
    void this.nudge('scan-queued', scan.id);
    const current = await this.deps.scans.status(tenantId, scan.id);
    return { scan, status: current?.status ?? scan.status };
  }

  /**
   * Cancels a queued or running scan: the worker running it stops its engine and the final state is
   * announced. A finished scan is returned unchanged; undefined when the scan is not the tenant's.
   *
   * The cancel is committed before anything reaches Redis: a worker that missed the `scan-cancelled`
   * message finds the scan no longer its own at its next lease renewal and stops, and an announcement
   * that could not be published is made late by the maintenance job (the scan stays unannounced).
   */
  async cancel(tenantId: string, scanId: string): Promise<StoredScan | undefined> {
    const result = await this.deps.states.cancel(tenantId, scanId);
    if (!result) return undefined;
    if (result.changed) {
      await this.nudge('scan-cancelled', result.scan.id);
      await this.deps.finished
        .publish({ id: result.scan.id, tenant_id: tenantId, status: 'cancelled' })
        .catch((err) => this.deps.logger?.warn({ err, scan_id: result.scan.id }, 'cancel announcement failed; the maintenance job announces it late'));
    }
    return result.scan;
  }

  private async nudge(topic: 'scan-queued' | 'scan-cancelled', scanId: string): Promise<void> {
    try {
      await this.deps.bus.publish(topic, { scan_id: scanId });
    } catch (err) {
      this.deps.logger?.warn({ err, scan_id: scanId, topic }, 'bus message not published (the scan is committed; workers poll for it)');
    }
  }
}
