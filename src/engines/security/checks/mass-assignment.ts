/**
 * API3:2023 Mass assignment: creates and updates carrying undeclared or read-only privileged
 * properties (admin, role, permissions, verified, balance...) with values the schema would
 * accept, on a fresh unique resource, judged by reading the resource back (the item, the
 * account's profile after logging in as it, the claims of its token), not by the echo alone.
 */
import { keysForParam, normKey, resourceOf } from '../resources.js';
import { isLoginAttribute, isSelfWrite, loginFields } from '../identities.js';
import { scanPassword } from '../unique-values.js';
import type { CheckContext, CheckOutcome, CreatedResource, JsonSchema, Operation, OperationCheck, RequestSpec, TargetResponse } from '../types.js';
import {
  bodyObject,
  isPasswordField,
  isSelfPath,
  loginOperation,
  logIn,
  ok,
  ownedPath,
  readBack,
  readOperationFor,
  selfReadOperation,
  tokenFrom,
} from './authz.js';
import { fail, pass } from './util.js';

const PRIVILEGED_BOOLEANS = ['admin', 'is_admin', 'isAdmin', 'is_superuser', 'superuser', 'is_staff', 'verified', 'is_verified', 'email_verified', 'approved'];
const PRIVILEGED_ROLE = /admin|owner|root|super|manager|staff/i;

/** Every property name (and its schema) declared anywhere in the spec's bodies and responses. */
function specProperties(ctx: CheckContext): Map<string, JsonSchema[]> {
  const out = new Map<string, JsonSchema[]>();
  const walk = (schema: JsonSchema | undefined, depth: number) => {
    if (!schema || typeof schema !== 'object' || depth > 5) return;
    for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      out.set(k, [...(out.get(k) ?? []), v]);
      walk(v, depth + 1);
    }
    for (const sub of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) walk(sub, depth + 1);
    if (schema.items) walk(schema.items, depth + 1);
  };
  for (const op of ctx.model.operations) {
    walk(op.body?.schema, 0);
    for (const r of Object.values(op.responses)) walk(r.schema, 0);
  }
  return out;
}

/** The most privileged role the target knows: a role enum's admin-like value, a role seen in answers, else "admin". */
function privilegedRole(ctx: CheckContext, props: Map<string, JsonSchema[]>): string {
  const enums = [...(props.get('role') ?? []), ...(props.get('roles') ?? []).map((s) => s.items ?? {})].flatMap((s) =>
    Array.isArray(s.enum) ? s.enum.map(String) : [],
  );
  const seen = ctx.values('role').map((v) => String(v.value));
  return [...enums, ...seen].find((v) => PRIVILEGED_ROLE.test(v)) ?? enums.at(-1) ?? 'admin';
}

function declaredWritable(schema: JsonSchema | undefined): Set<string> {
  const s = new Set<string>();
  const walk = (x: JsonSchema | undefined) => {
    if (!x || typeof x !== 'object') return;
    for (const [k, v] of Object.entries((x.properties ?? {}) as Record<string, JsonSchema>)) if (!v?.readOnly) s.add(k);
    for (const sub of [...(x.allOf ?? []), ...(x.oneOf ?? []), ...(x.anyOf ?? [])]) walk(sub);
  };
  walk(schema);
  return s;
}

/** Privileged properties to inject: those the request schema does not let the client write. */
function extrasFor(ctx: CheckContext, op: Operation): Record<string, unknown> {
  const props = specProperties(ctx);
  const writable = declaredWritable(op.body?.schema);
  const candidates: Record<string, unknown> = {};
  for (const k of PRIVILEGED_BOOLEANS) candidates[k] = true;
  const role = privilegedRole(ctx, props);
  candidates.role = role;
  candidates.roles = [role];
  candidates.permissions = ['*'];
  candidates.balance = 1000000;
  // Names the spec uses elsewhere (a readOnly `admin` in the user schema) in the spec's own spelling.
  for (const k of props.keys()) if (/^(is_?)?(admin|superuser|staff|verified)$/i.test(k) && !(k in candidates)) candidates[k] = true;
  return Object.fromEntries(Object.entries(candidates).filter(([k]) => !writable.has(k)));
}

function holds(v: unknown, key: string, want: unknown, depth = 0): boolean {
  if (!v || typeof v !== 'object' || depth > 5) return false;
  if (Array.isArray(v)) return v.some((x) => holds(x, key, want, depth + 1));
  for (const [k, x] of Object.entries(v)) {
    if (k === key && (JSON.stringify(x) === JSON.stringify(want) || (Array.isArray(want) && Array.isArray(x) && want.every((w) => x.includes(w))))) return true;
    if (holds(x, key, want, depth + 1)) return true;
  }
  return false;
}

const persisted = (json: unknown, extras: Record<string, unknown>) => Object.keys(extras).filter((k) => holds(json, k, extras[k]));

function jwtClaims(token: string | undefined): unknown {
  const part = token?.split('.')[1];
  if (!part) return undefined;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString());
  } catch {
    return undefined;
  }
}

interface ReadBack {
  res?: TargetResponse;
  found: string[];
  how: string;
}

/** Reads a created resource back every way the spec allows; the first way that shows injected values wins. */
async function readCreated(ctx: CheckContext, created: CreatedResource, extras: Record<string, unknown>): Promise<{ tried: boolean; hit?: ReadBack }> {
  let tried = false;
  // The item, by any single-parameter GET whose parameter the created values fill (/things/{id}, /users/{username}).
  for (const read of ctx.model.operations) {
    const params = read.params.filter((p) => p.in === 'path');
    if (read.method !== 'GET' || params.length !== 1) continue;
    // Only a read of the same resource, or one addressed by the account's own name: `/files/{name}` does not read a user.
    const keys = keysForParam(read, params[0].name).map(normKey);
    if (resourceOf(read.path) !== resourceOf(created.op.path) && !keys.some((k) => k === 'username' || k === 'email')) continue;
    const value = keys.map((k) => created.values[k]).find((v) => v !== undefined);
    if (value === undefined) continue;
    tried = true;
    const res = await readBack(ctx, read, { [params[0].name]: String(value) }, created.identity);
    const found = ok(res) ? persisted(ctx.json(res), extras) : [];
    if (found.length) return { tried, hit: { res, found, how: `read back with ${read.key}` } };
  }
  // An account: log in as it, then its token's claims and its profile.
  const sent = (created.body ?? {}) as Record<string, unknown>;
  const login = Object.keys(sent).some(isPasswordField) ? loginOperation(ctx) : undefined;
  const user = Object.entries(sent).find(([k, v]) => /user|login|email|name/i.test(k) && typeof v === 'string')?.[1] as string | undefined;
  if (login && user) {
    tried = true;
    const res = await logIn(ctx, login, user, scanPassword(ctx.marker));
    const token = ok(res) ? tokenFrom(ctx, res) : undefined;
    const claims = persisted(jwtClaims(token), extras);
    if (claims.length) return { tried, hit: { res, found: claims, how: `logged in as ${user}: the token's claims` } };
    if (token) {
      for (const self of ctx.model.operations.filter(
        (o) => o.method === 'GET' && !o.path.includes('{') && /\b(me|self|profile|whoami|current|account|userinfo)\b/i.test(o.path),
      )) {
        const profile = await ctx.send({ ...ctx.request(self), headers: { ...ctx.request(self).headers, authorization: `Bearer ${token}` } });
        const found = ok(profile) ? persisted(ctx.json(profile), extras) : [];
        if (found.length) return { tried, hit: { res: profile, found, how: `logged in as ${user}: ${self.key}` } };
      }
    }
  }
  return { tried };
}

const NAME = 'Undeclared privileged properties accepted';
const describe = (extras: Record<string, unknown>, keys: string[]) => keys.map((k) => `${k}=${JSON.stringify(extras[k])}`).join(', ');

async function createCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  const base = ctx.request(op);
  const body = bodyObject(base);
  if (!body) return { code: 'not_applicable', notTested: 'no JSON or form object body' };
  const before = ctx.created().length;
  const res = await ctx.send(ctx.request(op, { body: { ...body, ...extras } }));
  if (!ok(res)) return [pass(NAME)];
  const created = ctx
    .created()
    .slice(before)
    .find((r) => r.op === op);
  const echoed = persisted(ctx.json(res), extras);
  if (created) {
    const { tried, hit } = await readCreated(ctx, created, extras);
    if (hit) {
      // A control without the extras: a value every new resource gets anyway is not an escalation.
      const controlBefore = ctx.created().length;
      const control = await ctx.send(ctx.request(op));
      const controlCreated = ok(control)
        ? ctx
            .created()
            .slice(controlBefore)
            .find((r) => r.op === op)
        : undefined;
      const controlHit = controlCreated ? (await readCreated(ctx, controlCreated, extras)).hit : undefined;
      const real = hit.found.filter((k) => !controlHit?.found.includes(k));
      if (real.length)
        return [
          fail(
            NAME,
            severityOn(op),
            ctx.evidence(
              hit.res!,
              `Created with ${describe(extras, real)}; ${hit.how} shows ${real.join(', ')} persisted (a resource created without them does not have them).`,
            ),
            { parameter: real.join(',') },
          ),
        ];
      return [pass(NAME)];
    }
    if (tried) return [pass(NAME)];
  }
  if (echoed.length)
    return [
      fail(
        NAME,
        'medium',
        ctx.evidence(res, `The answer carries the injected ${describe(extras, echoed)}; not confirmed by a read-back (no operation reads the resource).`),
        { parameter: echoed.join(',') },
      ),
    ];
  // The create's answer represents the resource (it carries what was sent) without the extras: that is a read-back too.
  const represented =
    created &&
    Object.values((created.body ?? {}) as Record<string, unknown>).some((v) => typeof v === 'string' && v.startsWith(ctx.marker) && res.body.includes(v));
  return created && !represented ? { code: 'prerequisite_missing', notTested: 'no operation reads the created resource back' } : [pass(NAME)];
}

/** Privileged properties persisted on an account are an escalation (high); on any other resource they are unvalidated data whose effect is not shown (medium). */
function severityOn(op: Operation): 'high' | 'medium' {
  return /(user|account|member|profile|customer|people|person|role|admin|permission|group|team|org)/i.test(op.path) ? 'high' : 'medium';
}

async function updateCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  // Its own account or resource first (a profile reads it back), else one the scan created.
  const path = [ownedPath(ctx, op), ownedPath(ctx, op, { created: true })].find((p) => p && readOperationFor(ctx, op, p)) ?? ownedPath(ctx, op);
  if (!path) return { code: 'prerequisite_missing', notTested: 'no resource of the first identity found' };
  // The account of an identity the user gave keeps its role: the update is made on an account the scan registers.
  if (isSelfWrite(op) || isSelfPath(ctx, op, path)) return scanAccountCase(ctx, op, extras);
  const read = readOperationFor(ctx, op, path);
  if (!read) return { code: 'prerequisite_missing', notTested: 'no operation reads the resource back' };
  const before = await readBack(ctx, read, path, 'primary');
  if (!ok(before)) return { code: 'prerequisite_missing', notTested: `the first identity could not read its resource (HTTP ${before.status || before.error})` };
  const already = persisted(ctx.json(before), extras);
  const base = ctx.request(op, { path });
  const body = bodyObject(base) ?? {};
  const res = await ctx.send(ctx.request(op, { path, body: { ...body, ...extras } }));
  if (!ok(res)) return [pass(NAME)];
  const after = await readBack(ctx, read, path, 'primary');
  const found = ok(after) ? persisted(ctx.json(after), extras).filter((k) => !already.includes(k)) : [];
  if (found.length)
    return [
      fail(
        NAME,
        severityOn(op),
        ctx.evidence(
          after,
          `Updated with ${describe(extras, found)} (HTTP ${res.status}); reading it back with ${read.key} shows ${found.join(', ')} changed.`,
        ),
        { parameter: found.join(',') },
      ),
    ];
  return [pass(NAME)];
}

/**
 * Why the update of an identity's own account is not sent: the scan writes privileged properties
 * only on an account it registered itself (the user's account must not be left an administrator).
 */
const ownAccount = (why: string): CheckOutcome => ({
  code: 'own_account',
  notTested: `not sent: it would write a role or privilege flag on the account of an identity the user gave, and the scan could not update an account of its own instead (${why})`,
});

/** The operation that registers an account: a POST with a password field, not the login, on the account's collection or named so. */
function registrationOperation(ctx: CheckContext, account: Operation): Operation | undefined {
  const login = loginOperation(ctx);
  const candidates = ctx.operations.filter(
    (o) =>
      o !== login &&
      o.method === 'POST' &&
      !o.params.some((p) => p.in === 'path') &&
      !!o.body &&
      /json|form/i.test(o.body.contentType) &&
      Object.keys(o.body.schema?.properties ?? {}).some(isPasswordField),
  );
  return (
    candidates.find((o) => resourceOf(o.path) === resourceOf(account.path)) ?? candidates.find((o) => REGISTRATION.test(`${o.path} ${o.operationId ?? ''}`))
  );
}

const REGISTRATION = /regist|sign-?up|signup|users?\/?$|accounts?\/?$/i;

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

/**
 * The update of one's own account, made on an account the scan registers: registered through the
 * spec's registration (a plain body: no privileged property), logged in as (the registration's
 * token, else the login operation with the login's own field names), then updated with the
 * privileged properties and read back with its own credential (the same path, else the profile).
 */
async function scanAccountCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  const reg = registrationOperation(ctx, op);
  if (!reg) return ownAccount('the spec has no registration operation');
  const sent = bodyObject(ctx.request(reg, {}, 'none')) ?? {};
  const registered = await ctx.send({ ...ctx.request(reg, { body: sent }, 'none'), identity: 'none' });
  if (!ok(registered)) return ownAccount(`registering one with ${reg.key} answered HTTP ${registered.status || registered.error}`);
  let token = tokenFrom(ctx, registered);
  const login = loginOperation(ctx);
  if (!token && login) {
    const field = loginFields(login).username;
    const user =
      (field && typeof sent[field] === 'string' ? sent[field] : undefined) ??
      (Object.entries(sent).find(([k, v]) => /user|login|email|name/i.test(k) && typeof v === 'string')?.[1] as string | undefined);
    const res = user ? await logIn(ctx, login, user, scanPassword(ctx.marker)) : undefined;
    token = res && ok(res) ? tokenFrom(ctx, res) : undefined;
  }
  if (!token) return ownAccount(`the account it registered with ${reg.key} yielded no credential`);
  const scheme = /^(\S+)\s+\S+$/.exec((await ctx.authHeaders('primary')).authorization ?? '')?.[1] ?? 'Bearer';
  // Sent with the account's own credential (explicit: no identity's credential is added, the identity watch does not count it).
  const as = (req: RequestSpec): RequestSpec => ({ ...req, identity: 'primary', headers: { ...req.headers, authorization: `${scheme} ${token}` } });
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
  const before = await readAccount();
  if (!ok(before))
    return {
      code: 'prerequisite_missing',
      notTested: `the account the scan registered could not read itself with ${read.key} (HTTP ${before.status || before.error})`,
    };
  const already = persisted(ctx.json(before), extras);
  // Only the privileged properties (PATCH): nothing else of the account changes. PUT replaces: its plain body, login attributes left out.
  const plain =
    op.method === 'PATCH' ? {} : Object.fromEntries(Object.entries(bodyObject(ctx.request(op, { path })) ?? {}).filter(([k]) => !isLoginAttribute(k)));
  const res = await ctx.send(as(ctx.request(op, { path, body: { ...plain, ...extras } })));
  if (!ok(res)) return [pass(NAME)];
  const after = await readAccount();
  const found = ok(after) ? persisted(ctx.json(after), extras).filter((k) => !already.includes(k)) : [];
  if (!found.length) return [pass(NAME)];
  return [
    fail(
      NAME,
      severityOn(op),
      ctx.evidence(
        after,
        `An account the scan registered (${reg.key}) updated itself with ${describe(extras, found)} (HTTP ${res.status}); reading it back with ${read.key} shows ${found.join(', ')} changed. (The identities' own accounts were not changed.)`,
      ),
      { parameter: found.join(',') },
    ),
  ];
}

export const massAssignment: OperationCheck = {
  id: 'mass-assignment',
  title: 'Mass assignment',
  description:
    "Creates a fresh, uniquely named resource (and updates one of the first identity's own) with privileged properties the request schema does not let clients write (admin, role with the most privileged value the spec or the target uses, permissions, verified, balance), then reads it back: the item, or the account's token and profile after logging in as it.",
  risk: 'A user makes themselves an administrator, verifies their own account or sets their own balance by adding a property to an ordinary request.',
  remediation:
    "Bind request bodies to explicit input models that list the writable fields (allow-lists, DTOs, Pydantic models without privileged fields, strong parameters), and set privileged fields only in server-side code paths that check the caller's role.",
  owasp: 'API3:2023',
  cwe: 'CWE-915',
  references: [{ title: 'OWASP Mass Assignment Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Mass_Assignment_Cheat_Sheet.html' }],
  scope: 'operation',
  stateful: true,
  applies(op) {
    if (!['POST', 'PUT', 'PATCH'].includes(op.method)) return 'not a create or update';
    if (!op.body || !/json|form/i.test(op.body.contentType)) return 'no JSON or form body';
    return true;
  },
  async run(ctx, op): Promise<CheckOutcome> {
    const extras = extrasFor(ctx, op);
    if (!Object.keys(extras).length) return { code: 'not_applicable', notTested: 'every privileged property is declared writable' };
    if (loginOperation(ctx) === op) return { code: 'not_applicable', notTested: 'a login' };
    return op.method === 'POST' && !op.params.some((p) => p.in === 'path') ? createCase(ctx, op, extras) : updateCase(ctx, op, extras);
  },
};
