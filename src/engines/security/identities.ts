/**
 * Watching each identity the user gave (auth, auth.secondary):
 * - before discovery, verify it: an operation that needs authentication answers 2xx with it and
 *   401/403 without it (that operation is then its check operation);
 * - during the scan, a run of 401/403 on operations it reached before is re-checked on its check
 *   operation; refused there too, an identity that logs in (auth.type login, the OAuth2 password
 *   grant) logs in again and is re-checked; otherwise, or when that does not help, the identity is
 *   lost: it is used no more, the results warn, and what depended on it is `not_tested` with the reason;
 * - an identity whose login yields no working credential is lost from the start, with the login's reason;
 * - never send a write that changes its own account's login attributes (username, email, password,
 *   role) or deletes that account: the user's test account must stay usable.
 */
import { words } from './phases.js';
import { isPasswordField } from './unique-values.js';
import type { Identity, Operation, RequestSpec, TargetResponse } from './types.js';
import type { NotRunReason } from '../../domain/scan.js';

/**
 * Login attributes of an account: a write of these to the user's own account is withheld (its
 * tokens may be bound to them, and the scan could not restore them). Roles and privilege flags are
 * not among them: mass assignment tests them on the identity's own account (see docs/security-checks.md).
 */
const LOGIN_ATTRIBUTE = /^(username|user_?name|login|handle|email|e_?mail|mail)$/i;
const SELF_WORDS = new Set(['me', 'self', 'profile', 'whoami', 'current', 'myself', 'account', 'userinfo']);

export function isLoginAttribute(name: string): boolean {
  return LOGIN_ATTRIBUTE.test(name) || isPasswordField(name);
}

/** Envelopes a login attribute is looked for in (`{"user": {"email"}}`, JSON:API `data.attributes`). */
const ATTRIBUTE_DEPTH = 3;

/** Whether a body sets a login attribute (a non-empty value), at the top or inside its envelopes. */
export function setsLoginAttribute(body: Record<string, unknown>, depth = 0): boolean {
  return Object.entries(body).some(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? depth < ATTRIBUTE_DEPTH && setsLoginAttribute(v as Record<string, unknown>, depth + 1)
      : isLoginAttribute(k) && v !== undefined && v !== null && v !== '',
  );
}

/** The body without its login attributes, at the top and inside its envelopes. */
export function withoutLoginAttributes(body: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = depth < ATTRIBUTE_DEPTH ? withoutLoginAttributes(v as Record<string, unknown>, depth + 1) : v;
    else if (!isLoginAttribute(k)) out[k] = v;
  }
  return out;
}

/** Body fields a login operation names the user by. */
const LOGIN_USER_FIELD = /^(username|user_?name|login|handle|email|e_?mail|mail|user|name)$/i;

export interface LoginFields {
  username?: string;
  password?: string;
  /** The object property both fields sit in (`user` of `{"user": {"email", "password"}}`, Rails and RealWorld logins). */
  envelope?: string;
}

/**
 * The field names a login operation's body takes the user name (or email) and the password in, as
 * its schema names them: top-level ones, else those inside the one object property that holds a
 * password field.
 */
export function loginFields(op: Operation): LoginFields {
  const props: Record<string, { properties?: Record<string, unknown> } | undefined> = op.body?.schema?.properties ?? {};
  const pick = (names: string[]) => ({ username: names.find((k) => LOGIN_USER_FIELD.test(k)), password: names.find(isPasswordField) });
  const flat = pick(Object.keys(props));
  if (flat.password) return flat;
  for (const [envelope, schema] of Object.entries(props)) {
    const inner = pick(Object.keys(schema?.properties ?? {}));
    if (inner.password) return { ...inner, envelope };
  }
  return flat;
}

/** The body of a login with these credentials, in the operation's own field names and envelope. */
export function loginBody(op: Operation, username: string, password: string): Record<string, unknown> {
  const f = loginFields(op);
  const fields = { [f.username ?? 'username']: username, [f.password ?? 'password']: password };
  return f.envelope ? { [f.envelope]: fields } : fields;
}

/**
 * A path that names "the caller's own account" by itself: `/users/me`, `/profile`, `/account`, or a
 * singular `/user` (RealWorld's and GitHub's current user; a `POST /user` creates one, so not for writes that create).
 */
function ownAccountPath(op: Operation): boolean {
  // Asked for every request (harvest, the own-account rule): judged once per operation (again if its path or method changed).
  const known = ownAccountPaths.get(op);
  if (known && known.path === op.path && known.method === op.method) return known.own;
  const own = judgeOwnAccountPath(op);
  ownAccountPaths.set(op, { path: op.path, method: op.method, own });
  return own;
}

const ownAccountPaths = new WeakMap<Operation, { path: string; method: string; own: boolean }>();

function judgeOwnAccountPath(op: Operation): boolean {
  if (op.path.includes('{')) return false;
  if (words(op.path).some((w) => SELF_WORDS.has(w))) return true;
  return /\/user\/?$/i.test(op.path) && op.method !== 'POST';
}

/** A read of the caller's own account by its path alone (`GET /users/me`, `GET /user`): what it answers is the identity's own, even without credentials. */
export function isSelfRead(op: Operation): boolean {
  return op.method === 'GET' && ownAccountPath(op);
}

/** A write (or delete) addressed to "the caller's own account" by its path alone (`PATCH /users/me`, `PUT /user`). */
export function isSelfWrite(op: Operation): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(op.method) && ownAccountPath(op);
}

/** When an identity stopped being used, and why: a run of refusals from `op`, and/or `reason`; `initial`: its first login failed. */
export interface Lost {
  at: string;
  op?: string;
  reason?: string;
  initial?: boolean;
}

export interface IdentityState {
  verified?: { op: string };
  /** Why the identity could not be verified before discovery. */
  unverified?: string;
  /** The statuses it was refused with during verification. */
  refusedWith?: number[];
  /** When it stopped being used; `op`: where the run of refusals that lost it ended; `reason`: why, when not that run alone. */
  lost?: Lost;
  /** Operations it reached with 2xx. */
  reached: Set<string>;
  /** Refusals in a row on operations it reached before. */
  refusalsInARow: number;
  checkOp?: Operation;
}

export const LOSS_RUN = 4;

export class IdentityWatch {
  readonly states = new Map<Identity, IdentityState>();
  private rechecking = new Map<Identity, Promise<void>>();

  constructor(
    private readonly recheck: (identity: Identity, op: Operation) => Promise<TargetResponse>,
    /** Identities that log in (auth.type login, the OAuth2 password grant): whether one does, and logging it in again (why that failed, or undefined). */
    private readonly login?: { logsIn(identity: Identity): boolean; relogin(identity: Identity): Promise<string | undefined> },
  ) {}

  state(identity: Identity): IdentityState {
    let s = this.states.get(identity);
    if (!s) this.states.set(identity, (s = { reached: new Set(), refusalsInARow: 0 }));
    return s;
  }

  /** Verification: ops tried in order until one answers 2xx with the identity and 401/403 without. */
  async verify(identity: Identity, candidates: Operation[], send: (op: Operation, identity: Identity) => Promise<TargetResponse>): Promise<void> {
    const s = this.state(identity);
    const refused: string[] = [];
    for (const op of candidates.slice(0, 6)) {
      const [withIt, without] = [await send(op, identity), await send(op, 'none')];
      if (withIt.status >= 200 && withIt.status < 300 && (without.status === 401 || without.status === 403)) {
        s.verified = { op: op.key };
        s.checkOp = op;
        return;
      }
      if (withIt.status === 401 || withIt.status === 403) {
        refused.push(`${op.key} answered ${withIt.status}`);
        (s.refusedWith ??= []).push(withIt.status);
      }
    }
    s.unverified = refused.length
      ? `refused where authentication is needed (${refused.join('; ')})`
      : 'no operation that needs authentication answered 2xx with it and 401/403 without it';
  }

  /** Bookkeeping of every answer to a request sent as the identity. */
  observe(identity: Identity, op: Operation | undefined, res: TargetResponse): void {
    if (identity === 'none' || !op) return;
    const s = this.state(identity);
    if (s.lost) return;
    if (res.status >= 200 && res.status < 300) {
      s.reached.add(op.key);
      s.refusalsInARow = 0;
      return;
    }
    // Refusals where it was accepted before; for an identity that logs in, anywhere (a session the
    // target ended refuses every write, reached or not, and costs one check request to find out).
    if ((res.status === 401 || res.status === 403) && (s.reached.has(op.key) || this.login?.logsIn(identity))) {
      s.refusalsInARow++;
      if (s.refusalsInARow >= LOSS_RUN && s.checkOp && !this.rechecking.has(identity)) {
        const p = this.confirm(identity, s, s.checkOp, op.key);
        this.rechecking.set(identity, p);
        void p.finally(() => this.rechecking.delete(identity));
      }
    }
  }

  /** A run of refusals: still accepted on the check operation? If not, log in again when the scan knows how, else lose it. */
  private async confirm(identity: Identity, s: IdentityState, checkOp: Operation, from: string): Promise<void> {
    const refused = (r: TargetResponse) => r.status === 401 || r.status === 403;
    if (!refused(await this.recheck(identity, checkOp))) {
      s.refusalsInARow = 0;
      return;
    }
    if (s.lost) return;
    if (this.login?.logsIn(identity)) {
      const why = await this.login.relogin(identity);
      if (why === undefined && !refused(await this.recheck(identity, checkOp))) {
        s.refusalsInARow = 0;
        return;
      }
      if (!s.lost) {
        s.lost = {
          at: new Date().toISOString(),
          op: from,
          reason: why !== undefined ? `it could not log in again: ${why}` : `refused on ${checkOp.key} even after logging in again`,
        };
      }
      return;
    }
    if (!s.lost) s.lost = { at: new Date().toISOString(), op: from };
  }

  /**
   * The identity's login did not yield a working credential: it is not used from now on. `initial`:
   * its first login (it was never usable); otherwise a login again, after the target refused it.
   */
  loginFailed(identity: Identity, reason: string, initial: boolean): void {
    if (identity === 'none') return;
    const s = this.state(identity);
    if (!s.lost)
      s.lost = initial ? { at: new Date().toISOString(), reason, initial } : { at: new Date().toISOString(), reason: `it could not log in again: ${reason}` };
  }

  /** Used again (a new login worked where it had been lost): for the clean-up of what it created. */
  revived(identity: Identity): void {
    if (identity === 'none') return;
    const s = this.state(identity);
    s.lost = undefined;
    s.refusalsInARow = 0;
  }

  lost(identity: Identity): IdentityState['lost'] {
    return identity === 'none' ? undefined : this.states.get(identity)?.lost;
  }
}

/** What lost an identity, in words (coverage reasons and warnings). */
export function lossCause(lost: Lost, checkOp?: string): string {
  const run = lost.op ? `a run of 401/403 from ${lost.op}${lost.reason ? '' : `, refused on ${checkOp ?? 'its check operation'} too`}` : '';
  return [run, lost.reason].filter(Boolean).join('; ');
}

/** Why a request is not sent: the identity is lost (its login failed, or it stopped being accepted). */
export function lostReason(identity: Identity, lost: Lost): NotRunReason {
  const who = `the ${identity === 'primary' ? 'first' : 'second'} identity`;
  if (lost.initial) return { code: 'identity_lost', text: `${who} could not log in: ${lost.reason}` };
  return { code: 'identity_lost', text: `${who} stopped being accepted at ${lost.at} (${lossCause(lost)})` };
}

export const OWN_ACCOUNT_REASON: NotRunReason = {
  code: 'own_account',
  text: 'not sent: it would change the login attributes (username, email, password) of, or delete, the account of an identity the user gave',
};

/** The JSON or form body of a request as an object (undefined for other bodies). */
export function bodyFields(req: RequestSpec): Record<string, unknown> | undefined {
  if (typeof req.body !== 'string') return undefined;
  const ct = req.headers['content-type'] ?? '';
  try {
    if (/json/i.test(ct)) {
      const v: unknown = JSON.parse(req.body);
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    }
    if (/x-www-form-urlencoded/i.test(ct)) return Object.fromEntries(new URLSearchParams(req.body));
  } catch {
    return undefined;
  }
  return undefined;
}

/** A synthetic answer for a request the scan withheld (status 0, error "withheld", the reason in words and as a code). */
export function withheld(req: { method: string; url: string; headers: Record<string, string>; body?: string }, reason: NotRunReason): TargetResponse {
  return { status: 0, headers: {}, body: '', size: 0, elapsedMs: 0, request: req, error: 'withheld', errorMessage: reason.text, withheld: reason };
}
