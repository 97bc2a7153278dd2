/**
 * Single sign-on (admin): the identity provider set up for the tenant and the values to give it. Setting
 * it up or changing it is done through PUT /sso/config (docs/sso.md); this page shows what is in force.
 */
import { api } from '../api.js';
import { ErrorBox, Loading, useLoad, when } from '../components.js';

export function SsoPage() {
  const config = useLoad((signal) => api('get', '/sso/config', { signal }), []);
  const c = config.data;
  return (
    <section aria-labelledby="sso-page-title">
      <h1 id="sso-page-title">Single sign-on</h1>
      {config.error?.status === 404 ? (
        <p class="empty">Single sign-on is not set up. An admin sets it up with PUT /api/v1/sso/config (see the SSO guide).</p>
      ) : (
        config.error && <ErrorBox error={config.error} what="The SSO configuration" />
      )}
      {config.loading && !c && <Loading what="Loading the SSO configuration" />}
      {c && (
        <dl class="facts">
          <dt>Protocol</dt>
          <dd>{c.protocol === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'}</dd>
          {c.oidc && (
            <>
              <dt>Issuer</dt>
              <dd>{c.oidc.issuer}</dd>
              <dt>Client id</dt>
              <dd>{c.oidc.client_id}</dd>
            </>
          )}
          <dt>Email domains</dt>
          <dd>{c.email_domains.join(', ') || '(none)'}</dd>
          <dt>Roles</dt>
          <dd>
            {c.group_claim ? `from the "${c.group_claim}" claim: ${Object.entries(c.role_mapping).map(([group, role]) => `${group} → ${role}`).join(', ') || '(no mapping)'}; ` : ''}
            default {c.default_role}
          </dd>
          <dt>SSO required</dt>
          <dd>{c.sso_required ? 'yes: dashboard sign-in with a key is refused' : 'no'}</dd>
          <dt>Sign-in address</dt>
          <dd>
            <code>{c.service_provider.sign_in_url}</code>
          </dd>
          <dt>{c.protocol === 'oidc' ? 'Redirect URI' : 'ACS URL and entity id'}</dt>
          <dd>
            <code>{c.protocol === 'oidc' ? c.service_provider.oidc_redirect_uri : `${c.service_provider.saml_acs_url} · ${c.service_provider.saml_entity_id}`}</code>
          </dd>
          <dt>Updated</dt>
          <dd>{when(c.updated_at)}</dd>
        </dl>
      )}
    </section>
  );
}
