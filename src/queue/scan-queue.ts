import type { Kysely } from 'kysely';
import type { FinishedScan, StoredScan } from '../domain/stored-scan.js';
import type { Dialect } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { decodeScanRow } from '../store/scans.js';

/** How many times a scan may be started before a lost worker fails it instead of re-queueing it. */
export const MAX_ATTEMPTS = 2;

export interface CompletedOutcome {
  passed: number;
  failed: number;
  total: number;
  elapsedSeconds: number;
  agentCount: number;
  /** JSON of the stored results. */
  results: string;
}

/**
 * The scans table as a job queue (DESIGN.md): claim with SKIP LOCKED on PostgreSQL (SQLite serialises
 * writers, so the same statement is safe there), a lease kept alive by heartbeats, and writes guarded by
 * the lease owner so a worker that lost its scan (cancelled, timed out, re-queued) cannot overwrite it.
 */
export class ScanQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private now(): string {
    return this.clock().toISOString();
  }

  private leaseUntil(seconds: number): string {
    return new Date(this.clock().getTime() + seconds * 1000).toISOString();
  }

  async claim(workerId: string, leaseSeconds: number): Promise<StoredScan | undefined> {
    const now = this.now();
    const next = this.db
      .selectFrom('scans')
      .select('id')
      .where('status', '=', 'queued')
      .orderBy('created_at')
      .limit(1)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    const row = await this.db
      .updateTable('scans')
      .set((eb) => ({
        status: 'running',
        lease_owner: workerId,
        lease_expires_at: this.leaseUntil(leaseSeconds),
        attempts: eb('attempts', '+', 1),
        started_at: eb.fn.coalesce('started_at', eb.val(now)),
        last_progress_at: now,
        updated_at: now,
      }))
      .where('id', '=', next)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    return row && decodeScanRow(row);
  }

  /** Renews the lease. False when the scan is no longer this worker's to run (cancelled, reaped). */
  async heartbeat(scanId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set({ lease_expires_at: this.leaseUntil(leaseSeconds) })
      .where('id', '=', scanId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async progress(scanId: string, workerId: string, percent: number): Promise<boolean> {
    const now = this.now();
    const result = await this.db
      .updateTable('scans')
      .set({ progress: Math.max(0, Math.min(99, Math.floor(percent))), last_progress_at: now, updated_at: now })
      .where('id', '=', scanId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Final state and results in one statement; secrets go with it. */
  async complete(scanId: string, workerId: string, outcome: CompletedOutcome): Promise<boolean> {
    const now = this.now();
    const result = await this.db
      .updateTable('scans')
      .set({
        status: 'completed',
        progress: 100,
        passed: outcome.passed,
        failed: outcome.failed,
        total: outcome.total,
        elapsed_seconds: outcome.elapsedSeconds,
        agent_count: outcome.agentCount,
        results: outcome.results,
        secret: null,
        lease_owner: null,
        lease_expires_at: null,
        completed_at: now,
        updated_at: now,
      })
      .where('id', '=', scanId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Fails a running scan held by `workerId` (or, for the reaper, any running scan when workerId is null). */
  async fail(scanId: string, workerId: string | null, reason: string, elapsedSeconds?: number): Promise<boolean> {
    const now = this.now();
    let update = this.db
      .updateTable('scans')
      .set({
        status: 'failed',
        failure_reason: reason,
        elapsed_seconds: elapsedSeconds ?? null,
        passed: 0,
        failed: 0,
        total: 0,
        secret: null,
        lease_owner: null,
        lease_expires_at: null,
        completed_at: now,
        updated_at: now,
      })
      .where('id', '=', scanId)
      .where('status', '=', 'running');
    if (workerId !== null) update = update.where('lease_owner', '=', workerId);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Puts a scan back in the queue at shutdown; the interrupted attempt does not count. */
  async release(scanId: string, workerId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set((eb) => ({ status: 'queued', lease_owner: null, lease_expires_at: null, progress: 0, attempts: eb('attempts', '-', 1), updated_at: this.now() }))
      .where('id', '=', scanId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Scans whose worker stopped renewing the lease go back to the queue once, then fail; scans with no
   * progress for `stallSeconds` fail as timed out. Returns the scans it finished, and the final scans
   * whose finisher did not announce them within `announceAfterSeconds` (it died in between).
   */
  async reap(
    stallSeconds: number,
    announceAfterSeconds = 30,
  ): Promise<{ requeued: string[]; finished: FinishedScan[]; unannounced: FinishedScan[] }> {
    const now = this.now();
    const requeued: string[] = [];
    const finished: FinishedScan[] = [];
    const lapsed = await this.db
      .selectFrom('scans')
      .select(['id', 'tenant_id', 'attempts', 'lease_expires_at'])
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .execute();
    for (const scan of lapsed) {
      if (scan.attempts < MAX_ATTEMPTS) {
        const result = await this.db
          .updateTable('scans')
          .set({ status: 'queued', lease_owner: null, lease_expires_at: null, progress: 0, updated_at: now })
          .where('id', '=', scan.id)
          .where('status', '=', 'running')
          .where('lease_expires_at', '=', scan.lease_expires_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) requeued.push(scan.id);
      } else if (await this.fail(scan.id, null, `The worker running this scan stopped responding ${MAX_ATTEMPTS} times; the scan was abandoned`)) {
        finished.push({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' });
      }
    }
    const stalledBefore = new Date(this.clock().getTime() - stallSeconds * 1000).toISOString();
    const stalled = await this.db
      .selectFrom('scans')
      .select(['id', 'tenant_id'])
      .where('status', '=', 'running')
      .where('last_progress_at', '<', stalledBefore)
      .execute();
    for (const scan of stalled) {
      const minutes = Math.round(stallSeconds / 60);
      const reason = `Timed out: no progress for ${minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${stallSeconds} seconds`}`;
      if (await this.fail(scan.id, null, reason)) finished.push({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' });
    }
    return { requeued, finished, unannounced: await this.unannounced(announceAfterSeconds) };
  }

  /** Final scans not announced `afterSeconds` after they ended, oldest first (at most 100 per call). */
  async unannounced(afterSeconds: number): Promise<FinishedScan[]> {
    const before = new Date(this.clock().getTime() - afterSeconds * 1000).toISOString();
    const rows = await this.db
      .selectFrom('scans')
      .select(['id', 'tenant_id', 'status'])
      .where('announced_at', 'is', null)
      .where('completed_at', '<', before)
      .where('status', 'in', ['completed', 'failed', 'cancelled'])
      .orderBy('completed_at')
      .limit(100)
      .execute();
    return rows as FinishedScan[];
  }

  /** Whether a scan is still this worker's to run. */
  async stillHeld(scanId: string, workerId: string): Promise<boolean> {
    const row = await this.db.selectFrom('scans').select('id').where('id', '=', scanId).where('lease_owner', '=', workerId).where('status', '=', 'running').executeTakeFirst();
    return row !== undefined;
  }
}
