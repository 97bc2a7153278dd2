/**
 * An account of the scan's own, for writes the user's accounts must not get (a role, a privilege
 * flag): registered through the spec's registration with a plain body, logged in as (the
 * registration's token, else the login operation), and read back with its own credential.
 */
import { loginFields } from '../identities.js';
import { unwrapEnvelope } from '../moves.js';
import { keysForParam, normKey, resourceOf } from '../resources.js';
import { injectionPoints } from '../synth.js';
import { isAuthOperation, scanPassword } from '../unique-values.js';
import type { CheckContext, NotTested, Operation, RequestSpec, TargetResponse } from '../types.js';
import { bodyObject, isPasswordField, logIn, loginOperation, ok, selfReadOperation, tokenFrom } from './authz.js';

/** A JSON or form body with a password field, at any depth (`{"user": {"password"}}` too). */
export function hasPasswordField(op: Operation): boolean {
  return injectionPoints(op).some((p) => p.kind === 'body' && isPasswordField(p.at?.at(-1) ?? p.name));
}

const REGISTRATION = /regist|sign-?up|signup|users?\/?$|accounts?\/?$/i;

/** An operation that creates accounts: a POST with a password field, no path parameter, not a login. */
export function isRegistration(ctx: CheckContext, op: Operation): boolean {
  return (
    op !== loginOperation(ctx) &&
    op.method === 'POST' &&
    !op.params.some((p) => p.in === 'path') &&
    !!op.body &&
    /json|form/i.test(op.body.contentType) &&
    // A login (`/users/login`) is not one; a registration under an auth prefix (`/auth/register`) is.
    (!isAuthOperation(op) || /regist|sign-?up/i.test(`${op.path} ${op.operationId ?? ''}`)) &&
    hasPasswordField(op)
  );
}

/**
 * The operations that may register an account, in the order to try them: on the account's collection,
 * then those named `register`/`signup`/`users`, then any other POST with a password field. More than one is common (FastAPI's template has an
 * admin-only `POST /users/` beside the public `POST /users/open`): the first that answers 2xx is used.
 */
export function registrationOperations(ctx: CheckContext, account: Operation): Operation[] {
  const candidates = ctx.operations.filter((o) => isRegistration(ctx, o));
  const sameCollection = candidates.filter((o) => resourceOf(o.path) === resourceOf(account.path));
  const named = candidates.filter((o) => !sameCollection.includes(o) && REGISTRATION.test(`${o.path} ${o.operationId ?? ''}`));
  const others = candidates.filter((o) => !sameCollection.includes(o) && !named.includes(o));
  return [...sameCollection, ...named, ...others].slice(0, 3);
}

/** The user name an account was registered with (its login field, else a user, login, email or name field, in its envelope too). */
export function registeredUser(ctx: CheckContext, sent: Record<string, unknown>): string | undefined {
  const fields = unwrapEnvelope(sent) ?? sent;
  const login = loginOperation(ctx);
  const field = login ? loginFields(login).username : undefined;
  return (
    (field && typeof fields[field] === 'string' ? (fields[field] as string) : undefined) ??
    (Object.entries(fields).find(([k, v]) => /user|login|email|name/i.test(k) && typeof v === 'string')?.[1] as string | undefined)
  );
}

/**
 * A credential for an account just registered: the registration's own token, else a login with the
 * scan's password; `loginFirst`: the login (proof the account logs in), else the registration's token.
 */
export async function credentialOf(
  ctx: CheckContext,
  registered: TargetResponse,
  sent: Record<string, unknown>,
  loginFirst = false,
): Promise<{ token?: string; res: TargetResponse }> {
  const own = tokenFrom(ctx, registered);
  if (own && !loginFirst) return { token: own, res: registered };
  const login = loginOperation(ctx);
  const user = registeredUser(ctx, sent);
  const res = login && user ? await logIn(ctx, login, user, scanPassword(ctx.marker)) : undefined;
  const token = res && ok(res) ? tokenFrom(ctx, res) : undefined;
  if (token) return { token, res: res! };
  return own ? { token: own, res: registered } : { res: res ?? registered };
}

/** An id the registration's answer gives the account, for the update's path parameter (`id`, `user.id`, `user_id`...). */
function accountValue(json: unknown, keys: string[]): string | undefined {
  const seen: unknown[] = [];
  const walk = (v: unknown, depth: number): string | undefined => {
    if (!v || typeof v !== 'object' || depth > 3 || seen.includes(v)) return undefined;
    seen.push(v);
    for (const [k, x] of Object.entries(v as Record<string, unknown>))
      if ((typeof x === 'string' || typeof x === 'number') && keys.includes(normKey(k))) return String(x);
    for (const x of Object.values(v as Record<string, unknown>)) {
      const found = walk(x, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(json, 0);
}

/** An account the scan registered, ready for `op` (an update of one's own account). */
export interface ScanAccount {
  /** The registration used. */
  reg: Operation;
  /** The account's path values for `op`. */
  path: Record<string, string>;
  /** The read that shows the account (the same path, else the profile). */
  read: Operation;
  /** A request sent with the account's own credential. */
  as(req: RequestSpec): RequestSpec;
  /** Reads the account with its own credential. */
  readAccount(): Promise<TargetResponse>;
}

/**
 * Why the update of an identity's own account is not sent: the scan writes privileged properties
 * only on an account it registered itself (the user's account must not be left an administrator).
 */
export const ownAccount = (why: string): NotTested => ({
  code: 'own_account',
  notTested: `not sent: it would write a role or privilege flag on the account of an identity the user gave, and the scan could not update an account of its own instead (${why})`,
});

/** Registers an account for `op` and logs in as it; a not-tested reason when that cannot be done. */
export async function registerScanAccount(ctx: CheckContext, op: Operation): Promise<ScanAccount | NotTested> {
  const regs = registrationOperations(ctx, op);
  if (!regs.length) return ownAccount('the spec has no registration operation');
  const refused: string[] = [];
  let done: { reg: Operation; sent: Record<string, unknown>; registered: TargetResponse } | undefined;
  for (const reg of regs) {
    const sent = bodyObject(ctx.request(reg, {}, 'none')) ?? {};
    const registered = await ctx.send({ ...ctx.request(reg, { body: sent }, 'none'), identity: 'none' });
    if (ok(registered)) {
      done = { reg, sent, registered };
      break;
    }
    refused.push(`${reg.key} answered HTTP ${registered.status || registered.error}`);
  }
  if (!done) return ownAccount(`registering one: ${refused.join('; ')}`);
  const { reg, sent, registered } = done;
  const { token } = await credentialOf(ctx, registered, sent);
  if (!token) return ownAccount(`the account it registered with ${reg.key} yielded no credential`);
  const scheme = /^(\S+)\s+\S+$/.exec((await ctx.authHeaders('primary')).authorization ?? '')?.[1] ?? 'Bearer';
  // Sent with the account's own credential (explicit: no identity's credential is added, the identity watch does not count it).
  const as = (req: RequestSpec): RequestSpec => ({
    ...req,
    identity: 'primary',
    scanAccount: true,
    headers: { ...req.headers, authorization: `${scheme} ${token}` },
  });
  // The account's own path values, from what its registration answered.
  const path: Record<string, string> = {};
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const keys = [...keysForParam(op, p.name).map(normKey), normKey(p.name), 'id'];
    const v = accountValue(ctx.json(registered), keys);
    if (v === undefined) return { code: 'prerequisite_missing', notTested: `the registration (${reg.key}) did not answer the account's ${p.name}` };
    path[p.name] = v;
  }
  const read = ctx.operations.find((o) => o.method === 'GET' && o.path === op.path) ?? selfReadOperation(ctx);
  if (!read) return { code: 'prerequisite_missing', notTested: 'no operation reads the account back' };
  const readAccount = () =>
    ctx.send(as(ctx.request(read, { path: Object.fromEntries(Object.entries(path).filter(([k]) => read.params.some((p) => p.name === k))) })));
  return { reg, path, read, as, readAccount };
}
