/**
 * Requests for every operation of an OpenAPI document, as fast-check arbitraries: valid, at and past
 * the limits, wrong types, huge, hostile unicode, prototype keys, duplicate keys, malformed bodies, bad
 * content types, bad path values, odd headers, other keys. A request is a draft: which key to send is
 * resolved when it is sent (the key may have been rotated), and so is a webhook signature.
 */
import fc from 'fast-check';
import {
  JsonEntries,
  RawJson,
  boundaryOf,
  hugeOf,
  jsonText,
  locationsOf,
  loopbackUrl,
  nastyString,
  setAt,
  tinySpec,
  unicodeOf,
  validOf,
  wrongTypeOf,
  type Mutation,
  type Schema,
} from './schema-arbitraries.js';

export interface Param {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  path: string;
  params: Param[];
  body?: { kind: 'json' | 'multipart'; schema: Schema };
  auth: 'key' | 'sync' | 'public';
}

/** Which credentials a request carries; resolved at send time. */
export type KeyChoice = 'enterprise' | 'free' | 'none' | 'malformed' | 'unknown' | 'bearer' | 'duplicate' | 'sync' | 'sync-wrong' | 'signed';

export interface Draft {
  op: string;
  category: string;
  note: string;
  method: string;
  /** The request-target exactly as sent (already encoded, or deliberately not). */
  target: string;
  headers: Array<[string, string]>;
  key: KeyChoice;
  body: Buffer;
  contentType?: string;
  /** The request breaks a documented limit: a 2xx answer is a fault. */
  expectRefusal: boolean;
}

/** What the generator may use besides the document: ids that exist, and the tenants. */
export interface Pools {
  scanIds: string[];
  tenantIds: string[];
  /** The JSON start-scan schema, whose fields the multipart upload takes as form fields. */
  scanSchema: Schema;
  specMaxBytes: number;
  bodyLimitBytes: number;
}

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const content = op.requestBody?.content ?? {};
      const body = content['application/json']
        ? { kind: 'json' as const, schema: content['application/json'].schema }
        : content['multipart/form-data']
          ? { kind: 'multipart' as const, schema: content['multipart/form-data'].schema }
          : undefined;
      const security: Array<Record<string, unknown>> = op.security ?? doc.security ?? [];
      const names = security.flatMap((s) => Object.keys(s));
      const declaresSignature = (op.parameters ?? []).some((p: Param) => p.in === 'header' && p.name === 'provider-signature');
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body,
        auth: names.includes('SyncKey') ? 'sync' : names.includes('ApiKey') && !declaresSignature ? 'key' : 'public',
      });
    }
  }
  return ops;
}

/** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD, where encodeURIComponent would throw). */
const enc = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

function keyChoice(op: Operation): fc.Arbitrary<KeyChoice> {
  const others = (['none', 'malformed', 'unknown', 'bearer', 'duplicate'] as const).map((k) => ({ weight: 1, arbitrary: fc.constant<KeyChoice>(k) }));
  if (op.auth === 'sync')
    return fc.oneof({ weight: 12, arbitrary: fc.constant<KeyChoice>('sync') }, { weight: 2, arbitrary: fc.constant<KeyChoice>('sync-wrong') }, ...others);
  return fc.oneof({ weight: 14, arbitrary: fc.constant<KeyChoice>('enterprise') }, { weight: 3, arbitrary: fc.constant<KeyChoice>('free') }, ...others);
}

function paramValue(param: Param, pools: Pools): fc.Arbitrary<string> {
  const valid = validOf(param.schema, param.name).map(String);
  if (param.in === 'path' && /id$/.test(param.name) && pools.scanIds.length > 0) return fc.oneof(fc.constantFrom(...pools.scanIds), valid);
  if (param.name === 'tenant') return fc.oneof(fc.constantFrom(...pools.tenantIds), valid);
  return valid;
}

interface Parts {
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Array<[string, string]>;
  body?: unknown;
}

/** Valid values for every declared parameter (optional ones half the time) and a valid body. */
function validParts(op: Operation, pools: Pools): fc.Arbitrary<Parts> {
  const params = op.params.map((p) =>
    p.required || p.in === 'path'
      ? paramValue(p, pools).map((v) => [p, v] as const)
      : fc.option(
          paramValue(p, pools).map((v) => [p, v] as const),
          { nil: undefined },
        ),
  );
  const generated = op.body?.kind === 'json' ? validOf(op.body.schema) : op.body?.kind === 'multipart' ? validOf(pools.scanSchema) : fc.constant(undefined);
  // Now and then a body names an existing tenant (sync-tenant for the victim's id must be 409 and change nothing).
  const body = fc
    .tuple(generated, fc.option(fc.constantFrom(...pools.tenantIds), { freq: 4, nil: undefined }))
    .map(([b, tenant]) => (tenant && b !== null && typeof b === 'object' && 'tenant_id' in b ? { ...b, tenant_id: tenant } : b));
  return fc.tuple(fc.tuple(...params), body).map(([values, b]) => {
    const parts: Parts = { path: {}, query: [], headers: [], body: b };
    for (const entry of values) {
      if (!entry) continue;
      const [p, v] = entry;
      if (p.in === 'path') parts.path[p.name] = enc(v);
      else if (p.in === 'query') parts.query.push([p.name, v]);
      else parts.headers.push([p.name, v]);
    }
    return parts;
  });
}

function target(op: Operation, parts: Parts, rawQuery?: string): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => parts.path[name] ?? 'x');
  const query = rawQuery ?? parts.query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  return query ? `${path}?${query}` : path;
}

// ---- bodies -------------------------------------------------------------------------------------

const BOUNDARY = 'fuzzboundary7MA4YWxkTrZu0gW';

interface FormPart {
  name: string;
  value: string | Buffer;
  filename?: string;
}

export function multipartBody(parts: FormPart[], boundary = BOUNDARY, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename ? 'Content-Type: application/json\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`, 'utf8'), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const formText = (value: unknown) => (typeof value === 'string' ? value : jsonText(value));

/** A start-scan body as the upload's form: `url` becomes `base_url`, auth and options JSON text or dotted names. */
function scanForm(body: unknown, dotted: boolean): FormPart[] {
  const parts: FormPart[] = [{ name: 'spec_file', value: tinySpec, filename: 'spec.json' }];
  if (body === null || typeof body !== 'object' || Array.isArray(body) || body instanceof RawJson)
    return [...parts, { name: 'base_url', value: formText(body) }];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'spec_content') continue;
    const name = key === 'url' ? 'base_url' : key;
    if (dotted && value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson)) {
      for (const [sub, v] of Object.entries(value)) {
        if (Array.isArray(v)) for (const item of v) parts.push({ name: `${name}.${sub}`, value: formText(item) });
        else parts.push({ name: `${name}.${sub}`, value: formText(v) });
      }
    } else parts.push({ name, value: formText(value) });
  }
  return parts;
}

function draft(op: Operation, category: string, note: string, parts: Parts, key: KeyChoice, extra: Partial<Draft> = {}): Draft {
  let body: Buffer = Buffer.alloc(0);
  let contentType: string | undefined;
  if (parts.body !== undefined && op.body?.kind === 'json') {
    body = Buffer.from(jsonText(parts.body), 'utf8');
    contentType = 'application/json';
  } else if (parts.body !== undefined && op.body?.kind === 'multipart') {
    body = multipartBody(scanForm(parts.body, false));
    contentType = `multipart/form-data; boundary=${BOUNDARY}`;
  }
  return {
    op: `${op.method} ${op.path}`,
    category,
    note,
    method: op.method,
    target: target(op, parts),
    headers: parts.headers,
    key,
    body,
    contentType,
    expectRefusal: false,
    ...extra,
  };
}

// ---- categories -----------------------------------------------------------------------------------

type Category = (op: Operation, pools: Pools) => fc.Arbitrary<Draft> | undefined;

const valid: Category = (op, pools) => fc.tuple(validParts(op, pools), keyChoice(op)).map(([parts, key]) => draft(op, 'valid', 'valid values', parts, key));

/** One parameter or body field replaced by a mutation; the multipart upload mutates its JSON counterpart. */
function mutated(category: string, mutate: (schema: Schema, name: string) => fc.Arbitrary<Mutation>): Category {
  return (op, pools) => {
    const bodySchema = op.body?.kind === 'json' ? op.body.schema : op.body?.kind === 'multipart' ? pools.scanSchema : undefined;
    const targets: Array<{ param?: Param; path?: Array<string | number>; schema: Schema; name: string }> = [
      ...op.params.map((p) => ({ param: p, schema: p.schema, name: p.name })),
      ...(bodySchema ? locationsOf(bodySchema) : []),
    ];
    if (targets.length === 0) return undefined;
    return fc.tuple(validParts(op, pools), fc.constantFrom(...targets), fc.boolean(), keyChoice(op)).chain(([parts, where, dotted, key]) =>
      mutate(where.schema, where.name).map((m) => {
        const next: Parts = { ...parts, path: { ...parts.path }, query: [...parts.query], headers: [...parts.headers] };
        const where_ = where.param ? `${where.param.in} ${where.param.name}` : `body ${where.path!.join('.') || '(root)'}`;
        // Parameters are text: objects and arrays cannot be "wrong types" there, so they are sent as JSON text and not claimed.
        let invalid = m.invalid;
        if (where.param) {
          const text = typeof m.value === 'string' ? m.value : jsonText(m.value);
          invalid = invalid && (typeof m.value === 'string' || typeof m.value === 'number' || m.value instanceof RawJson);
          if (where.param.in === 'path') next.path[where.param.name] = enc(text);
          else if (where.param.in === 'query') next.query = [...next.query.filter(([k]) => k !== where.param!.name), [where.param.name, text]];
          else next.headers = [...next.headers.filter(([k]) => k !== where.param!.name), [where.param.name, text.replace(/[\r\n]/g, ' ')]];
        } else next.body = setAt(parts.body, where.path!, m.value);
        const d = draft(op, category, `${where_}: ${m.note}`, next, key);
        if (op.body?.kind === 'multipart' && !where.param) {
          // Only auth/options travel as JSON text with their types intact; other fields become plain text.
          const typed = !dotted && ['auth', 'options'].includes(String(where.path![0]));
          invalid = invalid && typed;
          d.body = multipartBody(scanForm(next.body, dotted));
        }
        d.expectRefusal = invalid;
        return d;
      }),
    );
  };
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const protoPayload = fc.constantFrom<unknown>({ polluted: 'yes' }, { timeout: 5 }, { fail_on: 'low' }, { prototype: { polluted: 'yes' } }, 'yes', 1);

/** Prototype-bearing names as JSON keys (root or nested), query keys, header names and multipart field names. */
const protoKeys: Category = (op, pools) => {
  const bodySchema = op.body?.kind === 'json' ? op.body.schema : op.body?.kind === 'multipart' ? pools.scanSchema : undefined;
  const objectPaths = bodySchema
    ? locationsOf(bodySchema)
        .filter((l) => l.schema.type === 'object')
        .map((l) => l.path)
    : [];
  const query = fc
    .tuple(
      fc.constantFrom(...PROTO_KEYS),
      fc.constantFrom('', '[polluted]', '.polluted', '[prototype][polluted]', '.prototype.polluted'),
      fc.constantFrom('yes', '1', ''),
    )
    .map(([k, suffix, v]) => `${k}${suffix}=${v}`);
  return fc
    .tuple(validParts(op, pools), keyChoice(op), fc.array(query, { minLength: 1, maxLength: 3 }), fc.constantFrom(...PROTO_KEYS), protoPayload, fc.boolean())
    .chain(([parts, key, queryPairs, protoKey, payload, inQuery]) => {
      const rawQuery = [...parts.query.map(([k, v]) => `${enc(k)}=${enc(v)}`), ...queryPairs].join('&');
      if (inQuery || !bodySchema) {
        return fc.constant({ ...draft(op, 'proto-keys', `query ${queryPairs.join('&')}`, parts, key), target: target(op, parts, rawQuery) });
      }
      if (op.body?.kind === 'multipart') {
        const names = fc.constantFrom(
          `__proto__.${'timeout'}`,
          '__proto__.fail_on',
          '__proto__',
          'constructor.prototype.polluted',
          'options.__proto__.polluted',
          'auth.constructor.prototype.polluted',
          'prototype.polluted',
          'options.constructor',
        );
        return fc.tuple(names, fc.boolean()).map(([name, asJson]) => {
          const form = scanForm(parts.body, false);
          const extra = asJson
            ? { name: 'options', value: `{"${protoKey}": ${jsonText(payload)}}` }
            : { name, value: typeof payload === 'string' ? payload : jsonText(payload) };
          return { ...draft(op, 'proto-keys', `multipart field ${extra.name}=${extra.value}`, parts, key), body: multipartBody([...form, extra]) };
        });
      }
      return fc.constantFrom(...objectPaths).map((path) => {
        const withKey = setAt(parts.body, path, new JsonEntries([[protoKey, payload], ...Object.entries(pathValue(parts.body, path) ?? {})]));
        return { ...draft(op, 'proto-keys', `body ${path.join('.') || '(root)'} has "${protoKey}": ${jsonText(payload)}`, { ...parts, body: withKey }, key) };
      });
    });
};

function pathValue(root: unknown, path: Array<string | number>): Record<string, unknown> | undefined {
  let node: any = root;
  for (const key of path) node = node?.[key];
  return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson) ? node : undefined;
}

/** The same JSON key twice (valid then broken, or the reverse), a query parameter twice, a form field twice. */
const duplicates: Category = (op, pools) =>
  fc.tuple(validParts(op, pools), keyChoice(op), fc.boolean()).chain(([parts, key, brokenLast]): fc.Arbitrary<Draft> => {
    const d = draft(op, 'duplicate-keys', '', parts, key);
    const twiceQuery =
      parts.query.length > 0
        ? [...parts.query, [parts.query[0]![0], 'not-valid'] as [string, string]]
        : [['page', '1'] as [string, string], ['page', '2'] as [string, string]];
    if (op.body?.kind === 'json' && parts.body && typeof parts.body === 'object' && Object.keys(parts.body).length > 0) {
      const entries = Object.entries(parts.body as object);
      const [k, v] = entries[0]!;
      const pair: Array<[string, unknown]> = brokenLast
        ? [
            [k, v],
            [k, { broken: true }],
          ]
        : [
            [k, { broken: true }],
            [k, v],
          ];
      return fc.constant({ ...d, note: `JSON key ${k} twice`, body: Buffer.from(jsonText(new JsonEntries([...pair, ...entries.slice(1)]))) });
    }
    if (op.body?.kind === 'multipart') {
      const form = scanForm(parts.body, false);
      return fc.constant({
        ...d,
        note: 'base_url and mode twice',
        body: multipartBody([...form, { name: 'base_url', value: 'not a url' }, { name: 'mode', value: 'security' }, { name: 'mode', value: 'bogus' }]),
      });
    }
    return fc.constant({ ...d, note: `query ${twiceQuery.map(([k, v]) => `${k}=${v}`).join('&')}`, target: target(op, { ...parts, query: twiceQuery }) });
  });

const MALFORMED_JSON = [
  '{',
  '{"url":',
  '{"url":"http://127.0.0.1:1/"',
  '{"url" "x"}',
  "{'url': 'x'}",
  '{"a":1,}',
  '{"a":NaN}',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '{/* comment */}',
  '',
  '   ',
  'null',
  '[]',
  '"text"',
  '123',
  'true',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
];

/** Broken or truncated JSON, invalid UTF-8, or a broken multipart body. */
const malformed: Category = (op, pools) =>
  fc
    .tuple(validParts(op, pools), keyChoice(op), fc.nat(), fc.constantFrom(...MALFORMED_JSON), fc.constantFrom('truncate', 'fixed', 'bytes'))
    .map(([parts, key, cut, fixed, how]) => {
      const d = draft(op, 'malformed-body', '', parts, key);
      if (op.body?.kind === 'multipart') {
        const form = multipartBody(scanForm(parts.body, false));
        const variants: Array<[string, Buffer, string]> = [
          // Cut before the closing delimiter: without its last CRLF the form is still complete.
          ['truncated multipart', form.subarray(0, Math.max(1, cut % (form.length - `--${BOUNDARY}--\r\n`.length))), d.contentType!],
          ['no closing boundary', multipartBody(scanForm(parts.body, false), BOUNDARY, false), d.contentType!],
          ['no boundary parameter', form, 'multipart/form-data'],
          ['other boundary', form, 'multipart/form-data; boundary=nope'],
          ['two spec files', multipartBody([...scanForm(parts.body, false), { name: 'spec_file', value: '{}', filename: 'b.json' }]), d.contentType!],
          ['file under another name', multipartBody([...scanForm(parts.body, false), { name: 'base_url', value: '{}', filename: 'x.json' }]), d.contentType!],
          [
            'field above 64 KiB',
            multipartBody([...scanForm(parts.body, false), { name: 'options', value: `{"exclude":["${'a'.repeat(70_000)}"]}` }]),
            d.contentType!,
          ],
          [
            'spec_file above the limit',
            multipartBody([
              { name: 'base_url', value: 'http://127.0.0.1:1/' },
              { name: 'spec_file', value: Buffer.alloc(pools.specMaxBytes + 1, 0x20), filename: 's.json' },
            ]),
            d.contentType!,
          ],
          ['JSON text in a multipart body', Buffer.from(fixed), d.contentType!],
        ];
        const [note, body, contentType] = variants[cut % variants.length]!;
        return { ...d, note, body, contentType, expectRefusal: note !== 'two spec files' && note !== 'field above 64 KiB' };
      }
      const text = d.body.length > 0 ? d.body : Buffer.from('{"a":1}');
      if (how === 'truncate' && text.length > 1) {
        const at = 1 + (cut % (text.length - 1));
        return { ...d, note: `truncated at ${at}`, body: text.subarray(0, at), contentType: 'application/json', expectRefusal: op.body !== undefined };
      }
      if (how === 'bytes') {
        const bad = Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]);
        const at = text.indexOf('"') + 1 || 1;
        return { ...d, note: 'invalid UTF-8 bytes', body: Buffer.concat([text.subarray(0, at), bad, text.subarray(at)]), contentType: 'application/json' };
      }
      // null, [], "text", 123 and true are JSON but not objects: refused too. `\ud800` alone is valid JSON.
      const refused = op.body !== undefined && !fixed.includes('\\ud800');
      return { ...d, note: `body ${JSON.stringify(fixed)}`, body: Buffer.from(fixed), contentType: 'application/json', expectRefusal: refused };
    });

const CONTENT_TYPES: Array<[string | undefined, boolean]> = [
  ['text/plain', true],
  ['application/x-www-form-urlencoded', true],
  [undefined, true],
  ['application/xml', true],
  ['application/jsonx', true],
  ['application/json; charset=utf-8', false],
  ['application/json;charset=UTF-8', false],
  ['APPLICATION/JSON', false],
  ['application/json; charset=utf-16', false],
  ['application/json; charset=latin1', false],
  ['application/json; charset="', false],
  ['application/json;;', false],
  ['application/vnd.api+json', false],
  ['multipart/form-data', false],
  ['multipart/form-data; boundary=', false],
  ['', false],
  ['*/*', false],
  ['application/json, text/plain', false],
];

/** A valid body under another content type (or none). Refusal is claimed for JSON endpoints and clearly foreign types. */
const contentTypes: Category = (op, pools) =>
  fc.tuple(validParts(op, pools), keyChoice(op), fc.constantFrom(...CONTENT_TYPES)).map(([parts, key, [type, foreign]]) => {
    const d = draft(op, 'content-type', `content-type ${type ?? '(none)'}`, parts, key);
    const body = d.body.length > 0 ? d.body : Buffer.from('{"a":1}');
    return { ...d, body, contentType: type, expectRefusal: foreign && op.body !== undefined };
  });

const BAD_PATH_VALUES = [
  '%2F',
  'a%2Fb',
  '..',
  '%2e%2e',
  '.',
  '%2e',
  '..%2F..%2Fscans',
  '%00',
  'a%00b',
  '%',
  '%zz',
  '%C0%AF',
  '%ED%A0%80',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%FF',
  '%20',
  '+',
  'a;b=c',
  '%3F',
  '%23',
  '\u00e9',
  'a'.repeat(65),
  'a'.repeat(300),
  'a'.repeat(5_000),
  'a'.repeat(20_000),
  'a'.repeat(70_000),
];
const BAD_PATH_SHAPES = ['//', '/./', '/../', '/%2e%2e/', '/;/', '/%2F'];

/** Path values no document would produce (encoded slashes, dots, NUL, invalid percent-encoding, very long), or a bent path. */
const pathValues: Category = (op, pools) => {
  const pathParams = op.params.filter((p) => p.in === 'path');
  return fc
    .tuple(validParts(op, pools), keyChoice(op), fc.constantFrom(...BAD_PATH_VALUES), fc.constantFrom(...BAD_PATH_SHAPES), fc.nat())
    .map(([parts, key, value, shape, n]) => {
      const d = draft(op, 'path-values', '', parts, key);
      if (pathParams.length > 0) {
        const param = pathParams[n % pathParams.length]!;
        const t = target(op, { ...parts, path: { ...parts.path, [param.name]: value } });
        const tooLong = value.length > (param.schema.maxLength ?? Infinity);
        return { ...d, note: `path ${param.name}=${value.slice(0, 40)}${value.length > 40 ? `...(${value.length})` : ''}`, target: t, expectRefusal: tooLong };
      }
      const t = d.target;
      const slash = t.lastIndexOf('/');
      return {
        ...d,
        note: `path shape ${shape}`,
        target: n % 2 === 0 ? t.slice(0, slash) + shape + t.slice(slash + 1) : `${t.split('?')[0]}${shape}${value.slice(0, 100)}`,
      };
    });
};

/** Query strings no client library would write: invalid escapes, bracket syntax, many or long parameters. */
const queryJunk: Category = (op, pools) =>
  fc
    .tuple(
      validParts(op, pools),
      keyChoice(op),
      fc.constantFrom(
        'page=%zz',
        'page=%',
        'per_page=%00',
        '%00=1',
        'a[b][c]=1',
        'page[]=1',
        'page[0]=1&page[1]=2',
        'page',
        '=1',
        '&&&',
        ';;',
        'format=json&format=csv',
        'status=queued,running',
        'per_page=1e400',
        'page=99999999999999999999',
        'page=-99999999999999999999',
        'page=0x10',
        'page=%20%31',
        'page=1.0',
        'per_page=NaN',
        'page=Infinity',
      ),
      fc.constantFrom(0, 0, 1, 1000, 10_000),
    )
    .map(([parts, key, junk, extra]) => {
      const base = parts.query.map(([k, v]) => `${enc(k)}=${enc(v)}`);
      const many = extra === 1000 ? Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`) : extra === 10_000 ? [`long=${'a'.repeat(10_000)}`] : [];
      const raw = [...base, junk, ...many].join('&');
      return { ...draft(op, 'query-junk', `query ${junk}${extra ? ` + ${extra}` : ''}`, parts, key), target: target(op, parts, raw) };
    });

/** Odd values for the headers the server reads: request id, the declared ones, content-length, expect, duplicated ones. */
const headerJunk: Category = (op, pools) =>
  fc.tuple(validParts(op, pools), keyChoice(op), nastyString, fc.nat()).map(([parts, key, text, n]) => {
    const d = draft(op, 'headers', '', parts, key);
    const printable = text.replace(/[\r\n]/g, ' ');
    const variants: Array<[string, Array<[string, string]>]> = [
      ['X-Request-Id unicode', [['X-Request-Id', printable]]],
      ['X-Request-Id long', [['X-Request-Id', 'r'.repeat(2_000)]]],
      [
        'X-Request-Id twice',
        [
          ['X-Request-Id', 'a'],
          ['X-Request-Id', 'b'],
        ],
      ],
      ['declared headers garbled', op.params.filter((p) => p.in === 'header').map((p) => [p.name, printable] as [string, string])],
      ['Accept odd', [['Accept', 'application/xml;q=2, */*;q=-1']]],
      ['Content-Length not a number', [['Content-Length', 'abc']]],
      ['Content-Length negative', [['Content-Length', '-1']]],
      [
        'Content-Length and Transfer-Encoding',
        [
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '3'],
        ],
      ],
      ['Expect 100-continue', [['Expect', '100-continue']]],
      ['header value with NUL', [['X-Fuzz', 'a\u0000b']]],
      ['obsolete line folding', [['X-Fuzz', 'a\r\n folded']]],
      ['header of 20 KiB', [['X-Fuzz', 'h'.repeat(20_000)]]],
      ['header of 70 KiB', [['X-Fuzz', 'h'.repeat(70_000)]]],
      ['200 headers', Array.from({ length: 200 }, (_, i) => [`X-Fuzz-${i}`, String(i)] as [string, string])],
      ['header name with space', [['X Fuzz', '1']]],
    ];
    const [note, headers] = variants[n % variants.length]!;
    return { ...d, note, headers: [...d.headers, ...headers] };
  });

/** Valid requests under every kind of key (none, malformed, unknown, Bearer, sent twice). */
const keys: Category = (op, pools) =>
  fc
    .tuple(
      validParts(op, pools),
      fc.constantFrom<KeyChoice>('none', 'malformed', 'unknown', 'bearer', 'duplicate', ...(op.auth === 'sync' ? (['sync-wrong'] as const) : [])),
    )
    .map(([parts, key]) => draft(op, 'keys', `key ${key}`, parts, key, { expectRefusal: op.auth !== 'public' && key !== 'bearer' }));

const HUGE_CATEGORY = mutated('huge', hugeOf);

/** A body just past the server's body limit. */
const overLimit: Category = (op, pools) =>
  op.body?.kind === 'json'
    ? keyChoice(op).map((key) => ({
        ...draft(op, 'huge', 'body past the body limit', { path: {}, query: [], headers: [], body: { url: 'a'.repeat(pools.bodyLimitBytes) } }, key),
        expectRefusal: true,
      }))
    : undefined;

const CATEGORIES: Array<[number, Category]> = [
  [4, valid],
  [3, mutated('boundary', boundaryOf)],
  [3, mutated('wrong-type', wrongTypeOf)],
  [1, HUGE_CATEGORY],
  [2, mutated('unicode', unicodeOf)],
  [2, protoKeys],
  [1, duplicates],
  [2, malformed],
  [2, contentTypes],
  [2, pathValues],
  [1, queryJunk],
  [1, headerJunk],
  [1, keys],
];

/** Provider events, signed with the webhook secret, whose fields are missing, of the wrong type or hostile. */
function signedEvents(op: Operation): fc.Arbitrary<Draft> {
  const TYPES = [
    'checkout.session.completed',
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'invoice.paid',
    'invoice.payment_failed',
    'charge.refunded',
    'unknown.event',
  ];
  const field = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.string({ maxLength: 12 }),
    nastyString,
    fc.integer(),
    fc.constant({}),
    fc.constant([]),
    fc.constantFrom('__proto__', 'constructor'),
  );
  const object = fc.record(
    {
      id: field,
      object: fc.constantFrom('checkout.session', 'subscription', 'invoice', 'charge'),
      customer: field,
      subscription: field,
      client_reference_id: field,
      metadata: fc.oneof(fc.constant({}), fc.record({ tenant_id: field }), fc.constant(null)),
      status: fc.oneof(fc.constantFrom('active', 'canceled', 'past_due', 'trialing', 'incomplete'), field),
      current_period_end: fc.oneof(fc.integer(), field, fc.constant(new RawJson('1e400'))),
      items: fc.oneof(fc.constant({ data: [{ price: { id: 'price_pro_monthly' } }] }), fc.constant({ data: [] }), field),
      amount_due: fc.oneof(fc.integer(), field),
    },
    { requiredKeys: [] },
  );
  const event = fc.record(
    {
      id: fc.oneof(
        fc.string({ minLength: 1, maxLength: 20 }).map((s) => `evt_${s}`),
        field,
      ),
      type: fc.oneof(fc.constantFrom(...TYPES), field),
      created: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), field),
      data: fc.oneof(fc.record({ object }), field),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(event, fc.boolean()).map(([e, protoKey]) => {
    const text = protoKey ? jsonText(new JsonEntries([['__proto__', { polluted: 'yes' }], ...Object.entries(e)])) : jsonText(e);
    return {
      op: `${op.method} ${op.path}`,
      category: 'signed-event',
      note: text.slice(0, 200),
      method: op.method,
      target: op.path,
      headers: [],
      key: 'signed' as const,
      body: Buffer.from(text),
      contentType: 'application/json',
      expectRefusal: false,
    };
  });
}

/** Every request kind that applies to `op`, weighted. */
export function requestsFor(op: Operation, pools: Pools): fc.Arbitrary<Draft> {
  const arbitraries = CATEGORIES.map(([weight, category]) => ({ weight, arbitrary: category(op, pools) })).filter(
    (c): c is { weight: number; arbitrary: fc.Arbitrary<Draft> } => c.arbitrary !== undefined,
  );
  const over = overLimit(op, pools);
  if (over) arbitraries.push({ weight: 1, arbitrary: over });
  if (op.params.some((p) => p.in === 'header' && p.name === 'provider-signature')) arbitraries.push({ weight: 6, arbitrary: signedEvents(op) });
  return fc.oneof(...arbitraries);
}

export { loopbackUrl };
