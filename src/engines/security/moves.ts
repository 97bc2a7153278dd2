/**
 * Identifiers that move (issue 26, item 3): an update that changes a resource's title may give it a
 * new slug, a new `Location` or a new id in its envelope. The scan follows it: every later request
 * for that resource (a delete, a BOLA probe, the clean-up) uses the current identifier, not the
 * stale one that now answers 404.
 */
import { keysForParam, normKey, resourceOf } from './resources.js';
import type { Operation } from './types.js';

/** Envelope keys that wrap a resource without naming it (`{"data": {...}}`, JSON:API `attributes`). */
const WRAPPER = /^(data|attributes|item|result|resource|payload|record|object|entity)$/i;

/**
 * The object a body is about: the body itself, or what its envelope holds (`{"article": {...}}`,
 * `{"data": {"id", "attributes": {...}}}`), merged so an id beside `attributes` counts too.
 */
export function unwrapEnvelope(body: unknown, depth = 0): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body) || depth > 3) return undefined;
  const o = body as Record<string, unknown>;
  const entries = Object.entries(o);
  const objects = entries.filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v));
  const primitives = entries.filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  // A single object property and no own values (`{"article": {...}}`), or a wrapper (`data`, `attributes`).
  const inner = objects.length === 1 && primitives.length === 0 ? objects[0] : objects.find(([k]) => WRAPPER.test(k));
  if (!inner) return o;
  const unwrapped = unwrapEnvelope(inner[1], depth + 1) ?? {};
  const own = Object.fromEntries(primitives);
  return { ...unwrapped, ...own };
}

/** The path values of a concrete path built from a template (undefined when it does not match). */
export function pathValuesOf(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = template
    .replace(/\/+$/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('');
  const match = new RegExp(`^${source}/?$`).exec(path.split('?')[0]);
  if (!match) return undefined;
  const out: Record<string, string> = {};
  names.forEach((n, i) => {
    try {
      out[n] = decodeURIComponent(match[i + 1]);
    } catch {
      out[n] = match[i + 1];
    }
  });
  return out;
}

export interface Move {
  /** The resource the identifier belongs to (`article` for `{slug}` of `/articles/{slug}`). */
  resource: string;
  /** The parameter it fills on the update's path. */
  param: string;
  from: string;
  to: string | number;
}

/**
 * The identifier a successful update moved its resource to: the last path parameter's value as the
 * answer shows it (its own property, `slug` for `{slug}`, `id` for `{articleId}`, in an envelope or
 * not), or as a `Location` header on the operation's own path shows it. Undefined when it stayed.
 */
export function movedIdentifier(op: Operation, sentPath: string, body: unknown, location: string | undefined, basePath: string): Move | undefined {
  const last = /\{([^}]+)\}\/?$/.exec(op.path);
  if (!last) return undefined;
  const param = last[1];
  const resource = resourceOf(op.path, param);
  const before = pathValuesOf(op.path, sentPath)?.[param];
  if (!resource || before === undefined) return undefined;
  let to: string | number | undefined;
  if (location) {
    try {
      let p = new URL(location, 'http://location.invalid/').pathname;
      if (basePath && p.startsWith(basePath)) p = p.slice(basePath.length);
      to = pathValuesOf(op.path, p)?.[param];
    } catch {
      to = undefined;
    }
  }
  if (to === undefined) {
    const obj = unwrapEnvelope(body);
    if (obj) {
      const wanted = new Set(keysForParam(op, param).map(normKey));
      // `{slug}`: the answer's `slug`; `{articleId}`: its `id` (filed as `articleid`).
      for (const [k, v] of Object.entries(obj)) {
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        const nk = normKey(k);
        if (wanted.has(nk) || wanted.has(`${resource}${nk}`)) {
          to = v;
          break;
        }
      }
    }
  }
  if (to === undefined || String(to) === before || String(to) === '') return undefined;
  return { resource, param, from: before, to };
}

/** Moves seen so far, followed to the current identifier (a slug renamed twice ends at the newest). */
export class IdentifierMoves {
  private readonly moves = new Map<string, string | number>();

  note(m: Move): void {
    if (String(m.to) === m.from) return;
    this.moves.set(`${m.resource}\u0000${m.from}`, m.to);
  }

  get size(): number {
    return this.moves.size;
  }

  /** The current identifier of a value that filled `param` of `op` (the value itself when it never moved). */
  current(op: Operation, param: string, value: string): string {
    if (!this.moves.size) return value;
    const resource = resourceOf(op.path, param);
    if (!resource) return value;
    let v = value;
    for (let hops = 0; hops < 50; hops++) {
      const next = this.moves.get(`${resource}\u0000${v}`);
      if (next === undefined || String(next) === v) break;
      v = String(next);
    }
    return v;
  }
}
