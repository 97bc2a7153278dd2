/**
 * The multipart form of POST /scan/upload turned into the JSON start request. Only the documented
 * field names are accepted (derived from the start request schema, so they cannot drift from it):
 * `url`/`base_url`, `mode`, `spec_url`, `reset_baseline`, `auth` and `options` as JSON text or as
 * dotted names (`auth.token`, `auth.secondary.type`, `options.timeout`, `options.viewport.width`),
 * and option names on their own (`timeout`, `exclude` repeated). Anything else, `__proto__`,
 * `constructor` and `prototype` included, is refused with 422 naming the field: a field name never
 * becomes a property lookup on an object that has a prototype.
 */
import type { TSchema } from '@sinclair/typebox';
import { validationError, type FieldProblem } from './errors.js';
import { ScanRequestSchema } from './schemas/scan-request.js';

/** Dotted path -> its schema type (`array` values are lists: repeated fields append). */
const LEAVES = new Map<string, string>();
/** Dotted paths of nested objects (`auth`, `auth.secondary`, `options`, `options.viewport`): JSON text when sent whole. */
const BRANCHES = new Set<string>();
/** Names accepted as another field: `base_url` for `url`, each option on its own for `options.<name>`. */
const ALIASES = new Map<string, string>([['base_url', 'url']]);
/** The spec arrives as the spec_file part, never as a text field. */
const NOT_FORM_FIELDS = new Set(['spec_content']);

function learn(schema: TSchema, prefix: string): void {
  for (const [key, sub] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (NOT_FORM_FIELDS.has(path)) continue;
    if (sub.type === 'object' && sub.properties) {
      BRANCHES.add(path);
      learn(sub, path);
    } else {
      LEAVES.set(path, String(sub.type));
    }
  }
}
learn(ScanRequestSchema, '');
for (const path of LEAVES.keys()) {
  const option = /^options\.([^.]+)$/.exec(path)?.[1];
  if (option && !LEAVES.has(option)) ALIASES.set(option, path);
}

type Node = Record<string, unknown>;
const node = (): Node => Object.create(null) as Node;
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * A form value (always text) as the type its schema names. Only exact decimal notation becomes a
 * number (no parseInt truncation: `1.5` stays 1.5 and fails an integer, `1e400` is refused rather
 * than read as 1); anything else stays text and fails the schema check with its own message.
 */
function typed(type: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if ((type === 'integer' || type === 'number') && DECIMAL.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function toPlain(n: Node): Record<string, unknown> {
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, Array.isArray(v) ? [...v] : isPlainObject(v) ? toPlain(v) : v]));
}

class FormBody {
  private readonly root = node();
  readonly problems: FieldProblem[] = [];

  private problem(field: string, message: string): void {
    if (!this.problems.some((p) => p.field === field)) this.problems.push({ field, message });
  }

  /** The object at a known branch path, created on the way (every step is a known branch). */
  private branch(parts: string[]): Node {
    let target = this.root;
    for (const part of parts) {
      if (!isPlainObject(target[part])) target[part] = node();
      target = target[part] as Node;
    }
    return target;
  }

  private parentOf(path: string): [Node, string] {
    const parts = path.split('.');
    return [this.branch(parts.slice(0, -1)), parts[parts.length - 1] as string];
  }

  private setLeaf(path: string, value: unknown): void {
    const [parent, key] = this.parentOf(path);
    const type = LEAVES.get(path) as string;
    if (type === 'array') {
      const items = Array.isArray(value) ? value : [value];
      if (!items.every(isScalar)) return this.problem(path, 'must be a list of strings');
      parent[key] = [...(Array.isArray(parent[key]) ? (parent[key] as unknown[]) : []), ...items];
    } else {
      if (!isScalar(value)) return this.problem(path, 'must be a single value');
      const converted = typed(type, value);
      if (typeof converted === 'number' && !Number.isFinite(converted)) return this.problem(path, 'must be a finite number within its documented range');
      parent[key] = converted;
    }
  }

  /** A JSON object sent for a branch: every key must be a known field below it. */
  private merge(path: string, value: Record<string, unknown>): void {
    // An empty object is still sent: `auth={}` must fail the schema (auth.type required) as in POST /scan.
    this.branch(path.split('.'));
    for (const [key, sub] of Object.entries(value)) {
      const child = `${path}.${key}`;
      if (BRANCHES.has(child)) {
        if (isPlainObject(sub)) this.merge(child, sub);
        else this.problem(child, 'must be an object');
      } else if (LEAVES.has(child)) {
        this.setLeaf(child, sub);
      } else {
        this.problem(child, 'is not a known field');
      }
    }
  }

  add(name: string, value: string): void {
    const path = ALIASES.get(name) ?? name;
    if (LEAVES.has(path)) return this.setLeaf(path, value);
    if (!BRANCHES.has(path)) return this.problem(name, 'is not a known field');
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (!isPlainObject(parsed)) return this.problem(name, 'must be a JSON object');
    this.merge(path, parsed);
  }

  result(): Record<string, unknown> {
    return toPlain(this.root);
  }
}

export function formToRequest(fields: Array<[string, string]>, specBase64: string | undefined): Record<string, unknown> {
  const form = new FormBody();
  for (const [name, value] of fields) form.add(name, value);
  if (form.problems.length > 0) throw validationError(form.problems);
  const body = form.result();
  if (specBase64 !== undefined) body.spec_content = specBase64;
  return body;
}
