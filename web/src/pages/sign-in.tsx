/**
 * Sign in with the company's identity provider (single sign-on, by tenant id or work email: the server
 * finds the tenant and sends the browser to the IdP, which sends it back with a session cookie), or with an
 * API key: handed once to POST /session/key, which opens a cookie session, or refuses it (403 SSO_REQUIRED)
 * when the tenant requires single sign-on; the tab never keeps the key. Where the server sells plans
 * (GET /billing/signup), a new customer chooses one and goes to the provider's checkout.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { useLocation } from '../router.js';
import { signInWithKey } from '../key-sign-in.js';
import { KEY_PATTERN, session } from '../session.js';
import { pendingSignup } from '../signup.js';
import type { SignupOptions } from '../types.js';

/** `hidden`: drawn but not shown while the app asks whether a cookie session exists, so nothing moves when it is shown. */
export function SignIn({ hidden = false }: { hidden?: boolean } = {}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const notice = session.notice();
  const params = useLocation().params;
  const cancelled = params.get('signup') === 'cancelled';
  const refused = params.get('sso_error');
  document.title = 'Sign in · Vigil';

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = key.trim();
    setError(undefined);
    if (!KEY_PATTERN.test(value)) {
      setError('That is not an API key: Vigil keys start with svc_pk_ followed by letters and digits.');
      return;
    }
    setBusy(true);
    try {
      await signInWithKey(value);
      setKey('');
    } catch (failure) {
      setError(keyRefusal(failure as ApiFailure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin" style={hidden ? { visibility: 'hidden' } : undefined} aria-busy={hidden ? 'true' : undefined}>
      <h1>Vigil</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {refused && (
        <div class="notice error" role="alert" data-testid="sso-error">
          <p>{ssoRefusal(refused)}</p>
          <p class="muted small">Code: {refused}</p>
        </div>
      )}
      <SingleSignOn />
      <h2>Sign in with an API key</h2>
      <p>A self-hosted server prints the key of its first tenant when it starts for the first time.</p>
      {cancelled && (
        <p class="notice" role="status">
          Checkout cancelled: nothing was charged and no account was created. Choose a plan below to try again.
        </p>
      )}
      <form onSubmit={submit} novalidate>
        <label for="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          placeholder="svc_pk_…"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'key-error' : 'key-help'}
          required
        />
        <p id="key-help" class="muted small">
          The server checks the key once and opens a session: an HttpOnly cookie, kept across reloads until you sign out or it expires. The page keeps nothing.
        </p>
        {error && (
          <p id="key-error" class="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      <NewCustomer />
    </main>
  );
}

/** Why a key sign-in was refused, in plain words (the server's answer to POST /session/key). */
export function keyRefusal(failure: ApiFailure): string {
  if (failure.status === 401) return 'This key was refused: it is unknown, mistyped or has been rotated.';
  if (failure.code === 'SSO_REQUIRED')
    return 'This company requires single sign-on for the dashboard: use "Sign in with your company (SSO)" above. The key keeps working for the API and CI.';
  return `Could not sign in: ${failure.message}`;
}

/**
 * Why the server sent the browser back from a single sign-on (GET /sso/login, the OIDC callback, the SAML
 * ACS answer a refused browser navigation with /app/sign-in?sso_error=<code>), in plain words.
 */
export function ssoRefusal(code: string): string {
  switch (code) {
    case 'SSO_STATE_MISMATCH':
      return 'The sign-in could not be finished: it was started in another browser or tab, took more than 10 minutes, or was already used. Start it again from this page.';
    case 'SSO_SIGN_IN_REFUSED':
      return "Your identity provider's answer was refused: it was not signed as expected, was meant for another service, had expired, or the identity provider itself refused you. Try again; if it keeps happening, ask your administrator to check the single sign-on set-up.";
    case 'SSO_NOT_CONFIGURED':
      return 'Single sign-on is not set up for this company or email domain (or it was turned off). Ask your administrator, or sign in with an API key below.';
    case 'FEATURE_NOT_AVAILABLE':
      return "Single sign-on is part of the enterprise plan, and this company's account is not on it.";
    case 'NOT_FOUND':
      return 'That company is unknown to this server, or its account is no longer active.';
    default:
      return 'The single sign-on did not succeed. Start it again from this page; if it keeps failing, ask your administrator.';
  }
}

/** The page the person asked for before signing in, to land on after the IdP (only a dashboard path). */
function returnPath(): string {
  const path = window.location.pathname;
  // Not the sign-in page itself (where a refused sign-in lands): its error would greet a successful one.
  return path.startsWith('/app/') && path !== '/app/' && path !== '/app/sign-in' ? path + window.location.search : '/app/scans';
}

/** "Sign in with your company (SSO)": a work email (its domain finds the tenant) or the tenant id. */
function SingleSignOn() {
  const [who, setWho] = useState('');
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);

  const start = async (event: Event) => {
    event.preventDefault();
    const value = who.trim();
    setError(undefined);
    if (!value) {
      setError(new ApiFailure(422, 'VALIDATION_ERROR', "Give your work email or your company's tenant id."));
      return;
    }
    setBusy(true);
    try {
      const query = value.includes('@') ? { email: value, return_to: returnPath() } : { tenant: value, return_to: returnPath() };
      const started = await api('get', '/sso/login', { query, key: '', accept: 'application/json' });
      window.location.assign(started.authorization_url);
    } catch (failure) {
      setError(failure as ApiFailure);
      setBusy(false);
    }
  };

  return (
    <section class="sso" aria-labelledby="sso-title">
      <h2 id="sso-title">Sign in with your company (SSO)</h2>
      <form onSubmit={start} novalidate>
        <label for="sso-who">Work email or tenant id</label>
        <input
          id="sso-who"
          name="sso"
          type="text"
          autoComplete="email"
          spellcheck={false}
          placeholder="you@company.com"
          value={who}
          onInput={(e) => setWho((e.target as HTMLInputElement).value)}
          aria-invalid={error ? true : undefined}
          aria-describedby="sso-help"
        />
        <p id="sso-help" class="muted small">
          You go to your identity provider and come back signed in. Nothing is kept in this tab: the session is an HttpOnly cookie.
        </p>
        {error && (
          <p class="notice error" role="alert">
            {error.status === 404
              ? 'Single sign-on is not set up for this company or email domain.'
              : error.status === 402
                ? 'Single sign-on is part of the enterprise plan.'
                : `${error.status} ${error.code}: ${error.message}`}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Going to your identity provider…' : 'Sign in with your company (SSO)'}
        </button>
      </form>
    </section>
  );
}

/** "New to Vigil? Choose a plan": shown only where the server sells plans (nothing is shown otherwise). */
function NewCustomer() {
  const [options, setOptions] = useState<SignupOptions | undefined>();
  const [plan, setPlan] = useState<SignupOptions['plans'][number] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api('get', '/billing/signup').then(setOptions, () => setOptions(undefined));
  }, []);
  if (!options?.available) return null;
  const chosen = plan ?? options.plans[0];

  const start = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const started = await api('post', '/billing/signup', { json: { plan: chosen } });
      if (!pendingSignup.start(started.session_id, started.claim_token)) {
        setError('This browser does not let the page keep data for the tab (session storage), which the sign-up needs to show your key afterwards.');
        return;
      }
      window.location.assign(started.checkout_url);
    } catch (failure) {
      const f = failure as ApiFailure;
      setError(f.status === 429 ? `Too many sign-ups from this address: ${f.message}` : `The checkout could not be started: ${f.message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="signup" aria-labelledby="signup-title">
      <h2 id="signup-title">New to Vigil? Choose a plan</h2>
      <p>Pay on the payment provider's page; you come back here and your API key is shown once.</p>
      <form onSubmit={start}>
        <fieldset class="inline">
          <legend>Plan</legend>
          {options.plans.map((p) => (
            <label class="check" key={p}>
              <input type="radio" name="plan" value={p} checked={p === chosen} onChange={() => setPlan(p)} /> {p[0]!.toUpperCase() + p.slice(1)}
            </label>
          ))}
        </fieldset>
        {error && (
          <p class="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Starting the checkout…' : 'Continue to checkout'}
        </button>
      </form>
    </section>
  );
}
