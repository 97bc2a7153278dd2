/**
 * Checks every response the test suite receives from a Vigil server against the server's own
 * description (`/api/v1/openapi.json`): the operation (method and path), the status code, the media
 * type, the body against the response schema, and the headers Vigil documents (the rate-limit headers,
 * Retry-After, Content-Disposition) are declared there; a 429 carries Retry-After. A response whose
 * schema is empty counts as a mismatch (it would pass anything).
 *
 * Installed by openapi-setup.ts (a vitest setup file) around `fetch`, so every request a test makes with
 * `call()` or `fetch` to a server that startServer (or runVigil) started is checked. Problems are
 * collected, not thrown where they happen, and asserted when the test file ends.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export interface ResponseMismatch {
  request: string;
  status: number;
  problem: string;
}

export interface ResponseCheckTally {
  validated: number;
  /** Responses to paths the document does not describe (docs pages, the dashboard, unknown routes). */
  undocumentedPaths: number;
  mismatches: ResponseMismatch[];
}

export const tally: ResponseCheckTally = { validated: 0, undocumentedPaths: 0, mismatches: [] };

/** Headers Vigil sets that a client may act on: present on a response, they must be declared for its status. */
const HEADERS_TO_DECLARE = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'content-disposition', 'idempotent-replayed'];

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, any>;
}

interface Described {
  doc: any;
  ajv: Ajv2020;
  operations: Operation[];
  validators: Map<string, ValidateFunction>;
}

const originals = { fetch: globalThis.fetch.bind(globalThis) };
const documents = new Map<string, Promise<Described | undefined>>();
const pending = new Set<Promise<void>>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function describe(doc: any): Described {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(doc, 'openapi.json');
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {}) as Array<[string, Record<string, any>]>) {
    const parts = template.split(/(\{[^}]+\})/);
    const source = parts.map((p) => (p.startsWith('{') ? '([^/]+)' : escapeRegExp(p))).join('');
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        params: parts.filter((p) => p.startsWith('{')).length,
        responses: op.responses,
      });
    }
  }
  // A literal segment wins over a template one (`/baselines/approve` before `/baselines/{id}`).
  operations.sort((a, b) => a.params - b.params);
  return { doc, ajv, operations, validators: new Map() };
}

/** Follows a local `$ref` (`#/components/...`) of a response or header object. */
function resolve(doc: any, node: any): any {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 10; hops += 1) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: any, key: string) => at?.[key], doc);
  }
  return current;
}

function pointer(...segments: string[]): string {
  return `openapi.json#/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** A schema that would accept anything: no type constraint worth the name. */
function isVacuous(doc: any, schema: any): boolean {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object') return true;
  if (s.anyOf || s.oneOf || s.allOf || s.const !== undefined || s.enum) return false;
  if (s.type === 'object') return !s.properties && !(s.additionalProperties && typeof s.additionalProperties === 'object') && !s.patternProperties;
  if (s.type === 'array') return !s.items;
  return s.type === undefined;
}

export function trackVigilServer(baseUrl: string): Promise<unknown> {
  const origin = new URL(baseUrl).origin;
  let described = documents.get(origin);
  if (!described) {
    described = originals
      .fetch(`${origin}/api/v1/openapi.json`)
      .then(async (res) => (res.ok ? describe(await res.json()) : undefined))
      .catch(() => undefined);
    documents.set(origin, described);
  }
  return described;
}

function mediaTypeOf(header: string | null): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function validatorFor(d: Described, op: Operation, statusKey: string, mediaType: string): ValidateFunction {
  const key = `${op.method} ${op.template} ${statusKey} ${mediaType}`;
  let validate = d.validators.get(key);
  if (!validate) {
    const response = d.doc.paths[op.template][op.method.toLowerCase()].responses[statusKey];
    const ref = response.$ref
      ? `openapi.json${response.$ref}/content/${mediaType.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`
      : pointer('paths', op.template, op.method.toLowerCase(), 'responses', statusKey, 'content', mediaType, 'schema');
    validate = d.ajv.compile({ $ref: ref });
    d.validators.set(key, validate);
  }
  return validate;
}

async function check(method: string, url: URL, res: Response): Promise<void> {
  const d = await documents.get(url.origin);
  if (!d || method === 'HEAD') return;
  const path = url.pathname;
  const op = d.operations.find((o) => o.method === method && o.pattern.test(path));
  if (!op) {
    tally.undocumentedPaths += 1;
    return;
  }
  const request = `${method} ${op.template}`;
  const problems: string[] = [];
  const status = res.status;
  const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k] !== undefined);
  const text = await res.text();
  tally.validated += 1;
  if (!statusKey) {
    tally.mismatches.push({ request, status, problem: `status ${status} is not declared (declared: ${Object.keys(op.responses).join(', ')})` });
    return;
  }
  const response = resolve(d.doc, op.responses[statusKey]);
  const declaredHeaders = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve(d.doc, h)]));
  for (const name of HEADERS_TO_DECLARE) {
    const value = res.headers.get(name);
    if (value === null) continue;
    const declared = declaredHeaders[name];
    if (!declared) problems.push(`header ${name} is sent but not declared`);
    else if (declared.schema && !d.ajv.validate(declared.schema, /^(integer|number)$/.test(declared.schema.type) ? Number(value) : value)) {
      problems.push(`header ${name}: ${JSON.stringify(value)} does not match its schema`);
    }
  }
  if (status === 429 && res.headers.get('retry-after') === null) problems.push('a 429 without Retry-After');
  if (text.length > 0) {
    const mediaType = mediaTypeOf(res.headers.get('content-type'));
    const content = response.content ?? {};
    // A declared type may carry parameters (`text/plain; version=0.0.4`): it is matched by its type.
    const declaredType = content[mediaType]
      ? mediaType
      : Object.keys(content).find((t) => mediaTypeOf(t) === mediaType || t === '*/*' || (t.endsWith('/*') && mediaType.startsWith(t.slice(0, -1))));
    if (!declaredType) {
      problems.push(`content type ${mediaType || '(none)'} is not declared (declared: ${Object.keys(content).join(', ') || 'no content'})`);
    } else if (!content[declaredType].schema) {
      problems.push(`${declaredType} has no schema`);
    } else if (isVacuous(d.doc, content[declaredType].schema)) {
      problems.push(`${declaredType} schema is empty (it accepts anything)`);
    } else if (/json/.test(mediaType) || /^text\//.test(mediaType)) {
      let body: unknown = text;
      if (/json/.test(mediaType)) {
        try {
          body = JSON.parse(text);
        } catch {
          problems.push('body is not JSON');
        }
      }
      const validate = validatorFor(d, op, statusKey, declaredType);
      if (!validate(body)) {
        const errors = (validate.errors ?? [])
          .slice(0, 5)
          .map(
            (e) =>
              `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
          );
        problems.push(`body does not match the schema: ${errors.join('; ')}`);
      }
    }
  }
  for (const problem of problems) tally.mismatches.push({ request, status, problem });
}

/** Wraps `fetch`: a response from a tracked Vigil server is checked on a copy, without delaying the test. */
export function installResponseCheck(): void {
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const res = await originals.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (documents.has(url.origin)) {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const job = check(method, url, res.clone()).catch((error: unknown) => {
        tally.mismatches.push({ request: `${method} ${url.pathname}`, status: res.status, problem: `could not be checked: ${String(error)}` });
      });
      pending.add(job);
      void job.finally(() => pending.delete(job));
    }
    return res;
  };
}

/** Waits for the checks still running (a response body still arriving), at most `timeoutMs`. */
export async function settleResponseChecks(timeoutMs = 10_000): Promise<void> {
  await Promise.race([Promise.all([...pending]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
}
