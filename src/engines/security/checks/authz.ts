/**
 * What the authorization checks (BOLA, BFLA, mass assignment) share: the first identity's own
 * resources, whether an operation requires authentication, and how to observe a write's side
 * effect (the owner re-reads the resource, or a changed password logs in).
 */
import { keysForParam, normKey } from '../resources.js';
import { isAuthOperation, isPasswordField, scanPassword } from '../unique-values.js';
import { bodyFields, isSelfRead, loginBody, loginFields } from '../identities.js';
import { unwrapEnvelope } from '../moves.js';
import type { CheckContext, CreatedResource, Identity, NotApplicable, Operation, RequestSpec, TargetResponse } from '../types.js';

/** Property names every resource has (`id`, `name`, `slug`...): alone they do not say which resource a value belongs to. */
const AMBIGUOUS_KEYS = new Set(['id', 'uuid', 'guid', 'key', 'slug', 'name', 'title', 'code', 'number', 'handle']);
import { ok } from './util.js';

/** Authorization checks compare two identities: without the second, they apply but cannot be tested. */
export const NO_SECOND_IDENTITY: NotApplicable = { code: 'prerequisite_missing', text: 'no second identity (auth.secondary)' };

/** Token-set similarity of two bodies, 0..1. */
export function similarity(a: string, b: string): number {
  const ta = new Set(a.toLowerCase().match(/[a-z0-9_@.-]{2,}/g) ?? []);
  const tb = new Set(b.toLowerCase().match(/[a-z0-9_@.-]{2,}/g) ?? []);
  if (!ta.size && !tb.size) return a === b ? 1 : 0;
  let inter = 0;
  for (const t of ta) if (tb.has(t)) inter++;
  return inter / (ta.size + tb.size - inter);
}

export const pathParams = (op: Operation) => op.params.filter((p) => p.in === 'path');

/**
 * Path values of a resource the first identity owns: one it created, its own account (token
 * claims, profile), or one it sees and the second identity does not. `created` restricts to what
 * the scan created (what a delete may remove). Undefined when a parameter has no such value.
 */
export function ownedPath(ctx: CheckContext, op: Operation, opts: { created?: boolean } = {}): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (opts.created) {
    const nested = createdChildPath(ctx, op);
    if (nested) return nested;
  }
  for (const p of pathParams(op)) {
    if (opts.created) {
      const all = keysForParam(op, p.name).map(normKey);
      const collection = op.path.slice(0, op.path.lastIndexOf(`/{${p.name}}`));
      // A bare `id` (or name, slug...) of something created in another collection is not this one's: a
      // note's id 1 is no product's, and a delete must never reach an entry the scan did not create.
      const keysOf = (r: CreatedResource) => (r.op.path.replace(/\/+$/, '') === collection ? all : all.filter((k) => !AMBIGUOUS_KEYS.has(k)));
      const mine = ctx.created('primary').find((r) => !r.deleted && keysOf(r).some((k) => r.values[k] !== undefined));
      const keys = mine ? keysOf(mine) : all;
      const v = mine && keys.map((k) => mine.values[k]).find((x) => x !== undefined);
      if (v === undefined) return undefined;
      out[p.name] = String(v);
      continue;
    }
    const candidates = ctx.values(p.name, { op, identity: 'primary' });
    const seenBySecondary = new Set(candidates.filter((c) => c.identity === 'secondary' && c.from !== op.key).map((c) => String(c.value)));
    const mine =
      candidates.find((c) => c.identity === 'primary' && c.owned) ??
      (ctx.hasSecondary ? candidates.find((c) => c.identity === 'primary' && !seenBySecondary.has(String(c.value))) : undefined);
    if (!mine) return undefined;
    out[p.name] = String(mine.value);
  }
  return out;
}

/**
 * Path values of a nested child the scan created (`/articles/{slug}/comments/{id}`): its own id with
 * the parent it was created under, so the pair addresses one real comment (never an article's slug
 * with another article's comment id). Undefined when nothing was created in that collection.
 */
function createdChildPath(ctx: CheckContext, op: Operation): Record<string, string> | undefined {
  const m = /^(.*)\/\{([^}]+)\}\/?$/.exec(op.path);
  if (!m || !m[1].includes('{')) return undefined;
  const keys = keysForParam(op, m[2]).map(normKey);
  const names = pathParams(op).map((p) => p.name);
  for (const r of ctx.created('primary')) {
    if (r.deleted || r.op.path.replace(/\/+$/, '') !== m[1]) continue;
    const v = keys.map((k) => r.values[k]).find((x) => x !== undefined) ?? r.id;
    if (v === undefined) continue;
    const out: Record<string, string> = { ...r.parent, [m[2]]: String(v) };
    if (names.every((n) => out[n] !== undefined)) return out;
  }
  return undefined;
}

/** Declared security, or refused without credentials (a read is tried; a write only when `probeWrite`). */
export async function requiresAuth(ctx: CheckContext, op: Operation, req: RequestSpec): Promise<boolean> {
  if (op.publicByDesign) return false;
  if (op.secured) return true;
  const anon = await ctx.send({ ...req, identity: 'none', headers: { ...req.headers } });
  return anon.status === 401 || anon.status === 403;
}

/**
 * Fields that personalise shared content for the caller (`favorited`, `following`, `is_liked`,
 * `viewer_has_starred`): an answer that differs only in them is the same content.
 */
const PERSONAL_FIELD =
  /^(?:(?:is|has|viewer|my|current_?user)_?)?(?:favou?rited?|following|followed|liked|bookmarked|subscribed|starred|voted|seen|muted|blocked|read)$|^viewer|^(?:favou?rites?|likes?|stars?)_?count$/i;

/** A JSON answer with the personalisation fields left out, at any depth; `cut` when it is not whole JSON (a body cut at the size limit). */
function impersonal(body: string): { text: string; cut: boolean } {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    // Not whole JSON: the personal `"name": value` pairs taken out of the text.
    const text = body
      .replace(/"([A-Za-z_]+)"\s*:\s*(?:true|false|null|-?\d+(?:\.\d+)?|"[^"\\]*")\s*,?/g, (m, k: string) => (PERSONAL_FIELD.test(k) ? '' : m))
      .replace(/,\s*([}\]])/g, '$1');
    return { text, cut: true };
  }
  const strip = (node: unknown, depth: number): unknown => {
    if (depth > 20 || node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((x) => strip(x, depth + 1));
    return Object.fromEntries(
      Object.entries(node as Record<string, unknown>)
        .filter(([k]) => !PERSONAL_FIELD.test(k))
        .map(([k, x]) => [k, strip(x, depth + 1)]),
    );
  };
  return { text: JSON.stringify(strip(v, 0)), cut: false };
}

/**
 * True when two answers carry the same content, apart from fields that personalise it for the
 * caller. Bodies cut at the size limit compare by what both hold (the shorter one a prefix of the other).
 */
export function sameContent(a: TargetResponse, b: TargetResponse): boolean {
  if (!ok(a) || !ok(b) || a.body.trim() === '') return false;
  const x = impersonal(a.body);
  const y = impersonal(b.body);
  if (x.text === y.text) return true;
  if (!x.cut || !y.cut) return false;
  const [short, long] = x.text.length <= y.text.length ? [x.text, y.text] : [y.text, x.text];
  return short.length >= 4096 && long.startsWith(short.replace(/[}\]]+$/, ''));
}

/** The profile read (`GET /users/me`, `GET /user`): what the identity's own account looks like. */
export function selfReadOperation(ctx: CheckContext): Operation | undefined {
  return ctx.model.operations.find(isSelfRead);
}

/** True when every path value is the first identity's own account (its token's claims, its profile). */
export function isSelfPath(ctx: CheckContext, op: Operation, path: Record<string, string>): boolean {
  const self = selfReadOperation(ctx)?.key;
  const names = Object.keys(path);
  return (
    names.length > 0 &&
    names.every((name) =>
      ctx.values(name, { op, identity: 'primary', owned: true }).some((v) => String(v.value) === path[name] && (v.from === 'token' || v.from === self)),
    )
  );
}

/**
 * A GET that reads what `op` addresses: the same path, else its parent (`/users/{u}/email` ->
 * `/users/{u}`), else the profile when the path addresses the identity's own account.
 */
export function readOperationFor(ctx: CheckContext, op: Operation, path?: Record<string, string>): Operation | undefined {
  const gets = ctx.model.operations.filter((o) => o.method === 'GET');
  const same = gets.find((o) => o.path === op.path);
  if (same) return same;
  const parent = op.path.replace(/\/[^/{}]+\/?$/, '');
  if (parent !== op.path && /\}$/.test(parent)) {
    const up = gets.find((o) => o.path === parent);
    if (up) return up;
  }
  if (path && isSelfPath(ctx, op, path)) return selfReadOperation(ctx);
  return undefined;
}

/** Reads a resource as `identity` with the given path values. */
export function readBack(ctx: CheckContext, read: Operation, path: Record<string, string>, identity: Identity): Promise<TargetResponse> {
  const names = new Set(pathParams(read).map((p) => p.name));
  const values = Object.fromEntries(Object.entries(path).filter(([k]) => names.has(k)));
  return ctx.send({ ...ctx.request(read, { path: values }, 'primary'), identity });
}

/** The operation that logs in with a username and password (form or JSON). */
export function loginOperation(ctx: CheckContext): Operation | undefined {
  return ctx.model.operations.find(
    (o) =>
      o.method === 'POST' &&
      !!o.body &&
      isAuthOperation(o) &&
      loginFields(o).password !== undefined &&
      // A registration under an auth prefix (`/auth/register`) takes a password too: not the login.
      !/regist|sign-?up/i.test(`${o.path} ${o.operationId ?? ''}`),
  );
}

/** Tries to log in; returns the response (a 2xx means the credentials work). */
export async function logIn(ctx: CheckContext, login: Operation, username: string, password: string): Promise<TargetResponse> {
  return ctx.send({ ...ctx.request(login, { body: loginBody(login, username, password) }), identity: 'none' });
}

/**
 * A login that proves the password works: a 2xx carrying a credential (a token in the answer or a
 * session cookie), while the same user name with a wrong password gets none. A target that answers
 * 200 `{"status": "fail"}` to wrong credentials, or 200 to every login, proves nothing.
 */
export async function provenLogin(ctx: CheckContext, login: Operation, username: string, password: string): Promise<TargetResponse | undefined> {
  const credential = (r: TargetResponse) => ok(r) && (tokenFrom(ctx, r) !== undefined || /=/.test(r.headers['set-cookie'] ?? ''));
  const res = await logIn(ctx, login, username, password);
  if (!credential(res)) return undefined;
  const control = await logIn(ctx, login, username, `${password}-vigil-wrong`);
  return credential(control) ? undefined : res;
}

/** The bearer token a login answer carries (access_token, token, auth_token, jwt...), at its top or in its envelope (`{"user": {"token"}}`). */
export function tokenFrom(ctx: CheckContext, res: TargetResponse): string | undefined {
  const body = ctx.json(res);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  for (const fields of [body as Record<string, unknown>, unwrapEnvelope(body) ?? {}])
    for (const [k, v] of Object.entries(fields)) if (typeof v === 'string' && /token|jwt/i.test(k) && !/type|refresh/i.test(k) && v.length >= 8) return v;
  return undefined;
}

/** A username of the first identity (its token's claims, its profile), for logging in as it. */
export function ownUsername(ctx: CheckContext): string | undefined {
  const v = ctx.values('username', { identity: 'primary', owned: true })[0] ?? ctx.values('email', { identity: 'primary', owned: true })[0];
  return v === undefined ? undefined : String(v.value);
}

/** The password a write by the second identity sets (distinct from the owner's own writes). */
export function otherPassword(ctx: CheckContext): string {
  return `${scanPassword(ctx.marker)}x2`;
}

/** The request body as a plain object, when JSON or form (the identity watch reads bodies the same way). */
export const bodyObject = bodyFields;

export { ok, isPasswordField };
