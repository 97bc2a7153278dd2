import type { Kysely } from 'kysely';
import { displayPrefix, generateApiKey, hashApiKey } from '../domain/api-keys.js';
import { newId, nowIso } from '../domain/ids.js';
import type { Plan } from '../domain/plans.js';
import { preparedQuery } from './prepared.js';
import type { Database, TenantsTable } from './schema.js';
import { storableText } from './database.js';
import { decodeStatusRow, STATUS_COLUMNS, type ScanStatusRow, type ScanStatusView } from './scans.js';
import type { UsagePeriod } from './usage.js';

export type Tenant = TenantsTable;

/** A tenant's columns by name (prepared statements name their columns: see preparedQuery). */
const TENANT_COLUMNS = ['tenants.id', 'tenants.email', 'tenants.plan', 'tenants.status', 'tenants.created_at', 'tenants.updated_at'] as const;

/** The tenant of a key with the tenant's latest usage period (undefined before its first), read in one statement. */
export interface TenantWithPeriod {
  tenant: Tenant;
  latestPeriod: UsagePeriod | undefined;
}

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

/** Tenant ids: what sync-tenant accepts and what a checkout may name (client_reference_id, metadata.tenant_id). */
export const TENANT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
export const TENANT_ID_MAX_LENGTH = 128;
const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

export function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= TENANT_ID_MAX_LENGTH && TENANT_ID.test(value);
}

/** The tenant's provider customer (and current subscription), when the web application already has them. */
export interface PaymentLink {
  customerId: string;
  subscriptionId?: string;
}

/** The customer (or subscription) is already linked to another tenant: linking it twice would bill one and serve both. */
export class PaymentLinkConflictError extends Error {
  constructor(
    readonly field: 'payment_customer_id' | 'payment_subscription_id',
    readonly id: string,
  ) {
    super(`${field === 'payment_customer_id' ? 'Customer' : 'Subscription'} ${id} is already linked to another tenant`);
  }
}

export class TenantRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Creates a tenant with its first API key (and its payment link, if given), atomically: in its own
   * transaction, or inside the caller's `db` transaction (billing creates tenants in the transaction that
   * records the webhook event). Throws TenantExistsError when the id is taken.
   */
  async create(input: { id?: string; email?: string | null; plan: Plan; payment?: PaymentLink }, db?: Kysely<Database>): Promise<IssuedTenant> {
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
    const insert = async (trx: Kysely<Database>): Promise<void> => {
      const existing = await trx.selectFrom('tenants').select('id').where('id', '=', tenant.id).executeTakeFirst();
      if (existing) throw new TenantExistsError(tenant.id);
      await trx.insertInto('tenants').values(tenant).execute();
      await trx
        .insertInto('api_keys')
        .values({ id: newId('key'), tenant_id: tenant.id, key_hash: hashApiKey(apiKey), key_prefix: displayPrefix(apiKey), created_at: now, revoked_at: null })
        .execute();
      if (input.payment) await this.linkPayment(trx, tenant.id, input.payment, now);
    };
    if (db) {
      await insert(db);
      return { tenant, apiKey };
    }
    try {
      await this.db.transaction().execute(insert);
    } catch (error) {
      if (error instanceof TenantExistsError || error instanceof PaymentLinkConflictError) throw error;
      if (isUniqueViolation(error)) {
        // A concurrent creation took the tenant id or the customer first: say which.
        if (!(await this.get(tenant.id)) && input.payment && (await this.linkedTo(this.db, input.payment))) {
          throw new PaymentLinkConflictError('payment_customer_id', input.payment.customerId);
        }
        throw new TenantExistsError(tenant.id);
      }
      throw error;
    }
    return { tenant, apiKey };
  }

  /**
   * The tenant's billing account with its provider customer and subscription: the same row a checkout
   * creates, so events for that customer find the tenant and a checkout reuses the customer.
   */
  private async linkPayment(db: Kysely<Database>, tenantId: string, link: PaymentLink, now: string): Promise<void> {
    const taken = await this.linkedTo(db, link);
    if (taken) throw new PaymentLinkConflictError(taken, taken === 'payment_customer_id' ? link.customerId : link.subscriptionId!);
    await db
      .insertInto('billing_accounts')
      .values({
        tenant_id: tenantId,
        customer_id: link.customerId,
        subscription_id: link.subscriptionId ?? null,
        payment_failed_at: null,
        payment_failed_created: null,
        payment_failure: null,
        last_paid_created: null,
        updated_at: now,
      })
      .execute();
  }

  /** Which part of the link another tenant already has, if any. */
  private async linkedTo(db: Kysely<Database>, link: PaymentLink): Promise<PaymentLinkConflictError['field'] | undefined> {
    const byCustomer = await db.selectFrom('billing_accounts').select('tenant_id').where('customer_id', '=', link.customerId).executeTakeFirst();
    if (byCustomer) return 'payment_customer_id';
    if (!link.subscriptionId) return undefined;
    const bySubscription = await db.selectFrom('billing_accounts').select('tenant_id').where('subscription_id', '=', link.subscriptionId).executeTakeFirst();
    return bySubscription ? 'payment_subscription_id' : undefined;
  }

  /** `db` may be a transaction (inside one, every read must go through it). */
  async get(id: string, db: Kysely<Database> = this.db): Promise<Tenant | undefined> {
    return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
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
      .select(TENANT_COLUMNS)
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.revoked_at', 'is', null),
  );

  /**
   * `findByApiKey` and the tenant's latest usage period (the row UsageRepository's reads start from) in
   * the same statement: one round trip for GET /usage instead of two.
   */
  async findByApiKeyWithPeriod(apiKey: string): Promise<TenantWithPeriod | undefined> {
    const [row] = await this.byKeyHashWithPeriod(this.db, hashApiKey(apiKey));
    if (!row) return undefined;
    const {
      p_period_start,
      p_period_end,
      p_plan,
      p_functional_used,
      p_security_used,
      p_functional_limit,
      p_security_limit,
      p_specifications_used,
      p_specifications_limit,
      p_updated_at,
      ...tenant
    } = row;
    const latestPeriod: UsagePeriod | undefined =
      p_period_start === null
        ? undefined
        : {
            tenant_id: tenant.id,
            period_start: p_period_start,
            period_end: p_period_end!,
            plan: p_plan!,
            functional_used: p_functional_used!,
            security_used: p_security_used!,
            functional_limit: p_functional_limit,
            security_limit: p_security_limit,
            specifications_used: p_specifications_used!,
            specifications_limit: p_specifications_limit,
            updated_at: p_updated_at!,
          };
    return { tenant, latestPeriod };
  }

  // The latest period by the primary key (tenant_id, period_start): the largest start of the tenant's rows.
  private readonly byKeyHashWithPeriod = preparedQuery((keyHash: string) =>
    this.db
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      .leftJoin('usage_periods', (join) =>
        join.onRef('usage_periods.tenant_id', '=', 'tenants.id').on('usage_periods.period_start', '=', (eb) =>
          eb
            .selectFrom('usage_periods as latest')
            .select((l) => l.fn.max('latest.period_start').as('start'))
            .whereRef('latest.tenant_id', '=', 'tenants.id'),
        ),
      )
      .select(TENANT_COLUMNS)
      .select([
        'usage_periods.period_start as p_period_start',
        'usage_periods.period_end as p_period_end',
        'usage_periods.plan as p_plan',
        'usage_periods.functional_used as p_functional_used',
        'usage_periods.security_used as p_security_used',
        'usage_periods.functional_limit as p_functional_limit',
        'usage_periods.security_limit as p_security_limit',
        'usage_periods.specifications_used as p_specifications_used',
        'usage_periods.specifications_limit as p_specifications_limit',
        'usage_periods.updated_at as p_updated_at',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.revoked_at', 'is', null),
  );

  /**
   * `findByApiKey` and the status of the tenant's scan `scanId` (undefined when the tenant has no such
   * scan) in the same statement: one round trip for GET /scan/{id} instead of two.
   */
  async findByApiKeyWithScan(apiKey: string, scanId: string): Promise<{ tenant: Tenant; scan: ScanStatusView | undefined } | undefined> {
    if (!storableText(scanId)) {
      const tenant = await this.findByApiKey(apiKey);
      return tenant && { tenant, scan: undefined };
    }
    const [row] = await this.byKeyHashWithScan(this.db, hashApiKey(apiKey), scanId);
    if (!row) return undefined;
    const tenant: Record<string, unknown> = {};
    const scan: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.startsWith('s_')) scan[column.slice(2)] = value;
      else tenant[column] = value;
    }
    return { tenant: tenant as unknown as Tenant, scan: scan.id === null ? undefined : decodeStatusRow(scan as unknown as ScanStatusRow) };
  }

  private readonly byKeyHashWithScan = preparedQuery((keyHash: string, scanId: string) =>
    this.db
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      .leftJoin('scans', (join) => join.onRef('scans.tenant_id', '=', 'tenants.id').on('scans.id', '=', scanId))
      .select(TENANT_COLUMNS)
      .select(STATUS_COLUMNS.map((column) => `scans.${column} as s_${column}` as const))
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

  /** Sets the plan (inside the caller's transaction when `db` is one); takes effect on the tenant's next request. */
  async setPlan(tenantId: string, plan: Plan, db: Kysely<Database> = this.db): Promise<void> {
    await db.updateTable('tenants').set({ plan, updated_at: nowIso() }).where('id', '=', tenantId).execute();
  }
}

/** Unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
