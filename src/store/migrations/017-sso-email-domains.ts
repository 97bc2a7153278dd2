import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * `sso_email_domains`: the email domains a tenant claims for sign-in by email (docs/sso.md), each with the
 * token the admin publishes in DNS (`_vigil-challenge.<domain>` TXT `vigil-domain-verification=<token>`) and
 * when the record was found. Several tenants may claim one domain while it is unverified (so no one can
 * squat a domain by claiming it first); the partial unique index lets only one of them hold it verified.
 * The domains of existing configurations become claims waiting for their proof.
 */
/** The tables as this migration knows them. */
interface Tables {
  sso_configs: { tenant_id: string; email_domains: string };
  sso_email_domains: { tenant_id: string; domain: string; token: string; created_at: string; verified_at: string | null };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>;
  await db.schema
    .createTable('sso_email_domains')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('domain', 'varchar(253)', (c) => c.notNull())
    .addColumn('token', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('verified_at', 'varchar(32)')
    .addPrimaryKeyConstraint('sso_email_domains_pk', ['tenant_id', 'domain'])
    .execute();
  await db.schema
    .createIndex('sso_email_domains_verified_once')
    .ifNotExists()
    .unique()
    .on('sso_email_domains')
    .column('domain')
    .where(sql.ref('verified_at'), 'is not', null)
    .execute();
  const configs = await db.selectFrom('sso_configs').select(['tenant_id', 'email_domains']).execute();
  const now = new Date().toISOString();
  for (const config of configs) {
    for (const domain of JSON.parse(config.email_domains) as string[]) {
      await db
        .insertInto('sso_email_domains')
        .values({ tenant_id: config.tenant_id, domain, token: randomBytes(24).toString('base64url'), created_at: now, verified_at: null })
        .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doNothing())
        .execute();
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_email_domains').ifExists().execute();
}
