import type { Kysely } from 'kysely';
import type { Role } from '../domain/access.js';
import { storableText } from './database.js';
import type { Database, SsoConfigsTable } from './schema.js';

export type SsoConfigRow = SsoConfigsTable;

/** A tenant's identity provider settings, its sign-ins under way and the SAML assertions it accepted. */
export class SsoConfigRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(tenantId: string): Promise<SsoConfigRow | undefined> {
    if (!storableText(tenantId)) return undefined;
    return this.db.selectFrom('sso_configs').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  async put(row: SsoConfigRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sso_configs').where('tenant_id', '=', row.tenant_id).execute();
      await trx.insertInto('sso_configs').values(row).execute();
    });
  }

  async remove(tenantId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('sso_configs').where('tenant_id', '=', tenantId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async saveRequest(id: string, tenantId: string, data: Record<string, unknown>, ttlSeconds: number): Promise<void> {
    const expires = new Date(this.clock().getTime() + ttlSeconds * 1000).toISOString();
    await this.db
      .insertInto('sso_requests')
      .values({ id, tenant_id: tenantId, data: JSON.stringify(data), expires_at: expires })
      .execute();
  }

  async peekRequest(id: string): Promise<{ tenantId: string; data: Record<string, unknown> } | undefined> {
    if (!storableText(id) || id.length > 128) return undefined;
    const row = await this.db.selectFrom('sso_requests').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.expires_at <= this.clock().toISOString()) return undefined;
    return { tenantId: row.tenant_id, data: JSON.parse(row.data) as Record<string, unknown> };
  }

  /** Takes a sign-in under way, once: a second take (a replayed callback) finds nothing. */
  async takeRequest(id: string): Promise<{ tenantId: string; data: Record<string, unknown> } | undefined> {
    const found = await this.peekRequest(id);
    if (!found) return undefined;
    const deleted = await this.db.deleteFrom('sso_requests').where('id', '=', id).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0 ? found : undefined;
  }

  async removeRequest(id: string): Promise<void> {
    if (storableText(id)) await this.db.deleteFrom('sso_requests').where('id', '=', id).execute();
  }

  /** Records a SAML assertion id; false when it was accepted before (a replay). */
  async acceptAssertionOnce(tenantId: string, assertionId: string, expiresAt: string): Promise<boolean> {
    const now = this.clock().toISOString();
    await this.db.deleteFrom('sso_assertions').where('expires_at', '<', now).execute();
    const inserted = await this.db
      .insertInto('sso_assertions')
      .values({ tenant_id: tenantId, assertion_id: assertionId.slice(0, 255), expires_at: expiresAt })
      .onConflict((oc) => oc.columns(['tenant_id', 'assertion_id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }
}

export function roleMappingOf(row: SsoConfigRow): Record<string, Role> {
  return JSON.parse(row.role_mapping) as Record<string, Role>;
}
