import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.js';
import type { AuditLogTable, Database } from './schema.js';

export type AuditEntry = AuditLogTable;

/** Who acted: a member (by email or subject) or an API key (by its display prefix). */
export interface AuditActor {
  type: AuditEntry['actor_type'];
  name: string;
}

export interface AuditFilter {
  action?: string;
  actor?: string;
  /** ISO timestamps, inclusive from, exclusive to. */
  from?: string;
  to?: string;
}

/**
 * An entry id that sorts in the order this process recorded its entries (the list's tie-break when two
 * entries share a millisecond, as a sign-in's member.provisioned and session.signed_in do), then random.
 */
let lastSequence = 0n;
function entryId(): string {
  let sequence = process.hrtime.bigint();
  if (sequence <= lastSequence) sequence = lastSequence + 1n;
  lastSequence = sequence;
  return `${newId('aud', 6).replace(/^aud_/, `aud_${sequence.toString(36).padStart(13, '0')}`)}`;
}

/** The audit log, per tenant: appended to, never changed. */
export class AuditLogRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async record(
    tenantId: string,
    actor: AuditActor,
    action: string,
    entry: { target?: string | null; detail?: Record<string, unknown>; address?: string | null } = {},
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await db
      .insertInto('audit_log')
      .values({
        id: entryId(),
        tenant_id: tenantId,
        at: this.clock().toISOString(),
        actor_type: actor.type,
        actor: actor.name.slice(0, 512),
        action,
        target: entry.target?.slice(0, 512) ?? null,
        detail: entry.detail ? JSON.stringify(entry.detail) : null,
        address: entry.address?.slice(0, 64) ?? null,
      })
      .execute();
  }

  /** Most recent first. */
  async list(tenantId: string, filter: AuditFilter, page: number, perPage: number): Promise<{ items: AuditEntry[]; total: number }> {
    let base = this.db.selectFrom('audit_log').where('tenant_id', '=', tenantId);
    if (filter.action) base = base.where('action', '=', filter.action);
    if (filter.actor) base = base.where('actor', '=', filter.actor);
    if (filter.from) base = base.where('at', '>=', filter.from);
    if (filter.to) base = base.where('at', '<', filter.to);
    const [items, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }
}
