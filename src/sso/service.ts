/**
 * Enterprise sign-in (docs/sso.md): a tenant's identity provider configuration, sign-ins from start to
 * session, just-in-time members with their mapped role, and the audit entries of each.
 */
import { randomBytes } from 'node:crypto';
import { groupsOf, mappedRole, safeReturnPath, type Role } from '../domain/access.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { AuditActor, AuditLogRepository } from '../store/audit-log.js';
import type { Member, MemberRepository } from '../store/members.js';
import { roleMappingOf, type SsoConfigRepository, type SsoConfigRow } from '../store/sso-configs.js';
import type { CacheProvider } from '@node-saml/node-saml';
import type { EmailDomainService } from './email-domains.js';
import { OidcSignInError, type OidcClient } from './oidc.js';
import { readIdpMetadata, readSamlResponse, samlFor, SamlSignInError, type SamlServiceProvider } from './saml.js';
import { SsoError } from './service-error.js';

/** How long a sign-in may take between leaving for the IdP and coming back. */
export const SIGN_IN_SECONDS = 10 * 60;

export interface SsoSettingsInput {
  protocol: 'oidc' | 'saml';
  oidc?: { issuer: string; client_id: string; client_secret?: string };
  saml?: { metadata_xml: string };
  group_claim?: string | null;
  role_mapping?: Record<string, Role>;
  default_role?: Role;
  email_domains?: string[];
  sso_required?: boolean;
}

/** The configuration as an admin reads it back (the client secret never leaves). */
export interface SsoSettingsView {
  protocol: 'oidc' | 'saml';
  oidc: { issuer: string; client_id: string; client_secret_set: boolean } | null;
  saml: { metadata_xml: string } | null;
  group_claim: string | null;
  role_mapping: Record<string, Role>;
  default_role: Role;
  email_domains: string[];
  sso_required: boolean;
  updated_at: string;
}

export interface SignedIn {
  member: Member;
  token: string;
  returnTo: string;
  tenantId: string;
}

export interface SsoServiceDeps {
  configs: SsoConfigRepository;
  members: MemberRepository;
  audit: AuditLogRepository;
  secretBox: SecretBox;
  oidc: OidcClient;
  emailDomains: EmailDomainService;
  clock?: () => Date;
}

export class SsoService {
  constructor(private readonly deps: SsoServiceDeps) {}

  async view(tenantId: string): Promise<SsoSettingsView | undefined> {
    const row = await this.deps.configs.get(tenantId);
    return row && { ...viewOf(row), email_domains: (await this.deps.emailDomains.list(tenantId)).map((d) => d.domain) };
  }

  /** Saves a tenant's IdP configuration (an OIDC issuer is discovered first, so a typo is refused at once). */
  async configure(tenantId: string, input: SsoSettingsInput, by: AuditActor, address: string | null): Promise<SsoSettingsView> {
    const previous = await this.deps.configs.get(tenantId);
    let secret: string | null = null;
    if (input.protocol === 'oidc') {
      if (!input.oidc) throw new SsoError(422, 'VALIDATION_ERROR', 'oidc is required when protocol is oidc');
      const clientSecret = input.oidc.client_secret ?? (previous?.oidc_client_secret ? this.deps.secretBox.open(previous.oidc_client_secret) : undefined);
      if (!clientSecret) throw new SsoError(422, 'VALIDATION_ERROR', 'oidc.client_secret is required');
      try {
        await this.deps.oidc.check({ issuer: input.oidc.issuer, clientId: input.oidc.client_id, clientSecret });
      } catch (error) {
        throw new SsoError(422, 'SSO_ISSUER_UNREACHABLE', (error as Error).message);
      }
      secret = this.deps.secretBox.seal(clientSecret);
    } else if (!input.saml) {
      throw new SsoError(422, 'VALIDATION_ERROR', 'saml is required when protocol is saml');
    } else {
      try {
        readIdpMetadata(input.saml.metadata_xml);
      } catch (error) {
        throw new SsoError(422, 'VALIDATION_ERROR', `saml.metadata_xml: ${(error as Error).message}`);
      }
    }
    // Listed domains become claims waiting for their DNS proof (docs/sso.md); left out, the claims stay as they are.
    const listed = input.email_domains && [...new Set(input.email_domains.map((d) => d.toLowerCase()))];
    if (listed) await this.deps.emailDomains.syncFromConfig(tenantId, listed, { by, address });
    const domains = listed ?? (await this.deps.emailDomains.list(tenantId)).map((d) => d.domain);
    const row: SsoConfigRow = {
      tenant_id: tenantId,
      protocol: input.protocol,
      oidc_issuer: input.oidc?.issuer ?? null,
      oidc_client_id: input.oidc?.client_id ?? null,
      oidc_client_secret: secret,
      saml_metadata: input.saml?.metadata_xml ?? null,
      group_claim: input.group_claim ?? null,
      role_mapping: JSON.stringify(input.role_mapping ?? {}),
      default_role: input.default_role ?? 'viewer',
      email_domains: JSON.stringify(domains),
      sso_required: input.sso_required ? 1 : 0,
      updated_at: this.now().toISOString(),
    };
    await this.deps.configs.put(row);
    if (row.sso_required) await this.deps.members.endKeySessions(tenantId);
    const view = viewOf(row);
    await this.deps.audit.record(tenantId, by, 'sso.configured', {
      target: input.protocol,
      detail: {
        protocol: view.protocol,
        issuer: view.oidc?.issuer ?? null,
        group_claim: view.group_claim,
        role_mapping: view.role_mapping,
        default_role: view.default_role,
        email_domains: view.email_domains,
        sso_required: view.sso_required,
      },
      address,
    });
    return view;
  }

  async remove(tenantId: string, by: AuditActor, address: string | null): Promise<boolean> {
    const removed = await this.deps.configs.remove(tenantId);
    if (removed) await this.deps.audit.record(tenantId, by, 'sso.removed', { address });
    return removed;
  }

  /** The tenant a sign-in is for: named, or found by the verified domain of an email address. */
  async tenantFor(query: { tenant?: string; email?: string }): Promise<string> {
    if (query.tenant) return query.tenant;
    const tenant = await this.deps.emailDomains.tenantForEmail(query.email);
    if (!tenant) throw new SsoError(404, 'SSO_NOT_CONFIGURED', 'No tenant has single sign-on set up for this email domain (or has not verified it)');
    return tenant;
  }

  async config(tenantId: string): Promise<SsoConfigRow> {
    const row = await this.deps.configs.get(tenantId);
    if (!row) throw new SsoError(404, 'SSO_NOT_CONFIGURED', `Single sign-on is not set up for tenant ${tenantId}`);
    return row;
  }

  /** Starts an OIDC sign-in: the IdP address to send the browser to, and the request id to bind to the browser. */
  async startOidc(row: SsoConfigRow, redirectUri: string, returnTo: unknown): Promise<{ url: string; requestId: string }> {
    const started = await this.deps.oidc.start(this.oidcSettings(row), redirectUri);
    await this.deps.configs.saveRequest(
      started.checks.state,
      row.tenant_id,
      { protocol: 'oidc', ...started.checks, redirectUri, returnTo: safeReturnPath(returnTo) },
      SIGN_IN_SECONDS,
    );
    return { url: started.url, requestId: started.checks.state };
  }

  /**
   * Finishes an OIDC sign-in. `state` must be a sign-in under way and the one this browser started
   * (`boundState`, from its cookie): taken once, so a replayed callback fails.
   */
  async finishOidc(callbackUrl: URL, boundState: string | undefined, address: string | null): Promise<SignedIn> {
    const state = callbackUrl.searchParams.get('state') ?? '';
    if (!state || boundState === undefined || state !== boundState)
      throw new SsoError(400, 'SSO_STATE_MISMATCH', 'The sign-in answer does not belong to a sign-in this browser started (state mismatch)');
    const pending = await this.deps.configs.takeRequest(state);
    if (!pending || pending.data.protocol !== 'oidc') throw new SsoError(400, 'SSO_STATE_MISMATCH', 'The sign-in expired or was already used; start again');
    const row = await this.config(pending.tenantId);
    if (row.protocol !== 'oidc') throw new SsoError(400, 'SSO_NOT_CONFIGURED', 'OpenID Connect is not the configured sign-in of this tenant');
    const data = pending.data as { state: string; nonce: string; codeVerifier: string; redirectUri: string; returnTo: string };
    const url = new URL(data.redirectUri);
    url.search = callbackUrl.search;
    let identity;
    try {
      identity = await this.deps.oidc.finish(this.oidcSettings(row), url, { state: data.state, nonce: data.nonce, codeVerifier: data.codeVerifier });
    } catch (error) {
      if (error instanceof OidcSignInError) throw new SsoError(400, 'SSO_SIGN_IN_REFUSED', error.message);
      throw error;
    }
    const groups = row.group_claim ? groupsOf(identity.claims[row.group_claim]) : [];
    return this.signIn(row, 'oidc', { subject: `oidc:${identity.subject}`, email: identity.email, name: identity.name }, groups, data.returnTo, address);
  }

  /** Starts a SAML sign-in: the IdP address with an AuthnRequest (HTTP-Redirect binding); the return path travels as RelayState. */
  async startSaml(row: SsoConfigRow, sp: SamlServiceProvider, returnTo: unknown): Promise<string> {
    return this.saml(row, sp).getAuthorizeUrlAsync(safeReturnPath(returnTo), undefined, {});
  }

  /**
   * Finishes a SAML sign-in: node-saml checks the assertion's signature (required), audience, recipient,
   * NotBefore/NotOnOrAfter and InResponseTo (a request this server made, once); an assertion id seen
   * before is a replay and refused.
   */
  async finishSaml(tenantId: string, sp: SamlServiceProvider, samlResponse: string, relayState: unknown, address: string | null): Promise<SignedIn> {
    const row = await this.config(tenantId);
    if (row.protocol !== 'saml') throw new SsoError(400, 'SSO_NOT_CONFIGURED', 'SAML is not the configured sign-in of this tenant');
    let identity;
    try {
      identity = await readSamlResponse(this.saml(row, sp), samlResponse);
    } catch (error) {
      if (error instanceof SamlSignInError) throw new SsoError(400, 'SSO_SIGN_IN_REFUSED', error.message);
      throw error;
    }
    if (!(await this.deps.configs.acceptAssertionOnce(tenantId, identity.assertionId, identity.notOnOrAfter))) {
      throw new SsoError(400, 'SSO_SIGN_IN_REFUSED', 'This SAML assertion was already used (replay)');
    }
    const groups = row.group_claim ? groupsOf(identity.attributes[row.group_claim]) : [];
    return this.signIn(
      row,
      'saml',
      { subject: `saml:${identity.subject}`, email: identity.email, name: identity.name },
      groups,
      safeReturnPath(relayState),
      address,
    );
  }

  /** The SP metadata XML the IdP admin imports. */
  spMetadata(row: SsoConfigRow, sp: SamlServiceProvider): string {
    return this.saml(row, sp).generateServiceProviderMetadata(null, null);
  }

  private saml(row: SsoConfigRow, sp: SamlServiceProvider) {
    if (!row.saml_metadata) throw new SsoError(400, 'SSO_NOT_CONFIGURED', 'The SAML configuration has no IdP metadata');
    const configs = this.deps.configs;
    const tenantId = row.tenant_id;
    // node-saml's InResponseTo cache, in the store: any api process may receive the IdP's answer, once.
    const requests: CacheProvider = {
      saveAsync: async (key, value) => {
        await configs.saveRequest(key, tenantId, { protocol: 'saml', value }, SIGN_IN_SECONDS);
        return { value, createdAt: Date.now() };
      },
      getAsync: async (key) => {
        const found = await configs.peekRequest(key);
        return found && found.tenantId === tenantId && found.data.protocol === 'saml' ? String(found.data.value) : null;
      },
      removeAsync: async (key) => {
        if (key === null) return null;
        const found = await configs.takeRequest(key);
        return found ? String(found.data.value) : null;
      },
    };
    try {
      return samlFor(readIdpMetadata(row.saml_metadata), sp, requests);
    } catch (error) {
      if (error instanceof SamlSignInError) throw new SsoError(400, 'SSO_NOT_CONFIGURED', error.message);
      throw error;
    }
  }

  /** Provisions the member (just in time), opens the session and records both. */
  async signIn(
    row: SsoConfigRow,
    method: 'oidc' | 'saml',
    identity: { subject: string; email: string | null; name: string | null },
    groups: string[],
    returnTo: string,
    address: string | null,
  ): Promise<SignedIn> {
    const role = mappedRole(groups, roleMappingOf(row));
    const { member, created, roleChanged } = await this.deps.members.provision(row.tenant_id, identity, role, row.default_role);
    const actor: AuditActor = { type: 'member', name: member.email ?? member.subject };
    if (created)
      await this.deps.audit.record(row.tenant_id, actor, 'member.provisioned', { target: member.id, detail: { role: member.role, method }, address });
    if (roleChanged)
      await this.deps.audit.record(row.tenant_id, actor, 'member.role_changed', {
        target: member.id,
        detail: { role: member.role, by: 'identity provider groups' },
        address,
      });
    const { token } = await this.deps.members.openSession(row.tenant_id, { memberId: member.id }, method);
    await this.deps.audit.record(row.tenant_id, actor, 'session.signed_in', { target: member.id, detail: { method }, address });
    return { member, token, returnTo, tenantId: row.tenant_id };
  }

  private oidcSettings(row: SsoConfigRow) {
    if (!row.oidc_issuer || !row.oidc_client_id || !row.oidc_client_secret)
      throw new SsoError(400, 'SSO_NOT_CONFIGURED', 'The OpenID Connect configuration is incomplete');
    return { issuer: row.oidc_issuer, clientId: row.oidc_client_id, clientSecret: this.deps.secretBox.open(row.oidc_client_secret) };
  }

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }
}

/** An unguessable id for a sign-in request. */
export function requestId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

function viewOf(row: SsoConfigRow): SsoSettingsView {
  return {
    protocol: row.protocol,
    oidc:
      row.protocol === 'oidc' && row.oidc_issuer && row.oidc_client_id
        ? { issuer: row.oidc_issuer, client_id: row.oidc_client_id, client_secret_set: row.oidc_client_secret !== null }
        : null,
    saml: row.protocol === 'saml' && row.saml_metadata ? { metadata_xml: row.saml_metadata } : null,
    group_claim: row.group_claim,
    role_mapping: roleMappingOf(row),
    default_role: row.default_role,
    email_domains: JSON.parse(row.email_domains) as string[],
    sso_required: row.sso_required === 1,
    updated_at: row.updated_at,
  };
}
