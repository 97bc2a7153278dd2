import type { Plan } from '../domain/plans.js';
import type { ScanInput, ScanStatus } from '../domain/scan.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { StoredScan } from '../domain/stored-scan.js';
import type { EventBus } from '../events/bus.js';
import type { ScanStates } from '../store/scan-states.js';
import type { ScanRepository } from '../store/scans.js';
import type { ScanFinishedPublisher } from './finished.js';

export interface ScanServiceDeps {
  states: ScanStates;
  scans: ScanRepository;
  secretBox: SecretBox;
  bus: EventBus;
  finished: ScanFinishedPublisher;
  /** Scans a tenant of each plan may have queued or running at once. */
  concurrentScans: Record<Plan, number>;
}

/** Starting and cancelling scans, whatever asks for it (the API today). */
export class ScanService {
  constructor(private readonly deps: ScanServiceDeps) {}

  /**
   * Seals the target credentials, admits the scan (domain/admission.ts: a refusal throws its error and
   * changes nothing) and tells idle workers. Returns the scan and its state by then: a worker may
   * already have taken it.
   */
  async start(tenantId: string, input: ScanInput): Promise<{ scan: StoredScan; status: ScanStatus }> {
    const { auth, ...stored } = input;
    const scan = await this.deps.states.admit(
      tenantId,
      { input: stored, secret: auth ? this.deps.secretBox.seal(JSON.stringify(auth)) : null },
      (plan) => this.deps.concurrentScans[plan],
    );
    await this.deps.bus.publish('scan-queued', { scan_id: scan.id });
    const current = await this.deps.scans.status(tenantId, scan.id);
    return { scan, status: current?.status ?? scan.status };
  }

  /**
   * Cancels a queued or running scan: the worker running it stops its engine and the final state is
   * announced. A finished scan is returned unchanged; undefined when the scan is not the tenant's.
   */
  async cancel(tenantId: string, scanId: string): Promise<StoredScan | undefined> {
    const result = await this.deps.states.cancel(tenantId, scanId);
    if (!result) return undefined;
    if (result.changed) {
      await this.deps.bus.publish('scan-cancelled', { scan_id: result.scan.id });
      await this.deps.finished.publish({ id: result.scan.id, tenant_id: tenantId, status: 'cancelled' });
    }
    return result.scan;
  }
}
