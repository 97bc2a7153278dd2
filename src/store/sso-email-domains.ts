import type { Kysely } from 'kysely';
import { storableText } from './database.js';
import type { Database, SsoEmailDomainsTable } from './schema.js';
import { isUniqueViolation } from './tenants.js';

export type EmailDomainClaim = SsoEmailDomainsTable;

/**
 * The email domains tenants claim for sign-in by email, and their DNS proof (docs/sso.md). Every method is
 * scoped by tenant but `verifiedOwner`, which answers who holds a domain verified (at most one tenant: a
 * partial unique index, so two tenants proving the same domain at once cannot both win).
 */
export class SsoEmailDomainRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(tenantId: string): Promise<EmailDomainClaim[]> {
    return this.db.selectFrom('sso_email_domains').selectAll().where('tenant_id', '=', tenantId).orderBy('domain').execute();
  }

  async get(tenantId: string, domain: string): Promise<EmailDomainClaim | undefined> {
    if (!storableText(domain)) return undefined;
    return this.db.selectFrom('sso_email_domains').selectAll().where('tenant_id', '=', tenantId).where('domain', '=', domain).executeTakeFirst();
  }

  /** Adds a claim waiting for its proof; an existing claim of the tenant is kept as it is (its token too). */
  async add(claim: EmailDomainClaim): Promise<EmailDomainClaim> {
    await this.db
      .insertInto('sso_email_domains')
      .values(claim)
      .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doNothing())
      .execute();
    return (await this.get(claim.tenant_id, claim.domain)) ?? claim;
  }

  async remove(tenantId: string, domain: string): Promise<boolean> {
    if (!storableText(domain)) return false;
    const result = await this.db.deleteFrom('sso_email_domains').where('tenant_id', '=', tenantId).where('domain', '=', domain).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Marks the claim proven; false when another tenant holds the domain verified (the unique index decides a race). */
  async markVerified(tenantId: string, domain: string, at: string): Promise<boolean> {
    try {
      await this.db.updateTable('sso_email_domains').set({ verified_at: at }).where('tenant_id', '=', tenantId).where('domain', '=', domain).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** The tenant holding `domain` verified, if any. */
  async verifiedOwner(domain: string): Promise<string | undefined> {
    if (!/^[a-z0-9.-]{1,253}$/.test(domain)) return undefined;
    const row = await this.db
      .selectFrom('sso_email_domains')
      .select('tenant_id')
      .where('domain', '=', domain)
      .where('verified_at', 'is not', null)
      .executeTakeFirst();
    return row?.tenant_id;
  }
}
