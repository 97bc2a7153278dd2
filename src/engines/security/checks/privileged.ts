/**
 * Which privileged properties mass assignment writes, where in the body, and with which values:
 * those the request schema does not declare writable (all at once, at the resource's place in its
 * envelope), and those it does declare (one per request, at their own place), with role values
 * from the schema's enums, from the target's answers and in the target's own spelling.
 */
import { words } from '../phases.js';
import { PRIVILEGED_ROLE, isPrivilegeName } from '../privilege-names.js';
import { injectionPoints, mergeAllOf, schemaType } from '../synth.js';
import type { CheckContext, JsonSchema, Operation } from '../types.js';

const PRIVILEGED_BOOLEANS = ['admin', 'is_admin', 'isAdmin', 'is_superuser', 'superuser', 'is_staff', 'verified', 'is_verified', 'email_verified', 'approved'];
/** Properties whose value names a role or permission (as opposed to a flag). */
const ROLE_NAME = /^(role|roles|permission|permissions|privilege|privileges|authorities)$/;
/** The privileged roles tried in the target's own spelling when no privileged value is known. */
const ROLE_WORDS = [['admin'], ['staff'], ['super', 'user']];
/** At most this many values per declared role property, one request each. */
const MAX_ROLE_VALUES = 3;

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

/** A request body property with its keys from the top of the body (`["user", "is_staff"]`). */
export interface BodyProperty {
  at: string[];
  schema: JsonSchema;
}

/** The properties a JSON or form body's schema declares, at any depth of its objects (envelopes included). */
function bodyProperties(op: Operation): BodyProperty[] {
  const out: BodyProperty[] = [];
  const nested = /json/i.test(op.body?.contentType ?? '');
  const walk = (schema: JsonSchema | undefined, at: string[]) => {
    if (!schema || typeof schema !== 'object' || at.length > 6) return;
    const s = mergeAllOf(schema);
    for (const sub of [...(s.oneOf ?? []), ...(s.anyOf ?? [])]) walk(sub, at);
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
      if (!v || typeof v !== 'object') continue;
      out.push({ at: [...at, k], schema: v });
      if (nested && schemaType(mergeAllOf(v)) === 'object') walk(v, [...at, k]);
    }
  };
  walk(op.body?.schema, []);
  return out;
}

/** Names a request body lets clients write (not readOnly), at any depth. */
function declaredWritable(op: Operation): Set<string> {
  return new Set(
    bodyProperties(op)
      .filter((p) => !p.schema.readOnly)
      .map((p) => p.at.at(-1)!),
  );
}

/**
 * Where a body keeps the resource's own fields: the object holding most of its string and number
 * fields (`["user"]` for `{"user": {...}}`, `["data", "attributes"]` for JSON:API; the deeper on a
 * tie), `[]` for a flat body.
 */
export function resourcePlace(op: Operation): string[] {
  const counts = new Map<string, { at: string[]; n: number }>();
  for (const p of injectionPoints(op)) {
    if (p.kind !== 'body' || !p.at) continue;
    const at = p.at.slice(0, -1);
    const key = JSON.stringify(at);
    counts.set(key, { at, n: (counts.get(key)?.n ?? 0) + 1 });
  }
  const flat = injectionPoints(op).filter((p) => p.kind === 'body' && !p.at).length;
  let best = { at: [] as string[], n: flat };
  for (const c of counts.values()) if (c.n > best.n || (c.n === best.n && c.at.length > best.at.length)) best = c;
  return best.at;
}

/** Privileged properties to inject all at once: those the request schema does not let the client write. */
export function undeclaredExtras(ctx: CheckContext, op: Operation): Record<string, unknown> {
  const props = specProperties(ctx);
  const writable = declaredWritable(op);
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

/** One declared privileged property set to one value: what one request of the check carries. */
export interface Probe {
  /** Keys from the top of the body (`["data", "attributes", "roles"]`). */
  at: string[];
  value: unknown;
}

export const probeName = (p: Probe) => p.at.join('.');
export const probeKey = (p: Probe) => p.at.at(-1)!;

/**
 * The declared properties of a registration or self-update that grant privileges, each with the
 * values to try, one request each: `true` for a flag; for a role (or a list of roles) the privileged
 * values of its enum (none when its enum holds only harmless roles, such as `buyer`/`seller`: the
 * account's own choice), else privileged roles seen in the target's answers, else privileged words in
 * the spelling of the roles it uses (`seen`: values the account has now, such as `ROLE_USER`).
 */
export function declaredProbes(ctx: CheckContext, op: Operation, seen: (key: string) => unknown[] = () => []): Probe[] {
  const out: Probe[] = [];
  for (const { at, schema } of bodyProperties(op)) {
    const key = at.at(-1)!;
    if (schema.readOnly || !isPrivilegeName(key)) continue;
    const s = mergeAllOf(schema);
    const type = schemaType(s);
    if (type === 'boolean') {
      out.push({ at, value: true });
      continue;
    }
    if (!ROLE_NAME.test(words(key).at(-1) ?? '')) continue;
    const list = type === 'array';
    const item = list ? mergeAllOf(s.items ?? {}) : s;
    if (schemaType(item) !== undefined && schemaType(item) !== 'string') continue;
    for (const v of roleValues(ctx, key, item, seen(key))) out.push({ at, value: list ? [v] : v });
  }
  return out;
}

/** Privileged values for a role property: its enum's, else the target's own, else privileged words in its spelling. */
export function roleValues(ctx: CheckContext, key: string, schema: JsonSchema, seen: unknown[]): string[] {
  if (Array.isArray(schema.enum))
    return schema.enum
      .map(String)
      .filter((v) => PRIVILEGED_ROLE.test(v))
      .slice(0, MAX_ROLE_VALUES);
  const known = [...seen.flat(), ...ctx.values(key).map((v) => v.value), ...ctx.values('role').map((v) => v.value)].filter(
    (v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 40,
  );
  const out = new Set(known.filter((v) => PRIVILEGED_ROLE.test(v)));
  const model = known.find((v) => !PRIVILEGED_ROLE.test(v));
  for (const w of ROLE_WORDS) out.add(inSpellingOf(model, w));
  return [...out].slice(0, MAX_ROLE_VALUES);
}

/**
 * Role words spelt the way the target spells its roles: `ROLE_USER` -> `ROLE_ADMIN`, `Member` ->
 * `Admin`/`SuperUser`, `MEMBER` -> `ADMIN`, `member` or nothing known -> `admin`/`superuser`.
 */
export function inSpellingOf(model: string | undefined, parts: string[]): string {
  const prefix = model ? (/^(role[_-]|ROLE[_-]|Role[_-]?)(?=[A-Za-z])/.exec(model)?.[1] ?? '') : '';
  const rest = model?.slice(prefix.length) ?? '';
  if (rest && rest === rest.toUpperCase() && /[A-Z]/.test(rest)) return prefix + parts.join(rest.includes('_') ? '_' : '').toUpperCase();
  if (/^[A-Z]/.test(rest)) return prefix + parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('');
  return prefix + parts.join(rest.includes('_') ? '_' : '');
}
