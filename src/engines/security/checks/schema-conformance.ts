/**
 * Schema conformance (check 7, with server errors): the response to a valid request must carry a
 * declared status code, a declared content type and a body that validates against the declared
 * schema. The response is picked by exact status, then range ("2XX"), then "default". Bodies are
 * validated with Ajv after folding the OpenAPI dialect into plain JSON Schema.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CheckContext, CheckResult, JsonSchema, Operation, OperationCheck, ResponseSpec, TargetResponse } from '../types.js';
import { fail, pass } from './util.js';

/** The declared response for a status: exact code, then its range (1XX-5XX, any case), then default. */
export function pickResponse(responses: Record<string, ResponseSpec>, status: number): { key: string; spec: ResponseSpec } | undefined {
  const byKey = new Map(Object.entries(responses).map(([k, v]) => [k.toUpperCase(), [k, v] as const]));
  for (const k of [String(status), `${String(status)[0]}XX`, 'DEFAULT']) {
    const hit = byKey.get(k);
    if (hit) return { key: hit[0], spec: hit[1] };
  }
  return undefined;
}

/** Statuses whose absence from a spec is not judged: credentials, our own bursts, and 5xx (reported by server-errors). */
const NOT_JUDGED = new Set([401, 403, 407, 429]);

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const SUBSCHEMA_ONE = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/**
 * OpenAPI 2.0/3.0/3.1 schema -> JSON Schema Ajv can compile, for validating a response:
 * cycles cut to {} (accept), $ref/$id dropped (already dereferenced), nullable folded into the
 * type, boolean exclusiveMinimum/Maximum turned numeric, writeOnly properties not required,
 * oneOf relaxed to anyOf (overlapping alternatives without a discriminator are common and
 * would otherwise fail valid bodies), Swagger 2.0 "file" accepted as anything.
 */
export function toValidationSchema(schema: unknown, legacy: boolean, stack = new Set<object>()): JsonSchema | boolean {
  if (typeof schema === 'boolean') return schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return {};
  if (stack.has(schema)) return {};
  stack.add(schema);
  try {
    const s = schema as JsonSchema;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' || k === '$id' || k === '$schema' || k === 'discriminator' || k === 'xml' || k.startsWith('x-')) continue;
      if (k === 'id' && typeof v === 'string') continue;
      if (SUBSCHEMA_MAPS.includes(k) && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, toValidationSchema(sub, legacy, stack)]));
      } else if (SUBSCHEMA_ONE.includes(k) && v && typeof v === 'object') {
        out[k] = toValidationSchema(v, legacy, stack);
      } else if (SUBSCHEMA_LISTS.includes(k) && Array.isArray(v)) {
        out[k === 'oneOf' ? 'anyOf' : k] = v.map((sub) => toValidationSchema(sub, legacy, stack));
      } else if (k === 'items') {
        out.items = Array.isArray(v) ? v.map((sub) => toValidationSchema(sub, legacy, stack)) : toValidationSchema(v, legacy, stack);
      } else {
        out[k] = v;
      }
    }
    if (out.type === 'file') delete out.type;
    if (legacy) {
      for (const [bool, num] of [
        ['exclusiveMinimum', 'minimum'],
        ['exclusiveMaximum', 'maximum'],
      ] as const) {
        if (typeof out[bool] !== 'boolean') continue;
        if (out[bool] && typeof out[num] === 'number') {
          out[bool] = out[num];
          delete out[num];
        } else delete out[bool];
      }
    }
    if (out.nullable === true) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }
    delete out.nullable;
    // A response never carries writeOnly properties, required or not.
    if (Array.isArray(out.required) && out.properties) {
      const props = s.properties as Record<string, JsonSchema>;
      out.required = out.required.filter((r: string) => !(props?.[r] && typeof props[r] === 'object' && props[r].writeOnly === true));
      if (out.required.length === 0) delete out.required;
    }
    return out;
  } finally {
    stack.delete(schema);
  }
}

type Validator = ValidateFunction | 'unusable';

const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, logger: false as const, validateSchema: false };

/** Most compiled validators kept by a process (a worker runs scan after scan; least recently used go first). */
const MAX_COMPILED = 256;

/** One Ajv per dialect for the process: OpenAPI 3.1 (JSON Schema 2020-12), and 2.0/3.0 (draft-07 after folding). */
const ajvs: { modern?: Ajv2020; legacy?: Ajv } = {};

/**
 * Compiled validators by dialect and content (the folded schema's JSON): a schema that appears under
 * several operations (three request bodies of one spec are the same 20 KB schema) or in the next scan
 * of the same spec is compiled once. Ajv compiles to code; that was the biggest per-scan cost.
 */
const compiled = new Map<string, { v: Validator; source?: object; ajv?: Ajv }>();

/** Per scan (keyed by the model): the validator of each schema object, so the content key is computed once per schema. */
const perScan = new WeakMap<object, WeakMap<object, Validator>>();

function compileShared(modern: boolean, validation: JsonSchema): { v: Validator; source?: object; ajv?: Ajv } {
  const ajv = modern ? (ajvs.modern ??= new Ajv2020(AJV_OPTIONS)) : (ajvs.legacy ??= new Ajv(AJV_OPTIONS));
  try {
    return { v: ajv.compile(validation), source: validation, ajv };
  } catch {
    // The shared instance may refuse what a fresh one accepts (an anchor another spec's schema already
    // used): judged as a scan of its own would judge it.
  }
  try {
    return { v: (modern ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS)).compile(validation) };
  } catch {
    // A schema Ajv cannot compile (e.g. a pattern that is not an ECMAScript regex) is not judged.
    return { v: 'unusable' };
  }
}

export function validatorFor(ctx: Pick<CheckContext, 'model'>, schema: JsonSchema): Validator {
  let bySchema = perScan.get(ctx.model);
  if (!bySchema) perScan.set(ctx.model, (bySchema = new WeakMap()));
  let v = bySchema.get(schema);
  if (v) return v;
  const modern = ctx.model.specVersion.startsWith('3.1');
  const validation = toValidationSchema(schema, !modern) as JsonSchema;
  const key = `${modern ? '2020' : '07'}:${JSON.stringify(validation)}`;
  let entry = compiled.get(key);
  if (entry) compiled.delete(key);
  else {
    entry = compileShared(modern, validation);
    if (compiled.size >= MAX_COMPILED) {
      const [oldKey, old] = compiled.entries().next().value!;
      compiled.delete(oldKey);
      if (old.source) old.ajv?.removeSchema(old.source);
    }
  }
  compiled.set(key, entry);
  v = entry.v;
  bySchema.set(schema, v);
  return v;
}

function mediaMatches(declared: string, actual: string): boolean {
  const d = declared.split(';')[0].trim().toLowerCase();
  if (d === '*/*' || d === actual) return true;
  const [dt, ds] = d.split('/');
  const [at] = actual.split('/');
  return ds === '*' && dt === at;
}

export interface Conformance {
  status?: string;
  contentType?: string;
  /** undefined: not judged (no schema, no JSON, unusable schema). */
  body?: { errors: string[] };
}

/** Judges one response against an operation's declared responses. */
export function judgeResponse(ctx: Pick<CheckContext, 'model'>, op: Operation, res: TargetResponse): Conformance {
  const out: Conformance = {};
  if (Object.keys(op.responses).length === 0 || res.status === 0) return out;
  const picked = pickResponse(op.responses, res.status);
  if (!picked) {
    if (!NOT_JUDGED.has(res.status) && res.status < 500) out.status = `HTTP ${res.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})`;
    return out;
  }
  const spec = picked.spec;
  const actual = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const hasBody = res.size > 0 && op.method !== 'HEAD' && res.status !== 204 && res.status !== 304;
  if (!hasBody || spec.contentTypes.length === 0) return out;
  if (actual && !spec.contentTypes.some((d) => mediaMatches(d, actual))) {
    out.contentType = `content-type ${actual} is not declared for ${picked.key} (declared: ${spec.contentTypes.join(', ')})`;
    return out;
  }
  if (!spec.schema || !/json/.test(actual || spec.contentTypes[0])) return out;
  if (res.size > Buffer.byteLength(res.body)) return out; // truncated at the body cap: not judged
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    out.body = { errors: ['the body is not valid JSON'] };
    return out;
  }
  const validate = validatorFor(ctx, spec.schema);
  if (validate === 'unusable') return out;
  out.body = { errors: validate(json) ? [] : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`) };
  return out;
}

export const schemaConformance: OperationCheck = {
  id: 'schema-conformance',
  title: 'Schema conformance',
  description:
    "Judges each operation's normal response against the spec: the status must be declared (exactly, by range such as 2XX, or by default), the content type must be one declared for it, and a JSON body must validate against the declared schema.",
  risk: 'Responses that do not match the documentation mean the documentation no longer describes what the API does: clients and gateways that validate or filter by the spec miss fields (possibly sensitive ones), reviews and security tests work on a wrong model, and undocumented behaviour goes unreviewed.',
  remediation:
    'Generate the spec from the code or validate responses against it in tests (contract tests), declare every status and content type the operation can answer, and fix whichever of the spec or the implementation is wrong.',
  owasp: 'API9:2023',
  cwe: 'CWE-684',
  references: [
    { title: 'OpenAPI Specification: Responses Object', url: 'https://spec.openapis.org/oas/latest.html#responses-object' },
    {
      title: 'OWASP REST Security Cheat Sheet: Validate content types',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#validate-content-types',
    },
  ],
  scope: 'operation',
  applies: (op) => Object.keys(op.responses).length > 0 || 'the spec declares no response',
  async run(ctx, op) {
    const res = await ctx.baseline(op);
    if (res.status === 0) return [];
    const j = judgeResponse(ctx, op, res);
    const out: CheckResult[] = [];
    const statusName = 'Response status and content type are declared';
    const problem = j.status ?? j.contentType;
    out.push(problem ? fail(statusName, 'low', ctx.evidence(res, problem), { invented: false }) : pass(statusName));
    if (j.body) {
      const bodyName = 'Response body matches the declared schema';
      const severity = res.status >= 200 && res.status < 300 ? 'medium' : 'low';
      out.push(
        j.body.errors.length
          ? fail(bodyName, severity, ctx.evidence(res, `Schema violations: ${j.body.errors.join('; ')}\n${ctx.excerpt(res, 300)}`), { invented: false })
          : pass(bodyName),
      );
    }
    return out;
  },
};
