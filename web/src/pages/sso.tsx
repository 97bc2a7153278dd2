/**
 * Single sign-on (admin): the identity provider set up for the tenant, the values to give it, the email
 * domains with the DNS record that proves each (GET /sso/domains, verified here), and the form that sets it
 * up or changes it (PUT /sso/config) or turns it off (DELETE /sso/config); docs/sso.md.
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { Badge, ErrorBox, Loading, useLoad, when } from '../components.js';
import type { EmailDomain, SsoConfig, SsoConfigIn } from '../types.js';

type Role = NonNullable<SsoConfigIn['default_role']>;
const ROLES: Role[] = ['viewer', 'member', 'admin'];

/** "group = role" lines into the role mapping; an unknown role or a line without "=" is named. */
function parseMapping(text: string): { mapping: Record<string, Role> } | { error: string } {
  const mapping: Record<string, Role> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.lastIndexOf('=');
    const group = line.slice(0, at).trim();
    const role = line.slice(at + 1).trim() as Role;
    if (at < 0 || !group || !ROLES.includes(role)) return { error: `"${line}" is not "group = role" with a role of ${ROLES.join(', ')}` };
    mapping[group] = role;
  }
  return { mapping };
}

export function SsoPage() {
  const config = useLoad((signal) => api('get', '/sso/config', { signal }), []);
  const [notice, setNotice] = useState<string | undefined>();
  const c = config.data;
  const notSetUp = config.error?.status === 404;
  return (
    <section aria-labelledby="sso-page-title">
      <h1 id="sso-page-title">Single sign-on</h1>
      {notSetUp && (
        <p class="empty">Single sign-on is not set up yet: fill in the form below (see the SSO guide for the values of common identity providers).</p>
      )}
      {config.error && !notSetUp && <ErrorBox error={config.error} what="The SSO configuration" />}
      {config.loading && !c && !config.error && <Loading what="Loading the SSO configuration" />}
      {c && <InForce c={c} />}
      {c && c.email_domains.length > 0 && <DomainProofs key={c.updated_at} />}
      {notice && (
        <p class="notice ok" role="status">
          {notice}
        </p>
      )}
      {(c || notSetUp) && (
        <SsoForm
          key={c?.updated_at ?? 'new'}
          current={c}
          onChange={(what) => {
            setNotice(what);
            config.reload();
          }}
        />
      )}
    </section>
  );
}

function InForce({ c }: { c: SsoConfig }) {
  const facts: Array<[string, preact.ComponentChildren]> = [
    ['Protocol', c.protocol === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'],
    ...(c.oidc
      ? ([
          ['Issuer', c.oidc.issuer],
          ['Client id', c.oidc.client_id],
        ] as Array<[string, preact.ComponentChildren]>)
      : []),
    ['Email domains', c.email_domains.join(', ') || '(none)'],
    [
      'Roles',
      `${
        c.group_claim
          ? `from the "${c.group_claim}" claim: ${
              Object.entries(c.role_mapping)
                .map(([group, role]) => `${group} → ${role}`)
                .join(', ') || '(no mapping)'
            }; `
          : ''
      }default ${c.default_role}`,
    ],
    ['SSO required', c.sso_required ? 'yes: dashboard sign-in with a key is refused' : 'no'],
    ['Sign-in address', <code>{c.service_provider.sign_in_url}</code>],
    [
      c.protocol === 'oidc' ? 'Redirect URI' : 'ACS URL and entity id',
      <code>{c.protocol === 'oidc' ? c.service_provider.oidc_redirect_uri : `${c.service_provider.saml_acs_url} · ${c.service_provider.saml_entity_id}`}</code>,
    ],
    ['Updated', when(c.updated_at)],
  ];
  return (
    <dl class="facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The claimed email domains: for each, the TXT record to publish and a Verify button (POST
 * /sso/domains/{domain}/verify). Only verified domains route sign-in by email.
 */
function DomainProofs() {
  const list = useLoad((signal) => api('get', '/sso/domains', { signal }), []);
  const [outcome, setOutcome] = useState<{ domain: string; error?: ApiFailure } | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const verify = async (domain: string) => {
    setBusy(domain);
    setOutcome(undefined);
    try {
      await api('post', '/sso/domains/{domain}/verify', { path: { domain } });
      setOutcome({ domain });
      list.reload();
    } catch (err) {
      setOutcome({ domain, error: err as ApiFailure });
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">Email domains</h2>
      <p>People sign in with their work email once its domain is verified: publish the TXT record below in the domain's DNS, then verify it here.</p>
      {list.error && <ErrorBox error={list.error} what="The email domains" />}
      {list.loading && !list.data && <Loading what="Loading the email domains" />}
      {list.data && (
        <table class="list">
          <thead>
            <tr>
              <th>Domain</th>
              <th>Status</th>
              <th>TXT record name</th>
              <th>TXT record value</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.domains.map((d: EmailDomain) => (
              <tr key={d.domain}>
                <td>{d.domain}</td>
                <td>{d.status === 'verified' ? <Badge kind="good">verified {when(d.verified_at)}</Badge> : <Badge kind="queued">pending</Badge>}</td>
                <td>
                  <code>{d.txt_record.name}</code>
                </td>
                <td>
                  <code>{d.txt_record.value}</code>
                </td>
                <td>
                  {d.status === 'pending' && (
                    <button type="button" disabled={busy !== undefined} onClick={() => void verify(d.domain)} aria-label={`Verify ${d.domain}`}>
                      Verify
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {outcome?.error && <ErrorBox error={outcome.error} what={`Verifying ${outcome.domain}`} />}
      {outcome && !outcome.error && (
        <p class="notice ok" role="status">
          {outcome.domain} is verified: its addresses now sign in to this tenant.
        </p>
      )}
    </section>
  );
}

/** The configuration as a form: the whole configuration is sent (PUT replaces it); a blank client secret keeps the saved one. */
function SsoForm({ current, onChange }: { current: SsoConfig | undefined; onChange: (what: string) => void }) {
  const [protocol, setProtocol] = useState<'oidc' | 'saml'>(current?.protocol === 'saml' ? 'saml' : 'oidc');
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirmOff, setConfirmOff] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const form = new FormData(event.target as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const mapped = parseMapping(text('role_mapping'));
    if ('error' in mapped) {
      setError(new ApiFailure(422, 'VALIDATION_ERROR', `Role mapping: ${mapped.error}`));
      return;
    }
    const secret = text('client_secret');
    const body: SsoConfigIn = {
      protocol,
      ...(protocol === 'oidc'
        ? { oidc: { issuer: text('issuer'), client_id: text('client_id'), ...(secret ? { client_secret: secret } : {}) } }
        : { saml: { metadata_xml: text('metadata_xml') } }),
      group_claim: text('group_claim') || null,
      role_mapping: mapped.mapping,
      default_role: text('default_role') as Role,
      email_domains: text('email_domains')
        .split(/[\s,]+/)
        .filter(Boolean),
      sso_required: form.get('sso_required') === 'on',
    };
    setBusy(true);
    try {
      await api('put', '/sso/config', { json: body });
      onChange('Saved: the configuration is in force for the next sign-in.');
    } catch (failure) {
      setError(failure as ApiFailure);
    } finally {
      setBusy(false);
    }
  };

  const turnOff = async () => {
    setError(undefined);
    setBusy(true);
    try {
      await api('delete', '/sso/config');
      setConfirmOff(false);
      onChange('Single sign-on is off: no one can sign in through the identity provider. Members and their sessions stay until removed.');
    } catch (failure) {
      setError(failure as ApiFailure);
    } finally {
      setBusy(false);
    }
  };

  const callback = `${window.location.origin}/api/v1/sso/oidc/callback`;
  return (
    <form class="scan-form" onSubmit={(e) => void submit(e)} aria-labelledby="sso-form-title">
      <h2 id="sso-form-title">{current ? 'Change the configuration' : 'Set up single sign-on'}</h2>
      <fieldset class="inline">
        <legend>Protocol</legend>
        <label class="check">
          <input type="radio" name="protocol" value="oidc" checked={protocol === 'oidc'} onChange={() => setProtocol('oidc')} /> OpenID Connect
        </label>
        <label class="check">
          <input type="radio" name="protocol" value="saml" checked={protocol === 'saml'} onChange={() => setProtocol('saml')} /> SAML 2.0
        </label>
      </fieldset>
      {protocol === 'oidc' ? (
        <fieldset>
          <legend>OpenID provider</legend>
          <p class="muted small">
            Register <code>{callback}</code> as the redirect URI at the provider.
          </p>
          <div class="grid">
            <label>
              Issuer
              <input name="issuer" type="url" required defaultValue={current?.oidc?.issuer ?? ''} placeholder="https://login.example.com" />
            </label>
            <label>
              Client id
              <input name="client_id" required defaultValue={current?.oidc?.client_id ?? ''} />
            </label>
            <label>
              Client secret
              <input
                name="client_secret"
                type="password"
                autoComplete="off"
                required={!current?.oidc?.client_secret_set}
                placeholder={current?.oidc?.client_secret_set ? 'saved (leave blank to keep it)' : ''}
              />
            </label>
          </div>
        </fieldset>
      ) : (
        <fieldset>
          <legend>SAML identity provider</legend>
          <label>
            IdP metadata XML
            <textarea name="metadata_xml" rows={6} required defaultValue={current?.saml?.metadata_xml ?? ''} />
          </label>
        </fieldset>
      )}
      <fieldset>
        <legend>Members</legend>
        <div class="grid">
          <label>
            Group claim or attribute
            <input name="group_claim" defaultValue={current?.group_claim ?? ''} placeholder="groups" />
          </label>
          <label>
            Default role
            <select name="default_role" defaultValue={current?.default_role ?? 'viewer'}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Email domains (comma-separated)
            <input name="email_domains" defaultValue={current?.email_domains.join(', ') ?? ''} placeholder="example.com" />
          </label>
        </div>
        <label>
          Role mapping (one "group = role" a line)
          <textarea
            name="role_mapping"
            rows={3}
            defaultValue={Object.entries(current?.role_mapping ?? {})
              .map(([group, role]) => `${group} = ${role}`)
              .join('\n')}
          />
        </label>
        <label class="check">
          <input type="checkbox" name="sso_required" defaultChecked={current?.sso_required ?? false} /> SSO required (refuse dashboard sign-in with a key; API
          keys keep working for the API)
        </label>
      </fieldset>
      {error && <ErrorBox error={error} />}
      <button type="submit" disabled={busy}>
        {current ? 'Save the configuration' : 'Set up single sign-on'}
      </button>
      {current && ' '}
      {current &&
        (confirmOff ? (
          <span class="notice warn">
            No one will be able to sign in through the identity provider.{' '}
            <button type="button" disabled={busy} onClick={() => void turnOff()}>
              Turn off now
            </button>{' '}
            <button type="button" class="link" onClick={() => setConfirmOff(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" class="link" onClick={() => setConfirmOff(true)}>
            Turn single sign-on off…
          </button>
        ))}
    </form>
  );
}
