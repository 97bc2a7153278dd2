import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Plan } from '../domain/plans.js';
import type { StoredScan } from '../domain/stored-scan.js';
import type { EventBus } from '../events/bus.js';
import type { StoreOptions } from '../store/database.js';
import { ScanLeases, type LeaseLoss } from '../store/scan-leases.js';
import { leaseLosses, scanDuration, scanQueueWait, workerSlots, workerSlotsInUse } from '../observability/metrics.js';
import type { ScanStates } from '../store/scan-states.js';
import type { ScanExecution } from './execution.js';

export interface WorkerOptions {
  states: ScanStates;
  execution: ScanExecution;
  bus: EventBus;
  logger: Logger;
  concurrency: number;
  leaseSeconds: number;
  /** Where the heartbeat thread connects to renew leases (the store `states` writes to). */
  store: StoreOptions;
  /** The application clock lease times are written in. */
  clock?: () => Date;
  /** How often an idle worker looks for queued scans it was not told about. */
  pollMs?: number;
  /** A tenant's plan: when given, each scan's wait in the queue is observed by plan (vigil_scan_queue_wait_seconds). */
  planOf?: (tenantId: string) => Promise<Plan | undefined>;
}

type StopReason = 'cancelled' | 'shutdown' | 'lost';

/** How a run ended, as vigil_scan_duration_seconds labels it; `error` is a run that threw past the execution. */
type RunOutcome = 'completed' | 'failed' | StopReason | 'error';

interface ActiveScan {
  tenantId: string;
  controller: AbortController;
  reason?: StopReason;
  done: Promise<void>;
}

/**
 * The worker role: claims queued scans, runs them while a heartbeat thread keeps their leases alive
 * (store/scan-leases.ts), stops them when cancelled, lost or shutting down.
 */
export class ScanWorker {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly leases: ScanLeases;
  private readonly active = new Map<string, ActiveScan>();
  private readonly unsubscribe: Array<() => void> = [];
  private poll?: NodeJS.Timeout;
  private stopping = false;
  private filling = false;
  private refill = false;

  constructor(private readonly options: WorkerOptions) {
    this.leases = new ScanLeases({
      store: options.store,
      workerId: this.workerId,
      leaseSeconds: options.leaseSeconds,
      clock: options.clock,
      logger: options.logger,
    });
  }

  get runningScans(): string[] {
    return [...this.active.keys()];
  }

  /** Starts the heartbeat thread, then claims. */
  async start(): Promise<void> {
    await this.leases.start();
    const { bus } = this.options;
    this.unsubscribe.push(bus.subscribe('scan-queued', () => void this.fill()));
    this.unsubscribe.push(bus.subscribe('scan-cancelled', ({ scan_id }) => this.abort(scan_id, 'cancelled')));
    // The poll timer stays referenced: it is what keeps a worker-only process alive until stop().
    this.poll = setInterval(() => void this.fill(), this.options.pollMs ?? 1000);
    workerSlots.inc(this.options.concurrency);
    void this.fill();
  }

  /**
   * Stops claiming, gives running scans `graceMs` to finish, then stops their engines and puts them back
   * in the queue for another worker.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const started = this.poll !== undefined;
    clearInterval(this.poll);
    this.poll = undefined;
    for (const off of this.unsubscribe) off();
    const all = () => Promise.allSettled([...this.active.values()].map((a) => a.done));
    await Promise.race([all(), delay(graceMs)]);
    for (const id of this.active.keys()) this.abort(id, 'shutdown');
    await Promise.race([all(), delay(5000)]);
    await this.leases.stop();
    if (started) workerSlots.dec(this.options.concurrency);
  }

  private abort(scanId: string, reason: StopReason): void {
    const entry = this.active.get(scanId);
    if (!entry || entry.controller.signal.aborted) return;
    entry.reason = reason;
    entry.controller.abort(new Error(`scan ${reason}`));
  }

  private async fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = true;
    try {
      do {
        this.refill = false;
        while (!this.stopping && this.active.size < this.options.concurrency) {
          const scan = await this.claimFairly();
          if (!scan) break;
          this.launch(scan);
        }
      } while (this.refill && !this.stopping);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'claiming a scan failed; retrying at the next poll');
    } finally {
      this.filling = false;
    }
  }

  /**
   * The fair queue (DESIGN.md round 3): the store picks the oldest queued scan of the tenant with the
   * fewest running scans; here, a tenant that holds half of this process's slots is passed over while
   * another tenant has queued work. Only when nobody else waits may it take more (an idle slot helps
   * nobody); the slots it borrows go to the others first as they free.
   */
  private async claimFairly(): Promise<StoredScan | undefined> {
    const { states, leaseSeconds, concurrency } = this.options;
    const share = Math.max(1, Math.floor(concurrency / 2));
    const held = new Map<string, number>();
    for (const { tenantId } of this.active.values()) held.set(tenantId, (held.get(tenantId) ?? 0) + 1);
    const full = [...held].filter(([, n]) => n >= share).map(([tenant]) => tenant);
    return (await states.claim(this.workerId, leaseSeconds, full)) ?? (full.length > 0 ? await states.claim(this.workerId, leaseSeconds) : undefined);
  }

  private launch(scan: StoredScan): void {
    // Re-queued (by the reaper) and claimed again by this worker before its earlier run here noticed the
    // loss: that run is stopped, and the new one starts once it has, so one scan never runs twice at once.
    const previous = this.active.get(scan.id);
    if (previous) this.abort(scan.id, 'lost');
    const entry: ActiveScan = { tenantId: scan.tenant_id, controller: new AbortController(), done: Promise.resolve() };
    this.active.set(scan.id, entry);
    workerSlotsInUse.inc();
    void this.observeQueueWait(scan);
    entry.done = (previous ? previous.done.then(() => this.run(scan, entry)) : this.run(scan, entry))
      .catch((error) => this.options.logger.error({ err: error, scan_id: scan.id }, 'scan worker error'))
      .finally(() => {
        if (this.active.get(scan.id) === entry) this.active.delete(scan.id);
        workerSlotsInUse.dec();
        void this.fill();
      });
  }

  private async run(scan: StoredScan, entry: ActiveScan): Promise<void> {
    const { execution, logger } = this.options;
    const lease = await this.leases.hold(scan.id, scan.lease_expires_at, (why) => this.lost(scan.id, why));
    if (!lease) {
      // Taken between its claim and the first renewal: a lease loss all the same (unless its tenant cancelled it), with no run to time.
      const why = await this.whyLost(scan.id);
      logger.warn({ scan_id: scan.id, why }, 'scan lease lost before its run started; not run');
      if (why === 'lost') leaseLosses.inc();
      scanDuration.observe({ mode: scan.mode, outcome: why }, 0);
      return;
    }
    const started = performance.now();
    let outcome: RunOutcome = 'error';
    try {
      const end = await execution.run(scan, this.workerId, entry.controller.signal, lease);
      outcome = end === 'aborted' ? (entry.reason ?? 'lost') : end;
      if (end === 'aborted') await this.afterAbort(scan, entry);
    } finally {
      lease.release();
      if (outcome === 'lost') outcome = await this.whyLost(scan.id);
      if (outcome === 'lost') leaseLosses.inc();
      scanDuration.observe({ mode: scan.mode, outcome }, (performance.now() - started) / 1000);
    }
  }

  /** The heartbeat thread found the lease taken (cancelled, reaped) or expired unrenewed: the run stops and writes nothing more. */
  private lost(scanId: string, why: LeaseLoss): void {
    if (this.active.get(scanId)?.controller.signal.aborted) return;
    this.options.logger.warn({ scan_id: scanId, why }, 'scan lease lost; run stopped, its results discarded');
    this.abort(scanId, 'lost');
  }

  /** A scan that stopped being this worker's was cancelled by its tenant, or lost with its lease (reaped, taken by another worker). */
  private async whyLost(scanId: string): Promise<'cancelled' | 'lost'> {
    const status = await this.options.states.statusOf(scanId).catch(() => undefined);
    return status === 'cancelled' ? 'cancelled' : 'lost';
  }

  /**
   * From the moment the scan last entered the queue (admitted, or put back after a shutdown or a lapsed
   * lease) to this claim, which set updated_at.
   */
  private async observeQueueWait(scan: StoredScan): Promise<void> {
    if (!this.options.planOf) return;
    const plan = await this.options.planOf(scan.tenant_id).catch(() => undefined);
    const waited = (Date.parse(scan.updated_at) - Date.parse(scan.queued_at ?? scan.created_at)) / 1000;
    if (plan && Number.isFinite(waited)) scanQueueWait.observe({ plan }, Math.max(0, waited));
  }

  /** Cancelled or lost scans were finished by whoever took them; a shutdown puts the scan back in the queue. */
  private async afterAbort(scan: StoredScan, entry: ActiveScan): Promise<void> {
    if (entry.reason !== 'shutdown') return;
    if (await this.options.states.release(scan.id, this.workerId)) {
      this.options.logger.info({ scan_id: scan.id }, 'scan re-queued at shutdown');
      await this.options.bus
        .publish('scan-queued', { scan_id: scan.id })
        .catch((err) => this.options.logger.warn({ err, scan_id: scan.id }, 'scan-queued not published'));
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
