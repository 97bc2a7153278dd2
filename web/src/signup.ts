/**
 * A sign-up in progress in this tab: the checkout's session id and its one-time claim token, kept in
 * sessionStorage (it survives the round trip to the payment provider in the same tab, and nothing else can
 * read it) until the welcome page has claimed the key; then only a mark that this checkout's key was shown.
 */
const STORAGE_KEY = 'vigil.signup';

export interface PendingSignup {
  session_id: string;
  /** Absent once the key was claimed (and shown) in this tab. */
  claim_token?: string;
}

export const pendingSignup = {
  read(): PendingSignup | undefined {
    try {
      const raw = sessionStorage.getItem(STORAGE_KEY);
      const parsed = raw ? (JSON.parse(raw) as PendingSignup) : undefined;
      return parsed && typeof parsed.session_id === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  },
  /** Before leaving for the provider's checkout; false when the tab cannot keep it (storage disabled). */
  start(sessionId: string, claimToken: string): boolean {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ session_id: sessionId, claim_token: claimToken }));
      return true;
    } catch {
      return false;
    }
  },
  /** The key was handed over: the token is of no further use and is forgotten. */
  claimed(sessionId: string): void {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ session_id: sessionId }));
    } catch {
      /* nothing kept */
    }
  },
};
