/** Forged claims: the same token for another user, or with a higher role. */
import type { Claims } from './token.js';

/** Claims that name the token's user, most specific first. */
export const IDENTITY_CLAIMS = ['sub', 'username', 'user_name', 'preferred_username', 'user', 'login', 'email', 'user_id', 'userId', 'uid', 'id', 'name'];

/** How a forged token is signed, and what that says about the target. */
export interface Signer {
  /** e.g. `signed with the found secret "05****"`, `with alg "none"`. */
  how: string;
  /** The signature is one the target should accept (found secret, exposed public key): claim checks (exp, nbf) are meaningful. */
  valid: boolean;
  sign(header: Claims, payload: Claims): string;
}

export interface Impersonation {
  payload: Claims;
  /** Claims changed, e.g. ["sub: bob"]. */
  changed: string[];
  /** Who the token now claims to be. */
  as: string;
}

const isScalar = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';

/** The payload with the other token's identity claims (those both tokens carry and that differ). */
export function impersonateToken(own: Claims, other: Claims): Impersonation | undefined {
  const payload = { ...own };
  const changed: string[] = [];
  for (const claim of IDENTITY_CLAIMS) {
    if (isScalar(own[claim]) && isScalar(other[claim]) && own[claim] !== other[claim]) {
      payload[claim] = other[claim];
      changed.push(`${claim}: ${String(other[claim])}`);
    }
  }
  return changed.length ? { payload, changed, as: String(other[IDENTITY_CLAIMS.find((c) => isScalar(other[c]))!]) } : undefined;
}

/**
 * The payload with a harvested user name or id in place of the token's own: string claims take a
 * string (emails only an email), numeric claims a number.
 */
export function impersonateValue(own: Claims, value: string | number): Impersonation | undefined {
  const payload = { ...own };
  const changed: string[] = [];
  const numeric = typeof value === 'number' || /^\d+$/.test(value);
  for (const claim of IDENTITY_CLAIMS) {
    const v = own[claim];
    if (!isScalar(v) || String(v) === String(value)) continue;
    const vNumeric = typeof v === 'number' || /^\d+$/.test(v);
    if (vNumeric !== numeric) continue;
    if (typeof v === 'string' && v.includes('@') !== String(value).includes('@')) continue;
    payload[claim] = typeof v === 'number' ? Number(value) : String(value);
    changed.push(`${claim}: ${String(value)}`);
  }
  return changed.length ? { payload, changed, as: String(value) } : undefined;
}

/** The payload with every common way of saying "administrator". */
export function escalateRole(own: Claims): Claims {
  const roles = Array.isArray(own.roles) ? own.roles.filter((r) => r !== 'admin') : [];
  const scope = typeof own.scope === 'string' ? own.scope.split(/\s+/).filter((s) => s && s !== 'admin') : [];
  return { ...own, role: 'admin', roles: [...roles, 'admin'], admin: true, is_admin: true, isAdmin: true, scope: [...scope, 'admin'].join(' ') };
}
