import type { Kysely } from 'kysely';

/**
 * Enterprise sign-in (docs/sso.md):
 * - `sso_configs`: a tenant's identity provider (OpenID Connect or SAML 2.0), role mapping and switches;
 * - `members`: people provisioned on their first SSO sign-in, with their role;
 * - `dashboard_sessions`: server-side sessions of the dashboard (the cookie holds a token; only its
 *   SHA-256 is stored), with idle and absolute expiry and the CSRF token;
 * - `sso_requests`: sign-ins under way (OIDC state, nonce and PKCE verifier; SAML request ids), single use;
 * - `sso_assertions`: SAML assertion ids already accepted, kept until they expire (replay refusal);
 * - `audit_log`: who did what, when, from which address, per tenant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_configs')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('protocol', 'varchar(8)', (c) => c.notNull())
    .addColumn('oidc_issuer', 'varchar(2048)')
    .addColumn('oidc_client_id', 'varchar(512)')
    .addColumn('oidc_client_secret', 'text')
    .addColumn('saml_metadata', 'text')
    .addColumn('group_claim', 'varchar(255)')
    .addColumn('role_mapping', 'text', (c) => c.notNull())
    .addColumn('default_role', 'varchar(16)', (c) => c.notNull())
    .addColumn('email_domains', 'text', (c) => c.notNull())
    .addColumn('sso_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('members')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('subject', 'varchar(512)', (c) => c.notNull())
    .addColumn('email', 'varchar(512)')
    .addColumn('name', 'varchar(512)')
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'varchar(32)')
    .addUniqueConstraint('members_subject', ['tenant_id', 'subject'])
    .execute();

  await db.schema
    .createTable('dashboard_sessions')
    .ifNotExists()
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('member_id', 'varchar(64)', (c) => c.references('members.id').onDelete('cascade'))
    .addColumn('key_prefix', 'varchar(64)')
    .addColumn('method', 'varchar(8)', (c) => c.notNull())
    .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_seen_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_member').ifNotExists().on('dashboard_sessions').columns(['tenant_id', 'member_id']).execute();

  await db.schema
    .createTable('sso_requests')
    .ifNotExists()
    .addColumn('id', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sso_assertions')
    .ifNotExists()
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('assertion_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_assertions_pk', ['tenant_id', 'assertion_id'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .ifNotExists()
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('tenant_id', 'varchar(128)', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('at', 'varchar(32)', (c) => c.notNull())
    .addColumn('actor_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('actor', 'varchar(512)', (c) => c.notNull())
    .addColumn('action', 'varchar(64)', (c) => c.notNull())
    .addColumn('target', 'varchar(512)')
    .addColumn('detail', 'text')
    .addColumn('address', 'varchar(64)')
    .execute();
  await db.schema.createIndex('audit_log_tenant_at').ifNotExists().on('audit_log').columns(['tenant_id', 'at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_log', 'sso_assertions', 'sso_requests', 'dashboard_sessions', 'members', 'sso_configs']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
