/** Usage against quotas (80 % mark), history chart, alerts; plan and billing; key rotation; notification channels. */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { LineChart } from '../chart.js';
import { Badge, ErrorBox, Loading, Meter, useLoad, when } from '../components.js';
import type { LiveSocket } from '../live.js';
import { signInWithKey } from '../key-sign-in.js';
import { session } from '../session.js';
import type { CheckoutPlan, NotificationSettingsIn, RotatedKey, Usage } from '../types.js';

export function AccountPage({ live, params }: { live: LiveSocket; params: URLSearchParams }) {
  const usage = useLoad((signal) => api('get', '/usage', { signal }), []);
  useEffect(() => live.on(() => usage.reload()), [live, usage.reload]);
  const upgrade = params.get('upgrade');
  const checkout = params.get('checkout');
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Usage &amp; billing</h1>
      {checkout === 'success' && (
        <p class="notice ok" role="status">
          Payment received. The plan changes as soon as the payment provider confirms it (usually within a minute).
        </p>
      )}
      {checkout === 'cancel' && <p class="notice">Checkout cancelled: nothing was charged.</p>}
      {upgrade && <p class="notice warn">That feature needs the {upgrade} plan or above.</p>}
      {usage.error && <ErrorBox error={usage.error} />}
      {!usage.data && !usage.error && <Loading what="Loading usage" />}
      {usage.data && <UsageCard usage={usage.data} />}
      <HistoryCard />
      <AlertsCard />
      <BillingCard plan={usage.data?.plan} suggested={upgrade ?? undefined} />
      {/* Key rotation, checkout and notification channels are the admin's (the server answers 403 to other roles). */}
      {session.can('administer') && <KeyCard />}
      <NotificationsCard />
    </section>
  );
}

function UsageCard({ usage }: { usage: Usage }) {
  return (
    <section class="card" aria-labelledby="usage-title">
      <h2 id="usage-title">
        This period <Badge kind="queued">{usage.plan}</Badge>
      </h2>
      <Meter label="Functional scans" used={usage.scans_used} limit={usage.scans_limit} />
      <Meter label="Security scans" used={usage.security_scan_count} limit={usage.monthly_security_scan_quota} />
      <Meter label="API specifications" used={usage.api_specifications_used} limit={usage.api_specifications_limit} />
      {usage.approaching_limit && (
        <p class="notice warn" role="status">
          A quota is more than 80 % used.
        </p>
      )}
      <p class="muted small">
        Period {when(usage.period_start)} – {when(usage.period_end)}; quotas reset {when(usage.quota_reset_date)}.
      </p>
    </section>
  );
}

function HistoryCard() {
  const history = useLoad((signal) => api('get', '/usage/history', { query: { per_page: 12 }, signal }), []);
  if (history.error) return <ErrorBox error={history.error} />;
  if (!history.data) return null;
  const periods = [...history.data.periods].reverse();
  return (
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <LineChart
        title="Scans per period"
        xName="Period"
        x={periods.map((_, i) => i)}
        xLabels={periods.map((p) => p.period_start.slice(0, 7))}
        series={[
          { label: 'Functional', values: periods.map((p) => p.functional_scans_used), color: '#2563eb' },
          { label: 'Security', values: periods.map((p) => p.security_scans_used), color: '#b45309' },
          { label: 'New API specifications', values: periods.map((p) => p.api_specifications_used), color: '#15803d' },
        ]}
      />
    </section>
  );
}

function AlertsCard() {
  const alerts = useLoad((signal) => api('get', '/usage/alerts', { query: { per_page: 10 }, signal }), []);
  if (alerts.error) return <ErrorBox error={alerts.error} />;
  if (!alerts.data) return null;
  return (
    <section class="card" aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      {alerts.data.alerts.length === 0 ? (
        <p class="empty">No alerts.</p>
      ) : (
        <ul>
          {alerts.data.alerts.map((a) => (
            <li key={a.alert_id}>
              <Badge kind={a.type === 'quota_exceeded' ? 'failed' : a.type === 'approaching_limit' ? 'medium' : 'completed'}>{a.type}</Badge> {a.message}{' '}
              <span class="muted small">{when(a.triggered_at)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function BillingCard({ plan, suggested }: { plan?: string; suggested?: string }) {
  const status = useLoad((signal) => api('get', '/billing/status', { signal }), []);
  const [error, setError] = useState<ApiFailure | undefined>();
  const [chosen, setChosen] = useState<string | undefined>(suggested && suggested !== 'free' ? suggested : undefined);
  // Default: the next plan up from the current one.
  const target = chosen ?? UPGRADES.find((p) => UPGRADES.indexOf(p) > UPGRADES.indexOf(plan ?? 'free')) ?? 'enterprise';
  const here = `${window.location.origin}/app/billing`;
  const go = async (action: () => Promise<string>) => {
    setError(undefined);
    try {
      window.location.assign(await action());
    } catch (e) {
      setError(e as ApiFailure);
    }
  };
  const notConfigured = status.error?.status === 503;
  return (
    <section class="card" aria-labelledby="billing-title">
      <h2 id="billing-title">Plan and billing</h2>
      {notConfigured && (
        <p class="notice" role="status">
          Billing is not configured on this server ({status.error!.code}): it is a self-hosted server without a payment provider. Plans are set by the operator.
        </p>
      )}
      {status.error && !notConfigured && <ErrorBox error={status.error} />}
      {status.data && (
        <dl class="facts">
          <div>
            <dt>Plan</dt>
            <dd>{status.data.plan}</dd>
          </div>
          <div>
            <dt>Subscription</dt>
            <dd>
              <Badge kind={status.data.subscription_status === 'active' || status.data.subscription_status === 'trialing' ? 'completed' : 'failed'}>
                {status.data.subscription_status}
              </Badge>
              {status.data.cancel_at_period_end && ' (ends at the period end)'}
            </dd>
          </div>
          <div>
            <dt>Current period ends</dt>
            <dd>{when(status.data.current_period_end)}</dd>
          </div>
        </dl>
      )}
      {!notConfigured && session.can('administer') && (
        <div class="filters">
          <label>
            Plan
            <select value={target} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
              {UPGRADES.map((p) => (
                <option key={p} value={p} disabled={p === plan}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            onClick={() =>
              void go(
                async () =>
                  (
                    await api('post', '/billing/checkout', {
                      json: {
                        plan: target as CheckoutPlan /* ?upgrade= may name any text: the server answers 422 */,
                        success_url: `${here}?checkout=success`,
                        cancel_url: `${here}?checkout=cancel`,
                      },
                    })
                  ).checkout_url,
              )
            }
          >
            Upgrade (checkout)
          </button>
          <button type="button" onClick={() => void go(async () => (await api('post', '/billing/portal', { json: { return_url: here } })).portal_url)}>
            Manage billing (portal)
          </button>
        </div>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

function KeyCard() {
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<RotatedKey | undefined>();
  const [error, setError] = useState<ApiFailure | undefined>();
  const rotate = async () => {
    setError(undefined);
    try {
      const result = await api('post', '/keys/rotate');
      setRotated(result);
      setConfirming(false);
      // The rotation ended every key sign-in session of the tenant (this tab's too, if it signed in with the
      // old key): a tab signed in with a key carries on with a session of the new one.
      if (session.cookie()?.method === 'key') await signInWithKey(result.api_key);
    } catch (e) {
      setError(e as ApiFailure);
    }
  };
  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">API key</h2>
      {rotated ? (
        <div class="notice ok" role="status">
          <p>
            New key for {rotated.tenant_id}, shown only this once. The old key no longer works, nor do dashboard sessions opened with it; this tab stays signed
            in.
          </p>
          <p>
            <code class="key" data-testid="new-key">
              {rotated.api_key}
            </code>{' '}
            <button type="button" class="small" onClick={() => void navigator.clipboard?.writeText(rotated.api_key)}>
              Copy
            </button>
          </p>
          <button type="button" class="small" onClick={() => setRotated(undefined)}>
            I have saved it
          </button>
        </div>
      ) : confirming ? (
        <div class="notice warn">
          <p>Rotating stops the current key at once, everywhere it is used (CI, scripts). Continue?</p>
          <button type="button" onClick={() => void rotate()}>
            Rotate now
          </button>{' '}
          <button type="button" class="link" onClick={() => setConfirming(false)}>
            Keep the current key
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Rotate the API key…
        </button>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}

const UPGRADES = ['pro', 'team', 'enterprise'];

const EVENTS = ['scan_complete', 'scan_failed', 'finding_critical', 'finding_high', 'compliance_report_ready'];

function NotificationsCard() {
  const settings = useLoad((signal) => api('get', '/notifications', { signal }), []);
  const [error, setError] = useState<ApiFailure | undefined>();
  const [saved, setSaved] = useState(false);
  if (settings.error?.status === 402) {
    return (
      <section class="card" aria-labelledby="notify-title">
        <h2 id="notify-title">Notifications</h2>
        <p class="notice">Notification channels are part of the team plan and above.</p>
      </section>
    );
  }
  if (settings.error) return <ErrorBox error={settings.error} />;
  if (!settings.data) return null;
  const add = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    const form = new FormData(event.target as HTMLFormElement);
    const events = EVENTS.filter((e) => form.get(`event_${e}`) === 'on');
    // PUT replaces the whole list, and the API never sends channel URLs or secrets back (they are secrets):
    // the form sets one channel; more channels, headers and secrets go through the API or the CLI.
    const body: NotificationSettingsIn = {
      enabled: true,
      channels: [
        {
          kind: String(form.get('kind')) as 'slack' | 'teams' | 'webhook',
          url: String(form.get('url')),
          ...(events.length ? { events: events as never } : {}),
        },
      ],
    };
    try {
      settings.set(await api('put', '/notifications', { json: body }));
      setSaved(true);
    } catch (e) {
      setError(e as ApiFailure);
    }
  };
  return (
    <section class="card" aria-labelledby="notify-title">
      <h2 id="notify-title">Notifications</h2>
      {settings.data.channels.length === 0 ? (
        <p class="empty">No channels.</p>
      ) : (
        <ul>
          {settings.data.channels.map((c, i) => (
            <li key={i}>
              <strong>{c.kind}</strong> {c.url} <span class="muted small">{c.events ? c.events.join(', ') : 'all events'}</span>
            </li>
          ))}
        </ul>
      )}
      {session.can('administer') && (
        <form onSubmit={(e) => void add(e)} class="scan-form">
          <fieldset>
            <legend>Set the channel (replaces the list)</legend>
            <div class="grid">
              <label>
                Kind
                <select name="kind">
                  <option value="slack">slack</option>
                  <option value="teams">teams</option>
                  <option value="webhook">webhook</option>
                </select>
              </label>
              <label>
                Webhook URL
                <input name="url" type="url" required />
              </label>
            </div>
            <fieldset class="inline">
              <legend>Events (none ticked: all)</legend>
              {EVENTS.map((e) => (
                <label class="check" key={e}>
                  <input type="checkbox" name={`event_${e}`} /> {e}
                </label>
              ))}
            </fieldset>
            <button type="submit">Save channel</button>
          </fieldset>
        </form>
      )}
      {saved && (
        <p class="notice ok" role="status">
          Saved.
        </p>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}
