/**
 * Where the JWT check tries its tokens: an operation the real token opens and no credentials do
 * not, and how a token travels there (the identity's own header, else Authorization in the identities'
 * scheme, Bearer when they have none).
 */
import type { CheckContext, Identity, Operation, RequestSpec, TargetResponse } from '../../types.js';
import { phaseOf, words } from '../../phases.js';
import { ok } from '../util.js';

export interface JwtEntry {
  token: string;
  identity: Identity;
  source: string;
}

export interface Probe {
  op: Operation;
  entry: JwtEntry;
  /** The real token's answer there (2xx). */
  valid: TargetResponse;
  /** The answer without credentials (401 or 403). */
  anonymous: TargetResponse;
  /** Sends `token` in place of the real one (same request, same identity's other headers). */
  send(token: string, op?: Operation): Promise<TargetResponse>;
  /** The real token's answer on another operation. */
  real(op: Operation): Promise<TargetResponse>;
  /** True when the target answered as it does to the real token (2xx and no authentication error). */
  accepted(res: TargetResponse): boolean;
}

/** Candidate operations tried, at most. */
const MAX_CANDIDATES = 12;
const SELF_WORDS = new Set(['me', 'self', 'profile', 'whoami', 'current', 'myself', 'account', 'userinfo', 'user', 'session']);
const AUTH_ERROR = /invalid[ _-]?(token|signature|jwt)|jwt (expired|malformed)|token (expired|invalid)|unauthori[sz]ed|not authenticated|forbidden/i;

/** Reads that are safe to send any time, profile-like and parameterless first. */
function candidates(ctx: CheckContext): Operation[] {
  const score = (op: Operation) => (op.path.includes('{') ? 4 : 0) + (words(op.path).some((w) => SELF_WORDS.has(w)) ? 0 : 2) + (op.secured ? 0 : 1);
  return ctx.model.operations
    .filter((op) => op.method === 'GET' && !op.publicByDesign && phaseOf(op) === 'read')
    .map((op, i) => ({ op, i, s: score(op) }))
    .sort((a, b) => a.s - b.s || a.i - b.i)
    .slice(0, MAX_CANDIDATES)
    .map((c) => c.op);
}

/** Headers that carry `token` where the identity's credential carried the original. */
async function carrier(ctx: CheckContext, entry: JwtEntry): Promise<{ own: boolean; headers(token: string): Record<string, string> }> {
  const auth = entry.identity === 'none' ? {} : await ctx.authHeaders(entry.identity);
  const name = Object.keys(auth).find((k) => auth[k].includes(entry.token));
  if (name) return { own: true, headers: (token) => ({ ...auth, [name]: auth[name].replace(entry.token, token) }) };
  // A token the identity does not carry (seen in an answer) goes in the scheme the identities use (`Token`, `JWT`...), Bearer when none.
  const primary = await ctx.authHeaders('primary');
  const scheme = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s+\S+$/.exec(primary.authorization ?? '')?.[1];
  const used = scheme && !/^basic$/i.test(scheme) ? scheme : 'Bearer';
  return { own: false, headers: (token) => ({ authorization: `${used} ${token}` }) };
}

/**
 * The request for `op` with `headers` added. It does not name its operation: forged tokens are not
 * an identity's access, so they stay out of the operation's coverage.
 */
function requestWith(ctx: CheckContext, op: Operation, identity: Identity, headers: Record<string, string>): RequestSpec {
  const { op: _op, ...req } = ctx.request(op, undefined, identity);
  return { ...req, headers: { ...req.headers, ...headers } };
}

/** The first operation where `entry`'s token gets a 2xx and no credentials get 401/403, or undefined. */
export async function findProbe(ctx: CheckContext, entry: JwtEntry): Promise<Probe | undefined> {
  const c = await carrier(ctx, entry);
  const identity: Identity = entry.identity === 'none' ? 'primary' : entry.identity;
  const send = (token: string, op: Operation) => ctx.send(requestWith(ctx, op, identity, c.headers(token)));
  for (const op of candidates(ctx)) {
    ctx.signal.throwIfAborted();
    const valid = c.own ? await ctx.baseline(op, identity) : await send(entry.token, op);
    if (!ok(valid)) continue;
    const anonymous = await ctx.baseline(op, 'none');
    if (anonymous.status !== 401 && anonymous.status !== 403) continue;
    const validIsError = AUTH_ERROR.test(ctx.shownBody(valid));
    return {
      op,
      entry,
      valid,
      anonymous,
      send: (token, other = op) => send(token, other),
      real: (other) => (c.own ? ctx.baseline(other, identity) : send(entry.token, other)),
      accepted: (res) => ok(res) && (validIsError || !AUTH_ERROR.test(ctx.shownBody(res))),
    };
  }
  return undefined;
}
