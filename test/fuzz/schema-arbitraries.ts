/**
 * fast-check arbitraries from the JSON Schemas of Vigil's OpenAPI document: valid values, values at and
 * just past the documented limits, wrong types, huge values and hostile unicode. Only the keywords the
 * document uses are understood (type, enum, min/maxLength, pattern, format, minimum/maximum, maxItems,
 * uniqueItems, properties, required, additionalProperties).
 *
 * A mutation says whether it breaks the document (`invalid`): only values that stay invalid after
 * Ajv's type coercion (coerceTypes: 'array') are claimed, so a 2xx answer to them is a real fault.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;
export type PathKey = string | number;

/** A JSON token written verbatim: numbers JavaScript cannot hold (1e400), deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written entry by entry, so duplicate keys and `__proto__` as an own key reach the wire. */
export class JsonEntries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonEntries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') return jsonText(new JsonEntries(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

export interface Mutation {
  value: unknown;
  invalid: boolean;
  note: string;
}

// Every URL the fuzzer generates points at a closed loopback port: notifications and scans never leave the machine.
const URL_PREFIX = 'http://127.0.0.1:1/';
const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/);
export const loopbackUrl = fc
  .tuple(fc.constantFrom('http://127.0.0.1:1/', 'https://localhost:1/', 'http://[::1]:1/'), segment)
  .map(([base, path]) => base + path);

const TINY_SPEC = JSON.stringify({
  openapi: '3.0.0',
  info: { title: 'fuzz', version: '1' },
  paths: { '/items': { get: { responses: { 200: { description: 'ok' } } } } },
});
export const tinySpecBase64 = Buffer.from(TINY_SPEC).toString('base64');
export const tinySpec = TINY_SPEC;

const isUrlLike = (schema: Schema, name: string) => schema.format === 'uri' || /(^|_)url$/.test(name);

/** Control characters, bidi overrides, astral and combining characters, lone surrogates, BOM, separators, injection text. */
export const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0001\u0008\u001b[31m\u007f',
  '\r\n',
  '\u202eevil\u202c\u200f',
  '\ud83d\ude00 \ud835\udd4d',
  '\ud800',
  'x\udc00y',
  '\ufeffbom',
  '\u2028\u2029',
  'e\u0301\u0327',
  '\uffff\ufffe',
  '\uff21\uff22',
  '%00%2e%2e%2f',
  '../../../../etc/passwd',
  "' OR '1'='1' --",
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
];
const anyUtf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 });
export const nastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), anyUtf16);

function fill(schema: Schema, name: string, length: number): string {
  if (isUrlLike(schema, name) && length >= URL_PREFIX.length) return URL_PREFIX + 'a'.repeat(length - URL_PREFIX.length);
  if (schema.format === 'email' && length >= 8) return 'a'.repeat(length - 7) + '@x.test';
  return 'a'.repeat(length);
}

/** Values valid under `schema`; `name` is the property name (URL-like names get loopback URLs). */
export function validOf(schema: Schema, name = ''): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? Infinity;
      if (isUrlLike(schema, name)) return loopbackUrl;
      if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= max);
      if (schema.format === 'binary') return fc.constant(TINY_SPEC);
      if (name === 'spec_content') return fc.constant(tinySpecBase64);
      if (name === 'pages') return segment.map((p) => `/${p}`);
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
      return fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 24)) });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? (schema.minimum ?? 0) + 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const max = Math.min(schema.maxItems ?? 3, 3);
      return schema.uniqueItems
        ? fc.uniqueArray(validOf(schema.items ?? {}, name), { maxLength: max })
        : fc.array(validOf(schema.items ?? {}, name), { maxLength: max });
    }
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validOf(s, k)])), { requiredKeys: schema.required ?? [] });
      if (typeof schema.additionalProperties !== 'object') return record;
      const extra = fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/), validOf(schema.additionalProperties, name), { maxKeys: 2 });
      return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const claim = (value: unknown, invalid: boolean, note: string): Mutation => ({ value, invalid, note });

/** At and just past the documented limits. */
export function boundaryOf(schema: Schema, name = ''): fc.Arbitrary<Mutation> {
  const out: Mutation[] = [];
  if (schema.enum) out.push(claim(`${schema.enum[0]}x`, true, 'not in enum'), claim(String(schema.enum[0]).toUpperCase() + '_', true, 'not in enum'));
  else if (schema.type === 'string') {
    if (schema.maxLength !== undefined)
      out.push(claim(fill(schema, name, schema.maxLength), false, 'maxLength'), claim(fill(schema, name, schema.maxLength + 1), true, 'maxLength+1'));
    if (schema.minLength)
      out.push(claim(fill(schema, name, schema.minLength), false, 'minLength'), claim(fill(schema, name, schema.minLength - 1), true, 'minLength-1'));
    out.push(claim('', Boolean(schema.minLength), 'empty'), claim(' ', false, 'space'));
  } else if (schema.type === 'integer' || schema.type === 'number') {
    const step = schema.type === 'integer' ? 1 : 0.001;
    if (schema.minimum !== undefined) out.push(claim(schema.minimum, false, 'minimum'), claim(schema.minimum - step, true, 'minimum-1'));
    if (schema.maximum !== undefined) out.push(claim(schema.maximum, false, 'maximum'), claim(schema.maximum + step, true, 'maximum+1'));
    if (schema.type === 'integer') out.push(claim(1.5, true, 'fraction'), claim(2 ** 31, schema.maximum !== undefined && schema.maximum < 2 ** 31, '2^31'));
    out.push(
      claim(2 ** 53 + 2, schema.maximum !== undefined, '2^53+2'),
      claim(new RawJson('99999999999999999999'), schema.maximum !== undefined, '1e20 literal'),
      claim(new RawJson('1e400'), schema.maximum !== undefined, '1e400'),
      claim(new RawJson('-1e400'), schema.minimum !== undefined, '-1e400'),
      claim(-0, schema.minimum !== undefined && schema.minimum > 0, '-0'),
    );
  } else if (schema.type === 'array') {
    const item = validOf(schema.items ?? {}, name);
    if (schema.maxItems !== undefined) {
      return fc.oneof(
        fc.array(item, { minLength: schema.maxItems, maxLength: schema.maxItems }).map((v) => claim(v, false, 'maxItems')),
        fc.array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }).map((v) => claim(v, !schema.uniqueItems, 'maxItems+1')),
        fc.constant(claim([], false, 'empty array')),
      );
    }
    if (schema.uniqueItems) return item.map((v) => claim([v, v], true, 'duplicate items'));
    out.push(claim([], false, 'empty array'));
  } else if (schema.type === 'object') {
    const required: string[] = schema.required ?? [];
    return validOf(schema, name).chain((base) => {
      const choices: Mutation[] = [claim({}, required.length === 0 ? false : true, 'empty object')];
      for (const key of required) {
        const { [key]: _dropped, ...rest } = base as Record<string, unknown>;
        choices.push(claim(rest, true, `without required ${key}`));
      }
      if (schema.additionalProperties === false) choices.push(claim({ ...(base as object), fuzz_unknown: 1 }, true, 'unknown property'));
      return fc.constantFrom(...choices);
    });
  }
  // Ajv's coercion turns null into false, 0 or "" (and wraps it for arrays): only an object cannot take it.
  if (out.length === 0) out.push(claim(null, schema.type === 'object', 'null'));
  return fc.constantFrom(...out);
}

/** Values of another JSON type; `invalid` only where Ajv's coercion cannot turn them into the right type. */
export function wrongTypeOf(schema: Schema): fc.Arbitrary<Mutation> {
  const object = claim({ a: 1 }, !['object'].includes(schema.type) && schema.type !== undefined, 'object');
  const pair = claim([1, 2], !['array'].includes(schema.type) && schema.type !== undefined, 'array of two');
  const text = claim('not-a-number', ['integer', 'number', 'boolean', 'object'].includes(schema.type), 'string');
  const choices = [
    object,
    pair,
    text,
    claim(null, schema.type === 'object', 'null'),
    claim(true, schema.type === 'object', 'true'),
    claim(7, schema.type === 'object', 'number'),
  ];
  if (schema.type === 'boolean') choices.push(claim(2, true, '2 for boolean'));
  // Ajv coerces any string Number() reads ("0x10" is 16, " 1" is 1), so only a fraction is surely wrong.
  if (schema.type === 'integer') choices.push(claim('1.5', true, '"1.5"'), claim('0x10', false, '"0x10"'));
  return fc.constantFrom(...choices);
}

/** Large strings and arrays, and deep nesting (written verbatim so serialisation does not recurse). */
export function hugeOf(schema: Schema): fc.Arbitrary<Mutation> {
  const overLength = (n: number) => schema.type === 'string' && schema.maxLength !== undefined && n > schema.maxLength;
  const notNestable = schema.type !== undefined;
  return fc.oneof(
    fc
      .constantFrom(2_049, 70_000, 400_000)
      .map((n) => claim('a'.repeat(n), overLength(n) || (schema.type !== 'string' && schema.type !== undefined && schema.type !== 'array'), `string of ${n}`)),
    fc.constantFrom(101, 10_000).map((n) =>
      claim(
        Array.from({ length: n }, () => 'a'),
        schema.type === 'array' ? (schema.maxItems ?? Infinity) < n : notNestable,
        `array of ${n}`,
      ),
    ),
    fc.constantFrom(1_000, 50_000).map((depth) => claim(new RawJson('['.repeat(depth) + ']'.repeat(depth)), notNestable, `${depth} nested arrays`)),
    fc.constantFrom(1_000, 20_000).map((depth) => claim(new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)), notNestable, `${depth} nested objects`)),
  );
}

/** Hostile unicode, alone or after a valid value (so URL-like fields still point at loopback). */
export function unicodeOf(schema: Schema, name = ''): fc.Arbitrary<Mutation> {
  return fc.oneof(
    nastyString.map((s) => claim(s, false, `unicode ${JSON.stringify(s).slice(0, 30)}`)),
    fc
      .tuple(validOf(schema, name), nastyString)
      .map(([v, s]) => claim(typeof v === 'string' ? v + s : s, false, `valid + unicode ${JSON.stringify(s).slice(0, 30)}`)),
  );
}

export interface Location {
  path: PathKey[];
  schema: Schema;
  name: string;
}

/** Every place in a value of `schema`: the root, each property, the first item of each array. */
export function locationsOf(schema: Schema, path: PathKey[] = [], name = ''): Location[] {
  const out: Location[] = [{ path, schema, name }];
  for (const [key, child] of Object.entries<Schema>(schema.properties ?? {})) out.push(...locationsOf(child, [...path, key], key));
  if (typeof schema.additionalProperties === 'object') out.push(...locationsOf(schema.additionalProperties, [...path, 'X-Fuzz'], name));
  if (schema.type === 'array' && schema.items) out.push(...locationsOf(schema.items, [...path, 0], name));
  return out;
}

/** A copy of `root` with `value` at `path`, creating the containers on the way. */
export function setAt(root: unknown, path: PathKey[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [PathKey, ...PathKey[]];
  const container: any = Array.isArray(root)
    ? [...root]
    : root !== null && typeof root === 'object' && !(root instanceof RawJson)
      ? { ...root }
      : typeof head === 'number'
        ? []
        : {};
  container[head] = setAt(container[head], rest, value);
  return container;
}
