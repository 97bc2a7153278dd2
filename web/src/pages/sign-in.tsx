/**
 * Sign in with an API key: checked with GET /usage (a 200 confirms the key) before it is kept. Where the
 * server sells plans (GET /billing/signup), a new customer chooses one and goes to the provider's checkout.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { useLocation } from '../router.js';
import { KEY_PATTERN, session } from '../session.js';
import { pendingSignup } from '../signup.js';
import type { Signup, SignupOptions, Usage } from '../types.js';

export function SignIn() {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const notice = session.notice();
  const cancelled = useLocation().params.get('signup') === 'cancelled';
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
      await api<Usage>('/usage', { key: value });
      setKey('');
      session.signIn(value, remember);
    } catch (failure) {
      const f = failure as ApiFailure;
      setError(f.status === 401 ? 'This key was refused: it is unknown, mistyped or has been rotated.' : `Could not sign in: ${f.message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin">
      <h1>Vigil</h1>
      <p>Sign in with your API key. A self-hosted server prints the key of its first tenant when it starts for the first time.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
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
          The key stays in this tab's memory; nothing is stored unless you tick the box below.
        </p>
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember((e.target as HTMLInputElement).checked)} /> Remember for this tab (kept in
          session storage until the tab closes)
        </label>
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

/** "New to Vigil? Choose a plan": shown only where the server sells plans (nothing is shown otherwise). */
function NewCustomer() {
  const [options, setOptions] = useState<SignupOptions | undefined>();
  const [plan, setPlan] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<SignupOptions>('/billing/signup').then(setOptions, () => setOptions(undefined));
  }, []);
  if (!options?.available) return null;
  const chosen = plan ?? options.plans[0];

  const start = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const started = await api<Signup>('/billing/signup', { json: { plan: chosen } });
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
