/**
 * Who the dashboard is signed in as, one of two ways:
 * - an API key, kept in memory only; in sessionStorage (this tab, gone when it closes) only when the user
 *   ticks "remember for this tab". Never in a URL, a cookie or localStorage.
 * - a cookie session (single sign-on, docs/sso.md): the browser holds the HttpOnly cookie; the page keeps
 *   only what GET /session answered (role, member, CSRF token), in memory, and nothing in storage.
 */
import { roleAllows, type Permission } from '../../src/domain/access.js';

const STORAGE_KEY = 'vigil.key';

type Listener = () => void;

/** The cookie session as GET /session describes it. */
export interface CookieSession {
  tenantId: string;
  role: 'admin' | 'member' | 'viewer';
  method: string;
  email: string | null;
  name: string | null;
  csrfToken: string;
}

let current: string | undefined = readStored();
let cookieSession: CookieSession | undefined;
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
  cookie: (): CookieSession | undefined => cookieSession,
  /** Signed in one way or the other. */
  active: (): boolean => current !== undefined || cookieSession !== undefined,
  /** The role the UI draws for: a key acts as admin (docs/sso.md). */
  role: (): CookieSession['role'] => cookieSession?.role ?? 'admin',
  /**
   * Whether the role may do what a write needs (the server's rule, domain/access.ts): `operate` (scans,
   * baselines, suppressions) or `administer` (keys, billing, members, SSO, notifications). A control the
   * role cannot use is not drawn at all; the server answers 403 anyway.
   */
  can: (permission: Permission): boolean => roleAllows(cookieSession?.role ?? 'admin', permission),
  /** After the IdP round trip (or a reload): the cookie's session, found by GET /session. */
  useCookie(found: CookieSession): void {
    cookieSession = found;
    notice = undefined;
    emit();
  },
  signIn(key: string, remember: boolean): void {
    current = key;
    cookieSession = undefined;
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
    // Signed in by single sign-on the tab holds no key: a rotated key is shown, never kept.
    if (current === undefined) return;
    const remembered = readStored() !== undefined;
    current = key;
    if (remembered) sessionStorage.setItem(STORAGE_KEY, key);
    emit();
  },
  signOut(message?: string): void {
    current = undefined;
    cookieSession = undefined;
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
    else if (cookieSession) session.signOut(`Signed out: ${message}.`);
  },
  notice: (): string | undefined => notice,
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
