import type { Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashApiKey } from '../domain/api-keys.js';
import { newId, nowIso } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import { preparedQuery } from './prepared.js';
import type { Database, TenantsTable } from './schema.js';

export type Tenant = TenantsTable;

export interface IssuedTenant {
  tenant: Tenant;
  /** The only time the key exists in clear. */
  apiKey: string;
}

export class TenantExistsError extends Error {
  constructor(readonly tenantId: string) {
    super(`tenant ${tenantId} already exists`);
  }
}

export class TenantRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Creates a tenant with its first API key, atomically. */
  async create(input: { id?: string; email?: string | null; plan: Plan }): Promise<IssuedTenant> {
    const now = nowIso();
    const tenant: Tenant = {
      id: input.id ?? newId('ten'),
      email: input.email ?? null,
      plan: input.plan,
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    const apiKey = generateApiKey();
    try {
      await this.db.transaction().execute(async (trx) => {
        const existing = await trx.selectFrom('tenants').select('id').where('id', '=', tenant.id).executeTakeFirst();
        if (existing) throw new TenantExistsError(tenant.id);
        await trx.insertInto('tenants').values(tenant).execute();
        await trx
          .insertInto('api_keys')
          .values({ id: newId('key'), tenant_id: tenant.id, key_hash: hashApiKey(apiKey), key_prefix: displayPrefix(apiKey), created_at: now, revoked_at: null })
          .execute();
      });
    } catch (error) {
      if (error instanceof TenantExistsError || isUniqueViolation(error)) throw new TenantExistsError(tenant.id);
      throw error;
    }
    return { tenant, apiKey };
  }

  async get(id: string): Promise<Tenant | undefined> {
    return this.db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(): Promise<Array<Tenant & { key_prefix: string | null }>> {
    return this.db
      .selectFrom('tenants')
      .leftJoin('api_keys', (join) => join.onRef('api_keys.tenant_id', '=', 'tenants.id').on('api_keys.revoked_at', 'is', null))
      .selectAll('tenants')
      .select('api_keys.key_prefix')
      .orderBy('tenants.created_at')
      .execute();
  }

  /** The tenant an active key belongs to. The lookup is by hash; the key itself is never stored. Runs on every request. */
  async findByApiKey(apiKey: string): Promise<Tenant | undefined> {
    const [tenant] = await this.byKeyHash(this.db, hashApiKey(apiKey));
    return tenant;
  }

  private readonly byKeyHash = preparedQuery((keyHash: string) =>
    this.db
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      .selectAll('tenants')
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.revoked_at', 'is', null),
  );

  /** Revokes every active key of the tenant and issues a new one, in one transaction. */
  async rotateKey(tenantId: string): Promise<string | undefined> {
    const apiKey = generateApiKey();
    const now = nowIso();
    const rotated = await this.db.transaction().execute(async (trx) => {
      const tenant = await trx.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
      if (!tenant) return false;
      await trx.updateTable('api_keys').set({ revoked_at: now }).where('tenant_id', '=', tenantId).where('revoked_at', 'is', null).execute();
      await trx
        .insertInto('api_keys')
        .values({ id: newId('key'), tenant_id: tenantId, key_hash: hashApiKey(apiKey), key_prefix: displayPrefix(apiKey), created_at: now, revoked_at: null })
        .execute();
      return true;
    });
    return rotated ? apiKey : undefined;
  }

  /**
   * Creates a tenant with its first API key inside the caller's transaction (billing creates tenants in
   * the same transaction that records the webhook event). Throws TenantExistsError when the id is taken.
   */
  async createWithin(db: Kysely<Database>, input: { id?: string; email?: string | null; plan: Plan }): Promise<IssuedTenant> {
    const now = nowIso();
    const tenant: Tenant = { id: input.id ?? newId('ten'), email: input.email ?? null, plan: input.plan, status: 'active', created_at: now, updated_at: now };
    const existing = await db.selectFrom('tenants').select('id').where('id', '=', tenant.id).executeTakeFirst();
    if (existing) throw new TenantExistsError(tenant.id);
    const apiKey = generateApiKey();
    await db.insertInto('tenants').values(tenant).execute();
    await db
      .insertInto('api_keys')
      .values({ id: newId('key'), tenant_id: tenant.id, key_hash: hashApiKey(apiKey), key_prefix: displayPrefix(apiKey), created_at: now, revoked_at: null })
      .execute();
    return { tenant, apiKey };
  }

  /** Sets the plan inside the caller's transaction; takes effect on the tenant's next request. */
  async setPlanWithin(db: Kysely<Database>, tenantId: string, plan: Plan): Promise<void> {
    await db.updateTable('tenants').set({ plan, updated_at: nowIso() }).where('id', '=', tenantId).execute();
  }

  async setPlan(tenantId: string, plan: Plan): Promise<void> {
    await this.db.updateTable('tenants').set({ plan, updated_at: nowIso() }).where('id', '=', tenantId).execute();
  }
}

/** Unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
