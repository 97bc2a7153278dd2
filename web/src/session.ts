/**
 * The signed-in API key. Kept in memory only; in sessionStorage (this tab, gone when it closes) only when
 * the user ticks "remember for this tab". Never in a URL, a cookie or localStorage.
 */
const STORAGE_KEY = 'vigil.key';

type Listener = () => void;

let current: string | undefined = readStored();
let notice: string | undefined;
const listeners = new Set<Listener>();

function readStored(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function emit(): void {
  for (const listener of listeners) listener();
}

export const KEY_PATTERN = /^svc_pk_[A-Za-z0-9_-]+$/;

export const session = {
  key: (): string | undefined => current,
  signIn(key: string, remember: boolean): void {
    current = key;
    notice = undefined;
    try {
      if (remember) sessionStorage.setItem(STORAGE_KEY, key);
      else sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      /* storage unavailable: memory only */
    }
    emit();
  },
  /** A rotation: the new key replaces the old wherever the old one was kept. */
  replace(key: string): void {
    const remembered = readStored() !== undefined;
    current = key;
    if (remembered) sessionStorage.setItem(STORAGE_KEY, key);
    emit();
  },
  signOut(message?: string): void {
    current = undefined;
    notice = message;
    try {
      sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      /* nothing kept */
    }
    emit();
  },
  /** The server refused the key (401): forget it and say why on the sign-in page. */
  expire(message: string): void {
    if (current) session.signOut(`Signed out: the server refused the key (${message}).`);
  },
  notice: (): string | undefined => notice,
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
