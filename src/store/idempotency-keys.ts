import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from './schema.js';

/** How long a key's first answer is kept and replayed (Stripe's 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim =
  /** The key is this request's: run it, then `finish` (or `abandon` on a server error). */
  | { kind: 'run' }
  /** The key answered this very request before: send the stored answer again. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was used with another request (method, path or body). */
  | { kind: 'mismatch' }
  /** The first request with this key is still running. */
  | { kind: 'in-progress' };

/**
 * Idempotency keys of creating POSTs, per tenant (every query is scoped by the tenant id). A request
 * claims its key by inserting a `pending` row; a pending row whose holder did not finish within
 * `lockSeconds` (its process died) may be claimed again, and what the retry creates is deduplicated
 * where it is created (a scan by scan-states' admission).
 */
export class IdempotencyKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
    private readonly lockSeconds = 15,
  ) {}

  async claim(tenantId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
    const now = this.clock();
    const row: IdempotencyKeysTable = {
      tenant_id: tenantId,
      idem_key: key,
      request_hash: requestHash,
      state: 'pending',
      response_status: null,
      response_body: null,
      locked_at: now.toISOString(),
      created_at: now.toISOString(),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((oc) => oc.columns(['tenant_id', 'idem_key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'run' };
      const existing = await this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('idem_key', '=', key)
        .executeTakeFirst();
      if (!existing) continue;
      if (existing.created_at < new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString()) {
        // Expired: the key is free again.
        await this.db
          .deleteFrom('idempotency_keys')
          .where('tenant_id', '=', tenantId)
          .where('idem_key', '=', key)
          .where('created_at', '=', existing.created_at)
          .execute();
        continue;
      }
      if (existing.request_hash !== requestHash) return { kind: 'mismatch' };
      if (existing.state === 'done') return { kind: 'replay', status: existing.response_status ?? 200, body: existing.response_body ?? '' };
      if (existing.locked_at >= new Date(now.getTime() - this.lockSeconds * 1000).toISOString()) return { kind: 'in-progress' };
      // Its holder died mid-request: take the key over (one taker wins the compare-and-set).
      const taken = await this.db
        .updateTable('idempotency_keys')
        .set({ locked_at: now.toISOString() })
        .where('tenant_id', '=', tenantId)
        .where('idem_key', '=', key)
        .where('state', '=', 'pending')
        .where('locked_at', '=', existing.locked_at)
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) > 0 ? { kind: 'run' } : { kind: 'in-progress' };
    }
    return { kind: 'in-progress' };
  }

  /** Stores the answer of the request that holds the key. */
  async finish(tenantId: string, key: string, status: number, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: status, response_body: body })
      .where('tenant_id', '=', tenantId)
      .where('idem_key', '=', key)
      .where('state', '=', 'pending')
      .execute();
  }

  /** Frees the key after a server error, so that a retry runs the request again. */
  async abandon(tenantId: string, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('idem_key', '=', key).where('state', '=', 'pending').execute();
  }

  /** Deletes keys past the 24 h window (the maintenance job's sweep). */
  async sweep(): Promise<void> {
    const before = new Date(this.clock().getTime() - IDEMPOTENCY_TTL_MS).toISOString();
    await this.db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
    await this.db.deleteFrom('scan_idempotency').where('created_at', '<', before).execute();
  }
}
