/**
 * Who the dashboard is signed in as: always a cookie session the server opened (docs/sso.md), by single
 * sign-on or by an API key given to POST /session/key. The browser holds the HttpOnly cookie; the page keeps
 * only what the server answered (role, member, CSRF token), in memory, and nothing in storage. The tab never
 * keeps an API key, so "SSO required" is enforced by the server, which refuses the key sign-in.
 */
import { roleAllows, type Permission } from '../../src/domain/access.js';

type Listener = () => void;

/** The cookie session as GET /session (or POST /session/key) describes it. */
export interface CookieSession {
  tenantId: string;
  role: 'admin' | 'member' | 'viewer';
  /** oidc, saml or key. */
  method: string;
  email: string | null;
  name: string | null;
  csrfToken: string;
}

/** The server's description of a session (GET /session, POST /session/key), in the fields the tab keeps. */
export interface SessionAnswer {
  tenant_id: string;
  role: CookieSession['role'];
  method: string;
  member: { email: string | null; name: string | null } | null;
  csrf_token: string | null;
}

/** The tab's copy of a session answer; undefined for an answer without a cookie session (a plain X-API-Key request). */
export function cookieSessionOf(answer: SessionAnswer): CookieSession | undefined {
  if (answer.method === 'api_key' || !answer.csrf_token) return undefined;
  return {
    tenantId: answer.tenant_id,
    role: answer.role,
    method: answer.method,
    email: answer.member?.email ?? null,
    name: answer.member?.name ?? null,
    csrfToken: answer.csrf_token,
  };
}

let cookieSession: CookieSession | undefined;
let notice: string | undefined;
const listeners = new Set<Listener>();

function emit(): void {
  for (const listener of listeners) listener();
}

export const KEY_PATTERN = /^svc_pk_[A-Za-z0-9_-]+$/;

export const session = {
  cookie: (): CookieSession | undefined => cookieSession,
  active: (): boolean => cookieSession !== undefined,
  /** The role the UI draws for (a key sign-in is admin, docs/sso.md). */
  role: (): CookieSession['role'] => cookieSession?.role ?? 'admin',
  /**
   * Whether the role may do what a write needs (the server's rule, domain/access.ts): `operate` (scans,
   * baselines, suppressions) or `administer` (keys, billing, members, SSO, notifications). A control the
   * role cannot use is not drawn at all; the server answers 403 anyway.
   */
  can: (permission: Permission): boolean => roleAllows(cookieSession?.role ?? 'admin', permission),
  /** A session the server opened (key sign-in, the IdP round trip) or found again (GET /session after a reload). */
  useCookie(found: CookieSession): void {
    cookieSession = found;
    notice = undefined;
    emit();
  },
  signOut(message?: string): void {
    cookieSession = undefined;
    notice = message;
    emit();
  },
  /** The server ended the session (401): forget it and say why on the sign-in page. */
  expire(message: string): void {
    if (cookieSession) session.signOut(`Signed out: ${message}.`);
  },
  notice: (): string | undefined => notice,
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
