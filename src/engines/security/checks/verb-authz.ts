/**
 * Verb-level function authorization and identifiers in bodies (issue 26, item 6):
 *
 * - A write (PUT/PATCH) on an entry of a collection the second identity reads but nobody of the scan
 *   created (a catalogue that staff manage) is tried by the second identity with a real id and the
 *   entry's own current values (a write that changes nothing): an answer past authorization (2xx, or
 *   409/422 from the business rules) is a finding even without an admin word in the path. Deletes of
 *   such entries are not sent: the scan deletes only what it created.
 * - An update whose body names the user it acts on (`user_id`, `owner_id`, `username`) is a BOLA
 *   candidate like a path parameter: the second identity sends it naming the first identity, and the
 *   first identity's profile read back shows whether the write landed on its account.
 */
import { unwrapEnvelope } from '../moves.js';
import { normKey } from '../resources.js';
import { markedBody } from '../unique-values.js';
import type { CheckContext, CheckOutcome, JsonSchema, Operation } from '../types.js';
import { bodyObject, ok, pathParams, readOperationFor, requiresAuth, selfReadOperation } from './authz.js';
import { fail, pass } from './util.js';

/** The item path parameter of `PUT /products/{id}` and the collection read (`GET /products`) that lists such items. */
function collectionOf(ctx: CheckContext, op: Operation): { param: string; list: Operation } | undefined {
  const m = /^(.*)\/\{([^}]+)\}\/?$/.exec(op.path);
  if (!m) return undefined;
  const list = ctx.model.operations.find((o) => o.method === 'GET' && o.path.replace(/\/+$/, '') === m[1]);
  return list ? { param: m[2], list } : undefined;
}

/** True for a write on an item of a collection that has a read (`PUT /products/{id}` next to `GET /products`). */
export function collectionWrite(op: Operation, ctx: CheckContext): boolean {
  return ['PUT', 'PATCH', 'DELETE'].includes(op.method) && !!op.body === (op.method !== 'DELETE') && collectionOf(ctx, op) !== undefined;
}

/** Fills a sample body's fields with the values the entry has now (at the same place, or inside its envelope). */
function fillFrom(sample: unknown, current: Record<string, unknown>): unknown {
  if (!sample || typeof sample !== 'object' || Array.isArray(sample)) return sample;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sample as Record<string, unknown>)) {
    const now = current[k];
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const inner = now && typeof now === 'object' && !Array.isArray(now) ? (unwrapEnvelope(now) ?? current) : current;
      out[k] = fillFrom(v, inner);
    } else out[k] = now !== undefined && (typeof now !== 'object' || now === null || Array.isArray(now)) ? now : v;
  }
  return out;
}

/** Every value of what the scan created in a collection (any identity): entries the scan made are BOLA's, not this check's. */
function createdValues(ctx: CheckContext, collection: string): Set<string> {
  const out = new Set<string>();
  for (const r of ctx.created()) if (r.op.path.replace(/\/+$/, '') === collection) for (const v of Object.values(r.values)) out.add(String(v));
  return out;
}

/** The second identity's write on a catalogue entry it did not create, with the entry's own values. */
export async function collectionWriteCase(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
  const name = 'Write on an entry the second identity did not create reaches past authorization';
  const found = collectionOf(ctx, op)!;
  if (op.method === 'DELETE') return { code: 'prerequisite_missing', notTested: 'would delete an entry the scan did not create' };
  const mine = createdValues(ctx, found.list.path.replace(/\/+$/, ''));
  const candidates = ctx
    .values(found.param, { op })
    .filter((v) => v.identity === 'secondary' && !v.owned && !mine.has(String(v.value)) && v.from === found.list.key);
  if (!candidates.length) return { code: 'prerequisite_missing', notTested: 'no entry the second identity lists that the scan did not create' };
  const path: Record<string, string> = { [found.param]: String(candidates[0].value) };
  // Parent parameters (a nested collection) come from what the second identity can use (ctx.request).
  const plain = ctx.request(op, { path }, 'secondary');
  if (!(await requiresAuth(ctx, op, plain))) return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
  // The entry's current values, so the write changes nothing if it gets through.
  const read = readOperationFor(ctx, op, path);
  const now = read ? await ctx.send({ ...ctx.request(read, { path }, 'secondary'), identity: 'secondary' }) : undefined;
  const current = now && ok(now) ? unwrapEnvelope(ctx.json(now)) : undefined;
  const sample = bodyObject(plain);
  const body = current && sample ? fillFrom(sample, current) : sample;
  const res = await ctx.send({ ...ctx.request(op, { path, ...(body ? { body } : {}) }, 'secondary'), identity: 'secondary' });
  const unchanged = current ? ' with the values it already had (nothing changed)' : '';
  if (ok(res))
    return [
      fail(
        name,
        'high',
        ctx.evidence(
          res,
          `The second identity wrote ${op.key} on an entry it lists but did not create (${found.param}=${path[found.param]})${unchanged} and got HTTP ${res.status}: the operation does not check who may write.`,
        ),
        { endpoint: op.key },
      ),
    ];
  if (res.status === 409 || res.status === 422)
    return [
      fail(
        name,
        'medium',
        ctx.evidence(
          res,
          `The second identity's ${op.key} on an entry it did not create (${found.param}=${path[found.param]}) was refused by a business rule (HTTP ${res.status}), not by authorization (401/403): ${ctx.excerpt(res, 200)}`,
        ),
        { endpoint: op.key },
      ),
    ];
  return [pass(name, { endpoint: op.key })];
}

/** Body fields that name the user (or owner) an update acts on. */
const USER_REF = /^(user_?id|owner_?id|account_?id|member_?id|customer_?id|profile_?id|author_?id|username|user_?name|user|owner)$/i;

interface BodyRef {
  /** Dotted path of the field in the body. */
  keys: string[];
  name: string;
}

/** The body field of an update that names the user it acts on, at any depth of its JSON body. */
export function bodyUserRef(op: Operation): BodyRef | undefined {
  if (!['PUT', 'PATCH'].includes(op.method) || !op.body || !/json/i.test(op.body.contentType)) return undefined;
  const walk = (schema: JsonSchema | undefined, keys: string[], depth: number): BodyRef | undefined => {
    if (!schema || depth > 4) return undefined;
    for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      const type = Array.isArray(s?.type) ? s.type.find((t: string) => t !== 'null') : s?.type;
      if (USER_REF.test(k) && (type === 'string' || type === 'integer' || type === 'number')) return { keys: [...keys, k], name: k };
      if (type === 'object' || s?.properties) {
        const inner = walk(s, [...keys, k], depth + 1);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  return walk(op.body.schema, [], 0);
}

function setAt(body: Record<string, unknown>, keys: string[], value: unknown): Record<string, unknown> {
  const [k, ...rest] = keys;
  if (!rest.length) return { ...body, [k]: value };
  const inner = body[k] && typeof body[k] === 'object' ? (body[k] as Record<string, unknown>) : {};
  return { ...body, [k]: setAt(inner, rest, value) };
}

/** Marked free-text values of a body at any depth (what proves whose write landed). */
function markedDeep(body: unknown, schema: JsonSchema | undefined, tag: string): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const flat = markedBody(body, schema, tag) as Record<string, unknown>;
  for (const [k, v] of Object.entries(flat))
    if (v && typeof v === 'object' && !Array.isArray(v)) flat[k] = markedDeep(v, (schema?.properties as Record<string, JsonSchema> | undefined)?.[k], tag);
  return flat;
}

function strings(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 10 || v === null || v === undefined) return out;
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) strings(x, out, depth + 1);
  return out;
}

/**
 * The second identity's update naming the first identity in its body (`{"user_id": <first's id>}`):
 * a finding when the first identity's own profile then shows what the second wrote.
 */
export async function bodyIdCase(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
  const name = 'Object of one identity changeable by another (identifier in the body)';
  const ref = bodyUserRef(op)!;
  const victim = ctx
    .values(ref.name, { identity: 'primary', owned: true })
    .concat(ctx.values(normKey(ref.name) === 'user' || normKey(ref.name) === 'owner' ? 'username' : ref.name, { identity: 'primary', owned: true }))
    .find((v) => v.identity === 'primary');
  if (!victim) return { code: 'prerequisite_missing', notTested: `no value of the first identity for body field ${ref.keys.join('.')}` };
  const profile = selfReadOperation(ctx);
  if (!profile) return { code: 'prerequisite_missing', notTested: "no profile read to see the first identity's account" };
  const path = Object.fromEntries(pathParams(op).map((p) => [p.name, String(ctx.values(p.name, { op, identity: 'secondary', owned: true })[0]?.value ?? '')]));
  const plain = bodyObject(ctx.request(op, { path }, 'secondary'));
  if (!plain) return { code: 'prerequisite_missing', notTested: 'no JSON body to send' };
  const tagged = markedDeep(plain, op.body?.schema, `${ctx.marker}-other`) as Record<string, unknown>;
  const body = setAt(tagged, ref.keys, victim.value);
  const written = strings(body).filter((s) => s.includes(`${ctx.marker}-other`));
  if (!written.length) return { code: 'prerequisite_missing', notTested: 'no free-text field to recognise the write by' };
  const res = await ctx.send({ ...ctx.request(op, { path, body }, 'secondary'), identity: 'secondary' });
  if (!ok(res)) return [pass(name, { parameter: ref.keys.join('.') })];
  const after = await ctx.send({ ...ctx.request(profile, undefined, 'primary'), identity: 'primary' });
  const landed = ok(after) && written.some((s) => after.body.includes(s));
  if (!landed) return [pass(name, { parameter: ref.keys.join('.') })];
  return [
    fail(
      name,
      'critical',
      ctx.evidence(
        res,
        `The second identity sent ${op.key} with body field ${ref.keys.join('.')} naming the first identity (${String(victim.value)}) and got HTTP ${res.status}; the first identity's ${profile.key} now shows what it wrote.`,
      ),
      { parameter: ref.keys.join('.') },
    ),
  ];
}
