import { sql, type Kysely, type UpdateObject } from 'kysely';
import { admissionVerdict, QuotaExceededError } from '../domain/admission.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import { ACTIVE_STATUSES, FINAL_STATUSES } from '../domain/scan.js';
import type { FinishedScan, StoredResults, StoredScan, StoredScanInput } from '../domain/stored-scan.js';
import { specIdentity, type SpecIdentity } from '../domain/spec-identity.js';
import { quotaLimit } from '../domain/usage.js';
import { storableText, type Dialect } from './database.js';
import type { ScanCi } from '../domain/ci.js';
import type { Database, ScansTable } from './schema.js';
import { decodeScanRow } from './scans.js';
import type { UsageRepository } from './usage.js';

/** How many times a scan may be started before a lost worker fails it instead of re-queueing it. */
export const MAX_ATTEMPTS = 2;

export interface NewScan {
  /** The scan input without target credentials, with its CI metadata (stored in its own columns). */
  input: StoredScanInput & { ci?: ScanCi };
  /** Sealed target credentials, or null. */
  secret: string | null;
  /** The request's Idempotency-Key: a scan this key admitted in the last 24 h is returned instead of a new one. */
  idempotencyKey?: string;
}

/** How long an Idempotency-Key names the scan it admitted. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface CompletedOutcome {
  passed: number;
  failed: number;
  total: number;
  elapsedSeconds: number;
  agentCount: number;
  results: StoredResults;
}

export interface Reaped {
  /** Lost scans put back in the queue. */
  requeued: string[];
  /** Scans the reaper failed (abandoned after MAX_ATTEMPTS, or stalled). */
  ended: FinishedScan[];
  /** Final scans their finisher did not announce in time (it died in between). */
  unannounced: FinishedScan[];
}

/**
 * Every status change of a scan, in one place (DESIGN.md, the scans table as a job queue):
 *
 *     admit     -> queued     quota and concurrency checked and consumed in one transaction per tenant
 *     claim     queued -> running     SKIP LOCKED on PostgreSQL (SQLite serialises writers); a lease
 *     heartbeat   running, lease renewed by its owner's heartbeat thread (scan-lease-thread.ts, its own connection)
 *     progress    running, by the lease owner
 *     complete  running -> completed  |  fail  running -> failed   (by the lease owner)
 *     release   running -> queued     at the owner's shutdown; the attempt does not count
 *     cancel    queued | running -> cancelled   (by the tenant)
 *     reap      running -> queued (lease lapsed, once) | failed (lapsed MAX_ATTEMPTS times, or stalled)
 *     markAnnounced   a final state's usage_update was published
 *
 * Writes of a running scan are guarded by the lease owner, so a worker that lost its scan (cancelled,
 * timed out, re-queued) cannot overwrite it.
 */
export class ScanStates {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly usage: UsageRepository,
  ) {}

  private now(): string {
    return this.usage.now().toISOString();
  }

  private leaseUntil(seconds: number): string {
    return new Date(this.usage.now().getTime() + seconds * 1000).toISOString();
  }

  /**
   * Admission in one transaction, serialised per tenant (domain/admission.ts decides: plan feature, then
   * quota, then concurrency; a refusal is thrown as its error). An admitted scan consumes its quota and is
   * queued. A security or full scan of an API specification the tenant has not scanned this period also
   * counts one against the specifications quota (the identity is worked out before the lock: parsing a
   * large document must not hold it). Nothing changes when it is refused.
   */
  async admit(tenantId: string, scan: NewScan, concurrentLimit: (plan: Plan) => number): Promise<StoredScan> {
    const spec: SpecIdentity | undefined = scan.input.mode === 'functional' ? undefined : specIdentity(scan.input);
    return this.db.transaction().execute(async (trx) => {
      let lock = trx.selectFrom('tenants').select('plan').where('id', '=', tenantId);
      if (this.dialect === 'postgres') lock = lock.forUpdate();
      const { plan } = await lock.executeTakeFirstOrThrow();
      const replayed = scan.idempotencyKey ? await this.admittedBy(trx, tenantId, scan.idempotencyKey) : undefined;
      if (replayed) return replayed;

      const period = await this.usage.currentPeriod(tenantId, plan, trx);
      const active = await trx
        .selectFrom('scans')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('status', 'in', ACTIVE_STATUSES)
        .executeTakeFirstOrThrow();
      const newSpecification = spec !== undefined && !(await this.usage.knowsSpecification(period, spec.key, trx));
      const facts = {
        plan,
        used: { functional: period.functional_used, security: period.security_used, specifications: period.specifications_used },
        resetDate: period.period_end,
        active: Number(active.n),
        concurrentLimit: concurrentLimit(plan),
      };
      const request = { mode: scan.input.mode, accessibilityProfile: scan.input.options.accessibility_profile, newSpecification };
      const verdict = admissionVerdict(request, facts);
      if (!verdict.admitted) throw verdict.refusal;
      if (!(await this.usage.consume(period, plan, verdict.quotas, trx))) {
        const quota = verdict.quotas[0] ?? 'functional';
        throw new QuotaExceededError(quota, quotaLimit(plan, quota) ?? 0, period.period_end);
      }

      const now = this.now();
      const { ci, ...input } = scan.input;
      const row: ScansTable = {
        id: newId('scn'),
        tenant_id: tenantId,
        mode: scan.input.mode,
        status: 'queued',
        url: scan.input.url,
        spec_url: scan.input.spec_url ?? null,
        input: JSON.stringify(input),
        secret: scan.secret,
        progress: 0,
        attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        last_progress_at: null,
        phase: null,
        findings_so_far: null,
        failure_reason: null,
        passed: null,
        failed: null,
        total: null,
        elapsed_seconds: null,
        agent_count: null,
        results: null,
        period_start: period.period_start,
        created_at: now,
        updated_at: now,
        queued_at: now,
        started_at: null,
        completed_at: null,
        announced_at: null,
        ci: ci ? JSON.stringify(ci) : null,
        ci_branch: ci?.branch ?? null,
      };
      await trx.insertInto('scans').values(row).execute();
      if (spec && newSpecification) await this.usage.rememberSpecification(period, spec, row.id, trx);
      if (scan.idempotencyKey) {
        const key = { tenant_id: tenantId, idem_key: scan.idempotencyKey, scan_id: row.id, created_at: now };
        await trx
          .insertInto('scan_idempotency')
          .values(key)
          .onConflict((oc) => oc.columns(['tenant_id', 'idem_key']).doUpdateSet({ scan_id: row.id, created_at: now }))
          .execute();
      }
      return decodeScanRow(row);
    });
  }

  /** The scan `key` admitted for the tenant within the idempotency window (read under the admission's tenant lock). */
  private async admittedBy(trx: Kysely<Database>, tenantId: string, key: string): Promise<StoredScan | undefined> {
    const since = new Date(this.usage.now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
    const row = await trx
      .selectFrom('scan_idempotency')
      .innerJoin('scans', (join) => join.onRef('scans.id', '=', 'scan_idempotency.scan_id').onRef('scans.tenant_id', '=', 'scan_idempotency.tenant_id'))
      .selectAll('scans')
      .where('scan_idempotency.tenant_id', '=', tenantId)
      .where('scan_idempotency.idem_key', '=', key)
      .where('scan_idempotency.created_at', '>', since)
      .executeTakeFirst();
    return row && decodeScanRow(row);
  }

  /**
   * The next queued scan by the fair-queue rule (DESIGN.md round 3), now running under `workerId`'s lease:
   * the oldest queued scan of the tenant with the fewest running scans (ties: oldest scan first).
   * `skipTenants`: tenants this worker process will not take more of now (they hold their share of its slots).
   */
  async claim(workerId: string, leaseSeconds: number, skipTenants: string[] = []): Promise<StoredScan | undefined> {
    const now = this.now();
    const next = this.db
      .selectFrom('scans as q')
      .select('q.id')
      .where('q.status', '=', 'queued')
      .$if(skipTenants.length > 0, (w) => w.where('q.tenant_id', 'not in', skipTenants))
      .orderBy((eb) =>
        eb
          .selectFrom('scans as r')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('r.tenant_id', '=', 'q.tenant_id')
          .where('r.status', '=', 'running'),
      )
      .orderBy('q.created_at')
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

  /** Progress, and what the scan is doing (`phase`) and has found so far (`findings`) when its engine says. */
  async progress(scanId: string, workerId: string, percent: number, detail: { phase?: string; findings?: number } = {}): Promise<boolean> {
    const now = this.now();
    return this.writeHeld(scanId, workerId, {
      progress: Math.max(0, Math.min(99, Math.floor(percent))),
      ...(detail.phase !== undefined ? { phase: detail.phase.slice(0, 64) } : {}),
      ...(detail.findings !== undefined && Number.isSafeInteger(detail.findings) ? { findings_so_far: Math.max(0, detail.findings) } : {}),
      last_progress_at: now,
      updated_at: now,
    });
  }

  /** Final state and results in one statement; secrets go with it. */
  async complete(scanId: string, workerId: string, outcome: CompletedOutcome): Promise<boolean> {
    const now = this.now();
    return this.writeHeld(scanId, workerId, {
      status: 'completed',
      progress: 100,
      passed: outcome.passed,
      failed: outcome.failed,
      total: outcome.total,
      elapsed_seconds: outcome.elapsedSeconds,
      agent_count: outcome.agentCount,
      results: JSON.stringify(outcome.results),
      secret: null,
      lease_owner: null,
      lease_expires_at: null,
      completed_at: now,
      updated_at: now,
    });
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
    const now = this.now();
    return this.writeHeld(scanId, workerId, {
      status: 'queued',
      lease_owner: null,
      lease_expires_at: null,
      progress: 0,
      phase: null,
      findings_so_far: null,
      attempts: sql<number>`attempts - 1`,
      queued_at: now,
      updated_at: now,
    });
  }

  /** A write to a running scan by the worker holding its lease; false when it no longer does. */
  private async writeHeld(scanId: string, workerId: string, values: UpdateObject<Database, 'scans'>): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set(values)
      .where('id', '=', scanId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Cancels a queued or running scan. Returns the scan as it is afterwards, or undefined if it is not the tenant's. */
  async cancel(tenantId: string, scanId: string): Promise<{ scan: StoredScan; changed: boolean } | undefined> {
    if (!storableText(scanId)) return undefined;
    const now = this.now();
    const result = await this.db
      .updateTable('scans')
      .set({
        status: 'cancelled',
        failure_reason: 'Cancelled by request',
        secret: null,
        lease_owner: null,
        lease_expires_at: null,
        completed_at: now,
        updated_at: now,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', scanId)
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirst();
    const row = await this.db.selectFrom('scans').selectAll().where('tenant_id', '=', tenantId).where('id', '=', scanId).executeTakeFirst();
    return row ? { scan: decodeScanRow(row), changed: Number(result.numUpdatedRows) > 0 } : undefined;
  }

  /**
   * Scans whose worker stopped renewing the lease go back to the queue once, then fail; scans with no
   * progress for `stallSeconds` fail as timed out. Also returns the final scans whose finisher did not
   * announce them within `announceAfterSeconds` (it died in between).
   */
  async reap(stallSeconds: number, announceAfterSeconds = 30): Promise<Reaped> {
    const now = this.now();
    const requeued: string[] = [];
    const ended: FinishedScan[] = [];
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
          .set({
            status: 'queued',
            lease_owner: null,
            lease_expires_at: null,
            progress: 0,
            phase: null,
            findings_so_far: null,
            queued_at: now,
            updated_at: now,
          })
          .where('id', '=', scan.id)
          .where('status', '=', 'running')
          .where('lease_expires_at', '=', scan.lease_expires_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) requeued.push(scan.id);
      } else if (await this.fail(scan.id, null, `The worker running this scan stopped responding ${MAX_ATTEMPTS} times; the scan was abandoned`)) {
        ended.push({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' });
      }
    }
    const stalledBefore = new Date(this.usage.now().getTime() - stallSeconds * 1000).toISOString();
    const stalled = await this.db
      .selectFrom('scans')
      .select(['id', 'tenant_id'])
      .where('status', '=', 'running')
      .where('last_progress_at', '<', stalledBefore)
      .execute();
    for (const scan of stalled) {
      const minutes = Math.round(stallSeconds / 60);
      const reason = `Timed out: no progress for ${minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${stallSeconds} seconds`}`;
      if (await this.fail(scan.id, null, reason)) ended.push({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' });
    }
    return { requeued, ended, unannounced: await this.unannounced(announceAfterSeconds) };
  }

  /** Final scans not announced `afterSeconds` after they ended, oldest first (at most 100 per call). */
  async unannounced(afterSeconds: number): Promise<FinishedScan[]> {
    const before = new Date(this.usage.now().getTime() - afterSeconds * 1000).toISOString();
    const rows = await this.db
      .selectFrom('scans')
      .select(['id', 'tenant_id', 'status'])
      .where('announced_at', 'is', null)
      .where('completed_at', '<', before)
      .where('status', 'in', FINAL_STATUSES)
      .orderBy('completed_at')
      .limit(100)
      .execute();
    return rows as FinishedScan[];
  }

  /** Scans waiting in the queue, by their tenant's plan (read by the queue-depth metric at each scrape). */
  async queuedByPlan(): Promise<Array<{ plan: Plan; queued: number }>> {
    const rows = await this.db
      .selectFrom('scans')
      .innerJoin('tenants', 'tenants.id', 'scans.tenant_id')
      .select((eb) => ['tenants.plan', eb.fn.countAll<number>().as('queued')])
      .where('scans.status', '=', 'queued')
      .groupBy('tenants.plan')
      .execute();
    return rows.map((row) => ({ plan: row.plan as Plan, queued: Number(row.queued) }));
  }

  /** A scan's status, whoever's it is: what a worker that lost its lease asks (was the scan cancelled?). */
  async statusOf(scanId: string): Promise<StoredScan['status'] | undefined> {
    const row = await this.db.selectFrom('scans').select('status').where('id', '=', scanId).executeTakeFirst();
    return row?.status as StoredScan['status'] | undefined;
  }

  /** Records that the scan's final state was announced. True for the one call that recorded it. */
  async markAnnounced(scanId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set({ announced_at: this.now() })
      .where('id', '=', scanId)
      .where('status', 'in', FINAL_STATUSES)
      .where('announced_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
