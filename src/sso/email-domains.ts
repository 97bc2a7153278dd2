/**
 * Email domains for sign-in by email (docs/sso.md): an admin claims a domain, publishes the TXT record the
 * claim names and has Vigil look it up; only a verified domain sends an email's sign-in to its tenant, and a
 * domain verified by one tenant cannot be claimed or verified by another.
 */
import { randomBytes } from 'node:crypto';
import type { AuditActor, AuditLogRepository } from '../store/audit-log.js';
import type { EmailDomainClaim, SsoEmailDomainRepository } from '../store/sso-email-domains.js';
import { challengeRecord, DnsLookupFailed, type TxtLookup } from './domain-proof.js';
import { SsoError } from './service-error.js';

export interface EmailDomainView {
  domain: string;
  status: 'pending' | 'verified';
  txt_record: { name: string; type: 'TXT'; value: string };
  created_at: string;
  verified_at: string | null;
}

export interface EmailDomainDeps {
  domains: SsoEmailDomainRepository;
  audit: AuditLogRepository;
  lookup: TxtLookup;
  clock?: () => Date;
}

interface Who {
  by: AuditActor;
  address: string | null;
}

export class EmailDomainService {
  constructor(private readonly deps: EmailDomainDeps) {}

  async list(tenantId: string): Promise<EmailDomainView[]> {
    return (await this.deps.domains.list(tenantId)).map(viewOf);
  }

  /** The tenant an email address signs in to: the one holding its domain verified. */
  async tenantForEmail(email: string | undefined): Promise<string | undefined> {
    const domain = email?.split('@')[1]?.toLowerCase();
    return domain ? this.deps.domains.verifiedOwner(domain) : undefined;
  }

  /** Claims a domain (waiting for its proof); the tenant's existing claim is answered as it is. */
  async claim(tenantId: string, domain: string, who: Who): Promise<{ view: EmailDomainView; created: boolean }> {
    await this.refuseIfHeldElsewhere(tenantId, domain);
    const existing = await this.deps.domains.get(tenantId, domain);
    if (existing) return { view: viewOf(existing), created: false };
    const claim = await this.deps.domains.add({
      tenant_id: tenantId,
      domain,
      token: randomBytes(24).toString('base64url'),
      created_at: this.now().toISOString(),
      verified_at: null,
    });
    await this.deps.audit.record(tenantId, who.by, 'sso.domain_added', {
      target: domain,
      detail: { txt_record: challengeRecord(domain, claim.token) },
      address: who.address,
    });
    return { view: viewOf(claim), created: true };
  }

  /** Looks the claim's TXT record up; verified when one of the records is exactly the claim's value. */
  async verify(tenantId: string, domain: string, who: Who): Promise<EmailDomainView> {
    const claim = await this.deps.domains.get(tenantId, domain);
    if (!claim) throw new SsoError(404, 'NOT_FOUND', `The email domain ${domain} is not claimed by this tenant`);
    if (claim.verified_at) return viewOf(claim);
    await this.refuseIfHeldElsewhere(tenantId, domain);
    const record = challengeRecord(domain, claim.token);
    let found: string[];
    try {
      found = await this.deps.lookup(record.name);
    } catch (error) {
      if (error instanceof DnsLookupFailed) throw new SsoError(422, 'DOMAIN_NOT_VERIFIED', `${error.message}: try again in a moment`);
      throw error;
    }
    if (!found.includes(record.value)) {
      const seen = found.length === 0 ? 'no TXT record was found there' : `the TXT records found there do not include it (${found.length} found)`;
      throw new SsoError(
        422,
        'DOMAIN_NOT_VERIFIED',
        `Publish a TXT record at ${record.name} with the value ${record.value}: ${seen}. DNS changes may take a while to be seen.`,
      );
    }
    const at = this.now().toISOString();
    if (!(await this.deps.domains.markVerified(tenantId, domain, at))) throw taken(domain);
    await this.deps.audit.record(tenantId, who.by, 'sso.domain_verified', { target: domain, detail: { txt_record_name: record.name }, address: who.address });
    return viewOf({ ...claim, verified_at: at });
  }

  async release(tenantId: string, domain: string, who: Who): Promise<boolean> {
    const removed = await this.deps.domains.remove(tenantId, domain);
    if (removed) await this.deps.audit.record(tenantId, who.by, 'sso.domain_removed', { target: domain, address: who.address });
    return removed;
  }

  /** `email_domains` of PUT /sso/config: claims the listed domains that are not claimed yet and releases the others. */
  async syncFromConfig(tenantId: string, domains: readonly string[], who: Who): Promise<void> {
    for (const domain of domains) await this.refuseIfHeldElsewhere(tenantId, domain);
    const current = await this.deps.domains.list(tenantId);
    for (const claim of current) if (!domains.includes(claim.domain)) await this.release(tenantId, claim.domain, who);
    for (const domain of domains) await this.claim(tenantId, domain, who);
  }

  private async refuseIfHeldElsewhere(tenantId: string, domain: string): Promise<void> {
    const owner = await this.deps.domains.verifiedOwner(domain);
    if (owner && owner !== tenantId) throw taken(domain);
  }

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }
}

function taken(domain: string): SsoError {
  return new SsoError(409, 'EMAIL_DOMAIN_TAKEN', `The email domain ${domain} is verified by another tenant`);
}

function viewOf(claim: EmailDomainClaim): EmailDomainView {
  return {
    domain: claim.domain,
    status: claim.verified_at ? 'verified' : 'pending',
    txt_record: challengeRecord(claim.domain, claim.token),
    created_at: claim.created_at,
    verified_at: claim.verified_at,
  };
}
