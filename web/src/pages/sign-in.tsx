/** Sign in with an API key: checked with GET /usage (a 200 confirms the key) before it is kept. */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { KEY_PATTERN, session } from '../session.js';
import type { Usage } from '../types.js';

export function SignIn() {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const notice = session.notice();
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
    </main>
  );
}
