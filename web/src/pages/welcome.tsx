/**
 * Where the payment provider sends a new customer back (`/app/welcome?session_id=...`): the page claims the
 * new tenant's key with the claim token this tab kept (POST /billing/checkout-sessions/{id}/claim), waiting
 * while the provider's webhook is on its way, and shows the key once. The key stays in this page's memory
 * until "Sign in with this key" hands it to POST /session/key (a cookie session); it is never put in the
 * address or any storage.
 * The shell draws the page's frame (main) before this chunk arrives.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { href, navigate } from '../router.js';
import { signInWithKey } from '../key-sign-in.js';
import { pendingSignup } from '../signup.js';
import type { IssuedKey } from '../types.js';

/** Tries while the checkout is not completed on the server (404): about a minute and a half in all. */
const MAX_TRIES = 20;
const delay = (attempt: number) => Math.min(5000, 1000 * attempt);

type State = { kind: 'waiting'; attempt: number } | { kind: 'gave-up' } | { kind: 'shown'; key: IssuedKey } | { kind: 'problem'; title: string; text: string };

function problem(title: string, text: string): State {
  return { kind: 'problem', title, text };
}

/** What the page says before (or instead of) claiming, from the address and what this tab kept. */
function initial(sessionId: string | null): State {
  if (!sessionId) return problem('No checkout to finish', 'This address names no checkout. Start from the sign-in page to choose a plan.');
  const pending = pendingSignup.read();
  if (pending?.session_id === sessionId && !pending.claim_token) {
    return problem(
      'Your key was already shown',
      "This checkout's API key was shown in this tab before and is not shown again. If it was lost, sign in with it elsewhere or rotate it from Account (Usage & billing).",
    );
  }
  if (pending?.session_id !== sessionId) {
    return problem(
      'This browser tab did not start this checkout',
      'The key of a new account is shown only in the browser tab that chose the plan (it keeps a one-time claim token for it). Open this address in that tab, or ask support to issue the key.',
    );
  }
  return { kind: 'waiting', attempt: 1 };
}

export function WelcomePage({ sessionId }: { sessionId: string | null }) {
  const [state, setState] = useState<State>(() => initial(sessionId));
  const [round, setRound] = useState(0);
  const [signInError, setSignInError] = useState<string | undefined>();
  const [copied, setCopied] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  document.title = 'Welcome · Vigil';

  useEffect(() => {
    const pending = pendingSignup.read();
    if (!sessionId || pending?.session_id !== sessionId || !pending.claim_token) return;
    const token = pending.claim_token;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async (n: number): Promise<void> => {
      setState({ kind: 'waiting', attempt: n });
      try {
        const key = await api('post', '/billing/checkout-sessions/{session_id}/claim', {
          path: { session_id: sessionId },
          json: { claim_token: token },
          key: '',
        });
        if (stopped) return;
        pendingSignup.claimed(sessionId);
        setState({ kind: 'shown', key });
      } catch (error) {
        if (stopped) return;
        const f = error as ApiFailure;
        if (f.status === 404 || f.status === 0) {
          if (n >= MAX_TRIES) setState({ kind: 'gave-up' });
          else timer = setTimeout(() => void attempt(n + 1), delay(n));
          return;
        }
        if (f.status === 410) {
          pendingSignup.claimed(sessionId);
          setState(
            problem(
              'This key was already shown',
              'The key of this checkout was already handed over and is not shown again. If it was lost, rotate it from Account (Usage & billing) once signed in.',
            ),
          );
        } else if (f.status === 409) {
          pendingSignup.claimed(sessionId);
          setState(
            problem('Your existing account was upgraded', 'This payment was linked to an account you already have: its key did not change. Sign in with it.'),
          );
        } else if (f.status === 403) {
          setState(
            problem(
              'This checkout cannot be claimed here',
              'The claim token this tab kept does not match the checkout. Start again from the sign-in page, or ask support.',
            ),
          );
        } else if (f.status === 429) {
          setState(problem('Too many attempts', `${f.message}. Reload this page after that.`));
        } else {
          setState(problem('The key could not be fetched', `${f.status ? `${f.status} ${f.code}: ` : ''}${f.message}. Reload this page to try again.`));
        }
      }
    };
    void attempt(1);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [sessionId, round]);

  // A change of what the page says moves focus to its heading, so a screen reader announces it.
  useEffect(() => {
    if (state.kind !== 'waiting') heading.current?.focus();
  }, [state.kind]);

  const signIn = async (key: string) => {
    setSignInError(undefined);
    try {
      await signInWithKey(key);
      navigate('/scans', { replace: true });
    } catch (failure) {
      const f = failure as ApiFailure;
      setSignInError(`Could not sign in: ${f.status ? `${f.status} ${f.code}: ` : ''}${f.message}`);
    }
  };

  let body;
  let title: string;
  if (state.kind === 'waiting') {
    title = 'Finishing your checkout…';
    body = (
      <p role="status">
        The payment went through; waiting for the payment provider to confirm it to Vigil (try {state.attempt} of {MAX_TRIES}). This usually takes a few
        seconds.
      </p>
    );
  } else if (state.kind === 'gave-up') {
    title = 'Still waiting for the payment provider';
    body = (
      <>
        <p>The payment provider has not confirmed the checkout to Vigil yet. Nothing is lost: the key is kept for you until this tab fetches it.</p>
        <button type="button" onClick={() => setRound((r) => r + 1)}>
          Check again
        </button>
      </>
    );
  } else if (state.kind === 'shown') {
    const { key } = state;
    title = 'Your Vigil account is ready';
    body = (
      <>
        <p>
          Account <strong>{key.tenant_id}</strong>, plan <strong>{key.plan}</strong>. Your API key:
        </p>
        <p>
          <code class="key" data-testid="new-key">
            {key.api_key}
          </code>{' '}
          <button
            type="button"
            class="small"
            onClick={() => {
              void navigator.clipboard?.writeText(key.api_key).then(() => setCopied(true));
            }}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        </p>
        <p class="notice warn">
          <strong>Save it now: it will not be shown again.</strong> Vigil keeps only a hash of it. If it is lost, rotate it from Account (Usage & billing) while
          signed in.
        </p>
        {signInError && (
          <p class="notice error" role="alert">
            {signInError}
          </p>
        )}
        <p>
          <button type="button" onClick={() => void signIn(key.api_key)}>
            Sign in with this key
          </button>
        </p>
      </>
    );
  } else {
    title = state.title;
    body = (
      <>
        <p>{state.text}</p>
        <p>
          <a href={href('/')}>Go to the sign-in page</a>
        </p>
      </>
    );
  }

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {body}
    </>
  );
}
