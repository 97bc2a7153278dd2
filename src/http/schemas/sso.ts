/** Schemas of the `sso` group: identity provider configuration, sign-in, sessions, members and the audit log. */
import { Type } from '@sinclair/typebox';
import { ROLES } from '../../domain/access.js';
import { PagingQuery, StringEnum } from './common.js';

const RoleSchema = StringEnum(ROLES, {
  description: 'admin: everything (SSO, members, keys, billing); member: scans, baselines, suppressions; viewer: read only',
});

export const SsoConfigBody = Type.Object(
  {
    protocol: StringEnum(['oidc', 'saml'] as const, { description: 'OpenID Connect or SAML 2.0' }),
    oidc: Type.Optional(
      Type.Object(
        {
          issuer: Type.String({ format: 'uri', maxLength: 2048, description: 'Issuer URL; its /.well-known/openid-configuration is discovered' }),
          client_id: Type.String({ minLength: 1, maxLength: 512 }),
          client_secret: Type.Optional(
            Type.String({ minLength: 1, maxLength: 2048, description: 'Stored sealed, never returned; omit to keep the saved one' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    saml: Type.Optional(
      Type.Object(
        { metadata_xml: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'The IdP metadata XML (EntityDescriptor with IDPSSODescriptor)' }) },
        { additionalProperties: false },
      ),
    ),
    group_claim: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], {
        description: "The ID token claim or SAML attribute that lists the user's groups",
      }),
    ),
    role_mapping: Type.Optional(
      Type.Record(Type.String({ maxLength: 255 }), RoleSchema, { description: "IdP group -> role; the highest role among the user's groups wins" }),
    ),
    default_role: Type.Optional(RoleSchema),
    email_domains: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$', maxLength: 253 }), {
        maxItems: 20,
        description:
          'Email domains for sign-in by email: each listed domain not yet claimed becomes a claim waiting for its DNS proof (GET /sso/domains, POST /sso/domains/{domain}/verify), domains left out are released; omitted, the claims stay as they are. Only verified domains route sign-in.',
      }),
    ),
    sso_required: Type.Optional(Type.Boolean({ description: 'Refuse key sign-in to the dashboard (API keys keep working for the API)' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        protocol: 'oidc',
        oidc: { issuer: 'https://login.example.com', client_id: 'vigil', client_secret: 's3cret' },
        group_claim: 'groups',
        role_mapping: { 'vigil-admins': 'admin', engineers: 'member' },
        default_role: 'viewer',
        email_domains: ['example.com'],
        sso_required: false,
      },
    ],
  },
);

export const SsoConfigView = Type.Object({
  protocol: Type.String(),
  oidc: Type.Union([Type.Object({ issuer: Type.String(), client_id: Type.String(), client_secret_set: Type.Boolean() }), Type.Null()]),
  saml: Type.Union([Type.Object({ metadata_xml: Type.String() }), Type.Null()]),
  group_claim: Type.Union([Type.String(), Type.Null()]),
  role_mapping: Type.Record(Type.String(), Type.String()),
  default_role: Type.String(),
  email_domains: Type.Array(Type.String(), {
    description: 'The claimed email domains, verified or not, in alphabetical order (their proof: GET /sso/domains)',
  }),
  sso_required: Type.Boolean(),
  updated_at: Type.String({ format: 'date-time' }),
  /** Values for the IdP admin. */
  service_provider: Type.Object({
    oidc_redirect_uri: Type.String({ description: 'The redirect (callback) URI to register at the OpenID provider' }),
    saml_acs_url: Type.String({ description: 'Assertion consumer service URL (HTTP-POST)' }),
    saml_entity_id: Type.String({ description: 'SP entity id = the audience of assertions' }),
    saml_metadata_url: Type.String(),
    sign_in_url: Type.String(),
  }),
});

export const LoginQuery = Type.Object({
  tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Tenant id' })),
  email: Type.Optional(
    Type.String({ minLength: 3, maxLength: 320, description: "The user's email: its domain finds the tenant (domains verified by the admin)" }),
  ),
  return_to: Type.Optional(Type.String({ maxLength: 2048, description: 'A dashboard path (/app/...) to land on; anything else lands on /app/' })),
});

export const TenantQuery = Type.Object({ tenant: Type.String({ minLength: 1, maxLength: 128 }) });
export const TenantParams = TenantQuery;

export const SessionBody = Type.Object({
  tenant_id: Type.String(),
  plan: Type.String(),
  role: RoleSchema,
  method: Type.String({ description: 'oidc, saml, key (a key sign-in), or api_key (a request with X-API-Key: no session)' }),
  member: Type.Union([
    Type.Object({ member_id: Type.String(), email: Type.Union([Type.String(), Type.Null()]), name: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null(),
  ]),
  csrf_token: Type.Union([Type.String(), Type.Null()], {
    description: 'Send it in X-CSRF-Token on every POST, PUT, PATCH and DELETE made with the session cookie',
  }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Absolute expiry (the session also ends after VIGIL_SESSION_IDLE_MINUTES without a request)',
  }),
  sso_required: Type.Boolean(),
});

export const MemberBody = Type.Object({
  member_id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
  role: RoleSchema,
  created_at: Type.String({ format: 'date-time' }),
  last_sign_in_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const MemberList = Type.Object({
  members: Type.Array(MemberBody),
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total_pages: Type.Integer(),
});
export const MemberListQuery = Type.Object(PagingQuery);
export const MemberIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const MemberPatch = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export const AuditQuery = Type.Object({
  ...PagingQuery,
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'e.g. scan.started, baseline.approved, key.rotated' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "A member's email or an API key prefix" })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before' })),
});

const AuditEntry = Type.Object({
  entry_id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  actor_type: Type.String({ description: 'member, api_key or system' }),
  actor: Type.String({ description: 'Member email (or IdP subject), or API key prefix' }),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()], { description: 'Client address of the request' }),
});

export const AuditList = Type.Object(
  { entries: Type.Array(AuditEntry), total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() },
  {
    examples: [
      {
        entries: [
          {
            entry_id: 'aud_x1',
            at: '2026-11-20T09:12:00.000Z',
            actor_type: 'member',
            actor: 'ana@example.com',
            action: 'baseline.approved',
            target: 'bln_abc',
            detail: null,
            address: '203.0.113.9',
          },
        ],
        total: 1,
        page: 1,
        per_page: 20,
        total_pages: 1,
      },
    ],
  },
);

const DOMAIN_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$';

export const EmailDomainBody = Type.Object(
  { domain: Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253, description: 'The email domain (the part after @), e.g. example.com' }) },
  { additionalProperties: false, examples: [{ domain: 'example.com' }] },
);

export const EmailDomainParams = Type.Object({ domain: Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253 }) });

export const EmailDomainView = Type.Object(
  {
    domain: Type.String(),
    status: StringEnum(['pending', 'verified'] as const, {
      description: 'pending: waiting for the TXT record to be found; verified: email addresses of this domain sign in to this tenant',
    }),
    txt_record: Type.Object(
      {
        name: Type.String({ description: 'Where to publish it: _vigil-challenge.<domain>' }),
        type: Type.Literal('TXT'),
        value: Type.String({ description: 'vigil-domain-verification=<token>' }),
      },
      { description: 'The DNS record that proves the tenant owns the domain' },
    ),
    created_at: Type.String({ format: 'date-time' }),
    verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'EmailDomain' },
);

export const EmailDomainList = Type.Object({ domains: Type.Array(EmailDomainView) });
