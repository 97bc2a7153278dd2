/**
 * API3:2023 Mass assignment: creates and updates carrying undeclared or read-only privileged
 * properties (admin, role, permissions, verified, balance...) with values the schema would
 * accept, on a fresh unique resource, judged by reading the resource back (the item, the
 * account's profile after logging in as it, the claims of its token), not by the echo alone.
 * Declared privilege flags and roles are tried one per request on registration and self-update,
 * judged against a control (an account registered without them, the value before the update).
 */
import { isLoginAttribute, isSelfWrite } from '../identities.js';
import { unwrapEnvelope } from '../moves.js';
import { keysForParam, normKey, resourceOf } from '../resources.js';
import { setAt } from '../synth.js';
import { isAuthOperation } from '../unique-values.js';
import type { CheckContext, CheckOutcome, CheckResult, CreatedResource, Operation, OperationCheck, TargetResponse } from '../types.js';
import { bodyObject, isPasswordField, isSelfPath, loginOperation, ok, ownedPath, readBack, readOperationFor, tokenFrom } from './authz.js';
import { type Probe, declaredProbes, probeKey, probeName, resourcePlace, undeclaredExtras } from './privileged.js';
import { credentialOf, hasPasswordField, isRegistration, registerScanAccount, registeredUser } from './scan-account.js';
import { fail, pass } from './util.js';

/** True when `v` holds `key` with the value `want` at any depth (a list of roles holding every wanted one counts). */
function holds(v: unknown, key: string, want: unknown, depth = 0): boolean {
  if (!v || typeof v !== 'object' || depth > 5) return false;
  if (Array.isArray(v)) return v.some((x) => holds(x, key, want, depth + 1));
  for (const [k, x] of Object.entries(v)) {
    if (k === key && (JSON.stringify(x) === JSON.stringify(want) || (Array.isArray(want) && Array.isArray(x) && want.every((w) => x.includes(w))))) return true;
    if (holds(x, key, want, depth + 1)) return true;
  }
  return false;
}

/** Every value `v` holds under `key`, at any depth. */
function valuesOf(v: unknown, key: string, depth = 0): unknown[] {
  if (!v || typeof v !== 'object' || depth > 5) return [];
  if (Array.isArray(v)) return v.flatMap((x) => valuesOf(x, key, depth + 1));
  return Object.entries(v).flatMap(([k, x]) => [...(k === key ? [x] : []), ...valuesOf(x, key, depth + 1)]);
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

/** One way a resource was read back: its JSON (or a token's claims) and how it was read. */
interface Read {
  res: TargetResponse;
  json: unknown;
  how: string;
}

/**
 * Reads a created resource back every way the spec allows: the item (any single-parameter GET its
 * values fill), and for an account its token's claims and its profile, with the token its
 * registration answered or a login as it. `tried`: a read was attempted.
 */
async function readsOf(ctx: CheckContext, created: CreatedResource, answer: TargetResponse): Promise<{ tried: boolean; reads: Read[] }> {
  let tried = false;
  const reads: Read[] = [];
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
    if (ok(res)) reads.push({ res, json: ctx.json(res), how: `read back with ${read.key}` });
  }
  // An account (a password among what it was created with, in its envelope too): its token, then its profile.
  const sent = (created.body ?? {}) as Record<string, unknown>;
  if (!Object.keys(unwrapEnvelope(sent) ?? sent).some(isPasswordField)) return { tried, reads };
  const user = registeredUser(ctx, sent);
  if (!tokenFrom(ctx, answer) && !(loginOperation(ctx) && user)) return { tried, reads };
  tried = true;
  const { token, res } = await credentialOf(ctx, answer, sent, true);
  if (!token) return { tried, reads };
  const as = res === answer ? 'with the token its registration answered' : `logged in as ${user}`;
  reads.push({ res, json: jwtClaims(token), how: `${as}: the token's claims` });
  for (const self of ctx.model.operations.filter(
    (o) => o.method === 'GET' && !o.path.includes('{') && /\b(me|self|profile|whoami|current|account|userinfo)\b/i.test(o.path),
  )) {
    const profile = await ctx.send({ ...ctx.request(self), headers: { ...ctx.request(self).headers, authorization: `Bearer ${token}` } });
    if (ok(profile)) reads.push({ res: profile, json: ctx.json(profile), how: `${as}: ${self.key}` });
  }
  return { tried, reads };
}

/** The first read that shows any of `extras`, with the names it shows. */
function firstHit(reads: Read[], extras: Record<string, unknown>): (Read & { found: string[] }) | undefined {
  for (const r of reads) {
    const found = persisted(r.json, extras);
    if (found.length) return { ...r, found };
  }
  return undefined;
}

const NAME = 'Undeclared privileged properties accepted';
const DECLARED = 'Privileged property set by the caller';
const describe = (extras: Record<string, unknown>, keys: string[]) => keys.map((k) => `${k}=${JSON.stringify(extras[k])}`).join(', ');

/** `extras` at the resource's place in the body (inside `{"user": {...}}` or JSON:API `data.attributes`). */
function placed(op: Operation, body: Record<string, unknown>, extras: Record<string, unknown>): Record<string, unknown> {
  const at = resourcePlace(op);
  return Object.entries(extras).reduce((b, [k, v]) => setAt(b, [...at, k], v), body);
}

async function createCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  const base = ctx.request(op);
  const body = bodyObject(base);
  if (!body) return { code: 'not_applicable', notTested: 'no JSON or form object body' };
  const before = ctx.created().length;
  const res = await ctx.send(ctx.request(op, { body: placed(op, body, extras) }));
  if (!ok(res)) return [pass(NAME)];
  const created = ctx
    .created()
    .slice(before)
    .find((r) => r.op === op);
  const echoed = persisted(ctx.json(res), extras);
  if (created) {
    const { tried, reads } = await readsOf(ctx, created, res);
    const hit = firstHit(reads, extras);
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
      const controlHit = controlCreated ? firstHit((await readsOf(ctx, controlCreated, control)).reads, extras) : undefined;
      const real = hit.found.filter((k) => !controlHit?.found.includes(k));
      if (real.length)
        return [
          fail(
            NAME,
            severityOn(ctx, op),
            ctx.evidence(
              hit.res,
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
    Object.values((unwrapEnvelope(created.body) ?? {}) as Record<string, unknown>).some(
      (v) => typeof v === 'string' && v.startsWith(ctx.marker) && res.body.includes(v),
    );
  return created && !represented ? { code: 'prerequisite_missing', notTested: 'no operation reads the created resource back' } : [pass(NAME)];
}

/**
 * Declared privileged properties of a registration, one per request: a control account registered
 * without them, then one account per property and value, each read back the same ways. A finding
 * when a read-back of the account shows the value and the control's same read does not.
 */
async function registrationCase(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
  const register = async (probe?: Probe) => {
    const before = ctx.created().length;
    const body = bodyObject(ctx.request(op)) ?? {};
    const res = await ctx.send(ctx.request(op, { body: probe ? setAt(body, probe.at, probe.value) : body }));
    const created = ok(res)
      ? ctx
          .created()
          .slice(before)
          .find((r) => r.op === op)
      : undefined;
    return { res, reads: created ? (await readsOf(ctx, created, res)).reads : [] };
  };
  const control = await register();
  if (!ok(control.res)) return { code: 'prerequisite_missing', notTested: `a plain registration answered HTTP ${control.res.status || control.res.error}` };
  if (!control.reads.length) return { code: 'prerequisite_missing', notTested: 'no operation reads the registered account back' };
  const probes = declaredProbes(ctx, op, (key) => control.reads.flatMap((r) => valuesOf(r.json, key)));
  for (const probe of probes) {
    const { res, reads } = await register(probe);
    if (!ok(res)) continue;
    const key = probeKey(probe);
    const hit = reads.find((r) => holds(r.json, key, probe.value));
    // The control's read of the same kind must show something else: a default every account gets is no escalation.
    if (!hit || control.reads.some((r) => r.how.replace(/^.*?: /, '') === hit.how.replace(/^.*?: /, '') && holds(r.json, key, probe.value))) continue;
    return [
      fail(
        DECLARED,
        'high',
        ctx.evidence(
          hit.res,
          `Registered with ${probeName(probe)}=${JSON.stringify(probe.value)} (HTTP ${res.status}); ${hit.how} shows ${key}=${JSON.stringify(probe.value)}, while an account registered without it shows ${shown(control.reads, key)}.`,
        ),
        { parameter: probeName(probe) },
      ),
    ];
  }
  return [pass(DECLARED)];
}

/** What reads show for a property, for the evidence (`"absent"` when none does). */
function shown(reads: Read[], key: string): string {
  const v = reads.flatMap((r) => valuesOf(r.json, key))[0];
  return v === undefined ? `no ${key}` : `${key}=${JSON.stringify(v)}`;
}

/** Privileged properties persisted on an account are an escalation (high); on any other resource they are unvalidated data whose effect is not shown (medium). */
function severityOn(ctx: CheckContext, op: Operation): 'high' | 'medium' {
  return isRegistration(ctx, op) || /(user|account|member|profile|customer|people|person|role|admin|permission|group|team|org)/i.test(op.path)
    ? 'high'
    : 'medium';
}

async function updateCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  // Its own account or resource first (a profile reads it back), else one the scan created.
  const path = [ownedPath(ctx, op), ownedPath(ctx, op, { created: true })].find((p) => p && readOperationFor(ctx, op, p)) ?? ownedPath(ctx, op);
  if (!path) return { code: 'prerequisite_missing', notTested: 'no resource of the first identity found' };
  // The account of an identity the user gave keeps its role: the update is made on an account the scan registers.
  if (isSelfWrite(op) || isSelfPath(ctx, op, path)) return scanAccountCase(ctx, op, extras);
  if (!Object.keys(extras).length) return { code: 'not_applicable', notTested: 'every privileged property is declared writable' };
  const read = readOperationFor(ctx, op, path);
  if (!read) return { code: 'prerequisite_missing', notTested: 'no operation reads the resource back' };
  const before = await readBack(ctx, read, path, 'primary');
  if (!ok(before)) return { code: 'prerequisite_missing', notTested: `the first identity could not read its resource (HTTP ${before.status || before.error})` };
  const already = persisted(ctx.json(before), extras);
  const base = ctx.request(op, { path });
  const body = bodyObject(base) ?? {};
  const res = await ctx.send(ctx.request(op, { path, body: placed(op, body, extras) }));
  if (!ok(res)) return [pass(NAME)];
  const after = await readBack(ctx, read, path, 'primary');
  const found = ok(after) ? persisted(ctx.json(after), extras).filter((k) => !already.includes(k)) : [];
  if (found.length)
    return [
      fail(
        NAME,
        severityOn(ctx, op),
        ctx.evidence(
          after,
          `Updated with ${describe(extras, found)} (HTTP ${res.status}); reading it back with ${read.key} shows ${found.join(', ')} changed.`,
        ),
        { parameter: found.join(',') },
      ),
    ];
  return [pass(NAME)];
}

/** A copy of a body without login attributes (username, email, password), at any depth. */
function withoutLogin(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([k]) => !isLoginAttribute(k))
      .map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? withoutLogin(v as Record<string, unknown>) : v]),
  );
}

/**
 * The update of one's own account, made on an account the scan registers (scan-account.ts): the
 * undeclared privileged properties at once, then each declared one alone, each read back with the
 * account's own credential and compared with what it showed before.
 */
async function scanAccountCase(ctx: CheckContext, op: Operation, extras: Record<string, unknown>): Promise<CheckOutcome> {
  const account = await registerScanAccount(ctx, op);
  if (!('readAccount' in account)) return account;
  const { reg, path, read, as, readAccount } = account;
  let before = await readAccount();
  if (!ok(before))
    return {
      code: 'prerequisite_missing',
      notTested: `the account the scan registered could not read itself with ${read.key} (HTTP ${before.status || before.error})`,
    };
  // Only the privileged properties (PATCH: what the schema requires, such as JSON:API's `type`). PUT replaces: its plain body. Login attributes left out.
  const plain = () => withoutLogin(bodyObject(ctx.request(op, { path, ...(op.method === 'PATCH' ? { requiredOnly: true } : {}) })) ?? {});
  // Some updates need the password in every write (FastAPI's template reads it unconditionally and answers 500 without):
  // one refused by something other than authorization is sent again with the account's own password (the scan's, unchanged).
  const withPassword = (): Record<string, unknown> => {
    // Built as for no identity: an identity's own self path gets no login attributes, and this is the scan's account.
    const body = bodyObject(ctx.request(op, { path }, 'none')) ?? {};
    const password = Object.entries(body).filter(([k]) => isPasswordField(k));
    return password.length ? { ...plain(), ...Object.fromEntries(password) } : {};
  };
  const update = async (build: (plain: Record<string, unknown>) => Record<string, unknown>): Promise<TargetResponse> => {
    const res = await ctx.send(as(ctx.request(op, { path, body: build(plain()) })));
    if (ok(res) || res.status === 0 || res.status === 401 || res.status === 403) return res;
    const again = withPassword();
    return Object.keys(again).length ? ctx.send(as(ctx.request(op, { path, body: build(again) }))) : res;
  };
  const said = (what: string, res: TargetResponse, found: string) =>
    `An account the scan registered (${reg.key}) updated itself with ${what} (HTTP ${res.status}); reading it back with ${read.key} shows ${found} changed. (The identities' own accounts were not changed.)`;
  const results: CheckResult[] = [];
  if (Object.keys(extras).length) {
    const already = persisted(ctx.json(before), extras);
    const res = await update((body) => placed(op, body, extras));
    const after = ok(res) ? await readAccount() : undefined;
    const found = after && ok(after) ? persisted(ctx.json(after), extras).filter((k) => !already.includes(k)) : [];
    results.push(
      found.length
        ? fail(NAME, severityOn(ctx, op), ctx.evidence(after!, said(describe(extras, found), res, found.join(', '))), { parameter: found.join(',') })
        : pass(NAME),
    );
    if (after && ok(after)) before = after;
  }
  const probes = declaredProbes(ctx, op, (key) => valuesOf(ctx.json(before), key));
  if (!probes.length) return results.length ? results : { code: 'not_applicable', notTested: 'every privileged property is declared writable' };
  let finding: CheckResult | undefined;
  for (const probe of probes) {
    const key = probeKey(probe);
    if (holds(ctx.json(before), key, probe.value)) continue;
    const res = await update((body) => setAt(body, probe.at, probe.value));
    if (!ok(res)) continue;
    const after = await readAccount();
    if (!ok(after)) continue;
    if (holds(ctx.json(after), key, probe.value)) {
      finding = fail(
        DECLARED,
        'high',
        ctx.evidence(
          after,
          `${said(`${probeName(probe)}=${JSON.stringify(probe.value)}`, res, key)} Before: ${shown([{ res: before, json: ctx.json(before), how: '' }], key)}.`,
        ),
        { parameter: probeName(probe) },
      );
      break;
    }
    before = after;
  }
  results.push(finding ?? pass(DECLARED));
  return results;
}

export const massAssignment: OperationCheck = {
  id: 'mass-assignment',
  title: 'Mass assignment',
  description:
    "Creates a fresh, uniquely named resource (and updates one of the first identity's own) with privileged properties the request schema does not let clients write (admin, role with the most privileged value the spec or the target uses, permissions, verified, balance), then reads it back: the item, or the account's token and profile after logging in as it. On registration and self-update (on an account the scan registers), also each declared privilege flag or role alone, with role values from its enum, the target's answers or the target's spelling, judged against an account registered without it or the value before.",
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
    if (loginOperation(ctx) === op || (isAuthOperation(op) && hasPasswordField(op) && !isRegistration(ctx, op)))
      return { code: 'not_applicable', notTested: 'a login' };
    const extras = undeclaredExtras(ctx, op);
    if (op.method !== 'POST' || op.params.some((p) => p.in === 'path')) return updateCase(ctx, op, extras);
    const outcomes: CheckOutcome[] = [];
    if (Object.keys(extras).length) outcomes.push(await createCase(ctx, op, extras));
    // Declared privileged properties are tested where an account is made: registration (and self-update, in updateCase).
    if (isRegistration(ctx, op) && declaredProbes(ctx, op).length) outcomes.push(await registrationCase(ctx, op));
    const results = outcomes.filter((o): o is CheckResult[] => Array.isArray(o)).flat();
    if (results.length) return results;
    return outcomes.find((o) => !Array.isArray(o)) ?? { code: 'not_applicable', notTested: 'every privileged property is declared writable' };
  },
};
