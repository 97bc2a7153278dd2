/**
 * Request synthesis: a valid request per operation from the spec. Examples first, then schema
 * (types, formats, enums, min/max, required properties); path/query/header/cookie parameters;
 * JSON, form and multipart bodies.
 */
import type { Overrides, JsonSchema, Operation, ParamSpec, RequestSpec } from './types.js';
export type { Overrides };

const MAX_DEPTH = 6;

export function mergeAllOf(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.allOf)) return schema;
  const out: JsonSchema = { ...schema };
  delete out.allOf;
  const props: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
  const required = new Set<string>(schema.required ?? []);
  for (const part of schema.allOf as JsonSchema[]) {
    const p = mergeAllOf(part ?? {});
    Object.assign(props, p.properties ?? {});
    for (const r of p.required ?? []) required.add(r);
    for (const [k, v] of Object.entries(p)) if (!['properties', 'required'].includes(k) && out[k] === undefined) out[k] = v;
  }
  if (Object.keys(props).length) out.properties = props;
  if (required.size) out.required = [...required];
  return out;
}

/** The effective type of a schema (3.1 type arrays and 3.0 nullable folded in). */
export function schemaType(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') ?? t[0];
  if (typeof t === 'string') return t;
  if (schema.properties || schema.additionalProperties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function stringForFormat(format: string | undefined, name: string): string | undefined {
  switch (format) {
    case 'email':
      return 'vigil.user@example.com';
    case 'uuid':
      return '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    case 'date-time':
      return '2024-01-15T10:30:00Z';
    case 'date':
      return '2024-01-15';
    case 'time':
      return '10:30:00Z';
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
      return 'https://example.com/resource';
    case 'hostname':
      return 'example.com';
    case 'ipv4':
      return '93.184.216.34';
    case 'ipv6':
      return '2001:4860:4860::8888';
    case 'byte':
      return Buffer.from('vigil').toString('base64');
    case 'binary':
      return 'vigil-file-content';
    case 'password':
      return 'Vigil-Passw0rd!';
    case 'int32':
    case 'int64':
      return '1';
  }
  if (/e-?mail/i.test(name)) return 'vigil.user@example.com';
  if (/(^|_)(url|uri|link|website|callback)$/i.test(name)) return 'https://example.com/resource';
  if (/password/i.test(name)) return 'Vigil-Passw0rd!';
  if (/phone/i.test(name)) return '+15555550100';
  return undefined;
}

function fitLength(s: string, schema: JsonSchema): string {
  let out = s;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  while (out.length < min) out += 'x';
  if (out.length > max) out = out.slice(0, max);
  return out;
}

function stringForPattern(pattern: string, schema: JsonSchema): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  const candidates = ['vigil', 'abc123', 'ABC', 'a', '1', '123', 'abc', 'A1', 'a-b', 'abc_1', '12345', 'ab12', 'AB12', 'x1y2z3', '2024-01-15'];
  for (const c of candidates) {
    const v = fitLength(c, schema);
    if (re.test(v)) return v;
  }
  return undefined;
}

function numberFor(schema: JsonSchema, integer: boolean): number {
  let min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  let max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + (integer ? 1 : 0.5);
  else if (schema.exclusiveMinimum === true && min !== undefined) min += integer ? 1 : 0.5;
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - (integer ? 1 : 0.5);
  else if (schema.exclusiveMaximum === true && max !== undefined) max -= integer ? 1 : 0.5;
  let v = 1;
  if (min !== undefined && v < min) v = min;
  if (max !== undefined && v > max) v = max;
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    v = Math.ceil(v / schema.multipleOf) * schema.multipleOf;
    if (max !== undefined && v > max) v -= schema.multipleOf;
  }
  return integer ? Math.round(v) : v;
}

export interface SynthOptions {
  /** request: skip readOnly properties; response: skip writeOnly ones. */
  direction?: 'request' | 'response';
  /** Include optional object properties (default true). */
  optional?: boolean;
}

/** A valid value for `schema`: example, default, enum, const, then generated from type and format. */
export function sampleValue(schema: JsonSchema | undefined, name = '', opts: SynthOptions = {}, depth = 0, seen = new Set<object>()): unknown {
  if (!schema || typeof schema !== 'object') return 'vigil';
  if (seen.has(schema) || depth > MAX_DEPTH) return undefined;
  const s = mergeAllOf(schema);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  // A null default (Pydantic's optional fields) says the field may be left out, not what a real value looks like.
  if (s.default !== undefined && s.default !== null) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((e: unknown) => e !== null) ?? s.enum[0];
  const alt = s.oneOf ?? s.anyOf;
  if (Array.isArray(alt) && alt.length) {
    const pick = alt.find((a: JsonSchema) => schemaType(a ?? {}) !== 'null') ?? alt[0];
    return sampleValue(pick, name, opts, depth + 1, seen);
  }
  const type = schemaType(s);
  seen.add(schema);
  try {
    switch (type) {
      case 'integer':
        return numberFor(s, true);
      case 'number':
        return numberFor(s, false);
      case 'boolean':
        return true;
      case 'null':
        return null;
      case 'array': {
        const count = Math.max(1, typeof s.minItems === 'number' ? s.minItems : 1);
        const item = sampleValue(s.items ?? {}, name, opts, depth + 1, seen);
        if (item === undefined) return [];
        const items = Array.from({ length: Math.min(count, 5) }, () => item);
        return s.uniqueItems && items.length > 1 ? [item] : items;
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        const required = new Set<string>(s.required ?? []);
        for (const [key, propSchema] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
          const ps = propSchema ?? {};
          if (opts.direction !== 'response' && ps.readOnly && !required.has(key)) continue;
          if (opts.direction === 'response' && ps.writeOnly) continue;
          if (opts.optional === false && !required.has(key)) continue;
          const v = sampleValue(ps, key, opts, depth + 1, seen);
          if (v !== undefined) out[key] = v;
        }
        if (Object.keys(out).length === 0 && s.additionalProperties && typeof s.additionalProperties === 'object') {
          const v = sampleValue(s.additionalProperties, 'key', opts, depth + 1, seen);
          if (v !== undefined) out.key = v;
        }
        return out;
      }
      default: {
        const byFormat = stringForFormat(s.format, name);
        if (byFormat !== undefined) return fitLength(byFormat, s);
        if (typeof s.pattern === 'string') {
          const p = stringForPattern(s.pattern, s);
          if (p !== undefined) return p;
        }
        if (type === undefined && depth > 0 && !s.format && !s.pattern) return 'vigil';
        return fitLength(/id$/i.test(name) ? '1' : 'vigil', s);
      }
    }
  } finally {
    seen.delete(schema);
  }
}

export function paramValue(p: ParamSpec): unknown {
  if (p.example !== undefined) return p.example;
  return sampleValue(p.schema, p.name);
}

/** Serialises a parameter value to its wire string (form style, explode for arrays of primitives handled by caller). */
export function toWire(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(toWire).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function encodeForm(body: Record<string, unknown>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) for (const item of v) sp.append(k, toWire(item));
    else sp.append(k, toWire(v));
  }
  return sp.toString();
}

export function encodeMultipart(body: Record<string, unknown>, boundary: string): string {
  let out = '';
  for (const [k, v] of Object.entries(body)) {
    out += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${toWire(v)}\r\n`;
  }
  return out + `--${boundary}--\r\n`;
}

/** Default JSON/form body value of an operation (example first, then schema). */
export function sampleBody(op: Operation, requiredOnly = false): unknown {
  if (!op.body) return undefined;
  if (op.body.example !== undefined && !requiredOnly) return structuredClone(op.body.example);
  return sampleValue(op.body.schema, 'body', { direction: 'request', optional: !requiredOnly });
}

/** The default request of each operation, built once (checks ask for it many times). */
const defaultRequests = new WeakMap<Operation, RequestSpec>();

/** Builds the concrete request for an operation (relative to the API base). */
export function buildRequest(op: Operation, o?: Overrides): RequestSpec {
  if (o === undefined) {
    let r = defaultRequests.get(op);
    if (!r) defaultRequests.set(op, (r = build(op, {})));
    // A copy callers may change freely.
    return { ...r, query: r.query.map(([k, v]) => [k, v] as [string, string]), headers: { ...r.headers } };
  }
  return build(op, o);
}

function build(op: Operation, o: Overrides): RequestSpec {
  let path = op.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.8' };
  const cookies: string[] = [];
  for (const p of op.params) {
    if (p.in === 'path') {
      const raw = o.path?.[p.name] ?? toWire(paramValue(p));
      path = path.replaceAll(`{${p.name}}`, encodeURIComponent(raw).replace(/%2C/gi, ','));
      continue;
    }
    if (p.in === 'query') {
      if (o.query && p.name in o.query) {
        const v = o.query[p.name];
        if (v !== undefined) query.push([p.name, v]);
        continue;
      }
      // Optional parameters are mostly filters (tag, author, q, status): a value made up here would
      // filter a list down to nothing, so the scan would never see the target's data. Checks that test
      // an optional parameter set it explicitly (inject), leaving the other filters out.
      if (!p.required) continue;
      const v = paramValue(p);
      if (v === undefined) continue;
      if (Array.isArray(v) && p.schema && (p as any).explode !== false) for (const item of v) query.push([p.name, toWire(item)]);
      else query.push([p.name, toWire(v)]);
      continue;
    }
    if (p.in === 'header') {
      if (/^(accept|content-type|authorization)$/i.test(p.name)) continue;
      if (!p.required && o.headers?.[p.name] === undefined) continue;
      headers[p.name.toLowerCase()] = o.headers?.[p.name] ?? toWire(paramValue(p));
      continue;
    }
    if (p.in === 'cookie') {
      if (!p.required) continue;
      cookies.push(`${p.name}=${encodeURIComponent(toWire(paramValue(p)))}`);
    }
  }
  if (cookies.length) headers.cookie = cookies.join('; ');
  if (o.extraQuery) query.push(...o.extraQuery);
  for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;

  let body: string | Buffer | undefined;
  if (o.rawBody !== undefined) {
    body = o.rawBody;
    headers['content-type'] = o.contentType ?? op.body?.contentType ?? 'application/json';
  } else if (op.body || o.body !== undefined) {
    const value = o.body !== undefined ? o.body : sampleBody(op, o.requiredOnly);
    const ct = o.contentType ?? op.body?.contentType ?? 'application/json';
    if (/json/i.test(ct)) {
      body = JSON.stringify(value ?? {});
      headers['content-type'] = ct.includes(';') ? ct : 'application/json';
    } else if (/x-www-form-urlencoded/i.test(ct)) {
      body = encodeForm((value ?? {}) as Record<string, unknown>);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (/multipart/i.test(ct)) {
      const boundary = 'vigil-boundary-7d3f';
      body = encodeMultipart((value ?? {}) as Record<string, unknown>, boundary);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    } else {
      body = typeof value === 'string' ? value : JSON.stringify(value ?? '');
      headers['content-type'] = ct;
    }
  }
  return { method: o.method ?? op.method, path, query, headers, body };
}

/** Where an injectable value can go: a parameter, or a string/number field of the JSON/form body at any depth. */
export interface InjectionPoint {
  kind: 'path' | 'query' | 'header' | 'body';
  /** A parameter's name; a body field's dotted path (`email`, `user.email`, `data.attributes.title`). */
  name: string;
  /** A body field inside an envelope (`{"user": {...}}`, JSON:API `data.attributes`): its keys from the top. */
  at?: string[];
  schema: JsonSchema;
  /** The valid value used in the baseline. */
  value: string;
}

const pointsCache = new WeakMap<Operation, InjectionPoint[]>();

/** Injection points of an operation (computed once per operation; treat as read-only). */
export function injectionPoints(op: Operation): InjectionPoint[] {
  let cached = pointsCache.get(op);
  if (!cached) pointsCache.set(op, (cached = computePoints(op)));
  return cached;
}

function computePoints(op: Operation): InjectionPoint[] {
  const out: InjectionPoint[] = [];
  for (const p of op.params) {
    if (p.in === 'cookie') continue;
    if (p.in === 'header' && /^(accept|content-type|authorization)$/i.test(p.name)) continue;
    const t = schemaType(p.schema) ?? 'string';
    if (t === 'object' || t === 'array' || t === 'boolean') continue;
    out.push({ kind: p.in as InjectionPoint['kind'], name: p.name, schema: p.schema, value: toWire(paramValue(p)) });
  }
  if (op.body && /json|form/i.test(op.body.contentType)) {
    const value = sampleBody(op);
    // Enveloped bodies (`{"user": {...}}`, `{"data": {"attributes": {...}}}`): fields at any depth of a JSON body.
    const nested = /json/i.test(op.body.contentType);
    const walk = (node: Record<string, unknown>, schema: JsonSchema, at: string[]) => {
      const s = mergeAllOf(schema ?? {});
      for (const [k, v] of Object.entries(node)) {
        const propSchema = ((s.properties ?? {}) as Record<string, JsonSchema>)[k];
        if (typeof v === 'string' || typeof v === 'number') {
          const path = [...at, k];
          out.push({ kind: 'body', name: path.join('.'), ...(at.length ? { at: path } : {}), schema: propSchema ?? { type: typeof v }, value: String(v) });
        } else if (nested && v && typeof v === 'object' && !Array.isArray(v) && at.length < MAX_DEPTH) {
          walk(v as Record<string, unknown>, propSchema ?? {}, [...at, k]);
        }
      }
    };
    if (value && typeof value === 'object' && !Array.isArray(value)) walk(value as Record<string, unknown>, op.body.schema, []);
  }
  return out;
}

/** The keys of a body point from the top of the body. */
export function pointKeys(point: InjectionPoint): string[] {
  return point.at ?? [point.name];
}

/** The value at `keys` in a JSON object (undefined when any level is missing). */
export function getAt(body: Record<string, unknown> | undefined, keys: string[]): unknown {
  let node: unknown = body;
  for (const k of keys) node = node && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[k] : undefined;
  return node;
}

/** A copy of `body` with `value` at `keys` (each enclosing object copied, missing ones created). */
export function setAt(body: Record<string, unknown>, keys: string[], value: unknown): Record<string, unknown> {
  const [first, ...rest] = keys;
  if (!rest.length) return { ...body, [first]: value };
  const inner = body[first];
  return { ...body, [first]: setAt(inner && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {}, rest, value) };
}

/** Overrides that put `value` at an injection point (body fields keep their siblings). */
export function inject(op: Operation, point: InjectionPoint, value: unknown): Overrides {
  switch (point.kind) {
    case 'path':
      return { path: { [point.name]: String(value) } };
    case 'query':
      return { query: { [point.name]: String(value) } };
    case 'header':
      return { headers: { [point.name]: String(value) } };
    case 'body': {
      return { body: setAt((sampleBody(op) ?? {}) as Record<string, unknown>, pointKeys(point), value) };
    }
  }
}

export function describePoint(point: InjectionPoint): string {
  return point.kind === 'body' ? `body field ${point.name}` : `${point.kind} parameter ${point.name}`;
}
