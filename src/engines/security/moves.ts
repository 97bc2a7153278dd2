/**
 * Identifiers that move (issue 26, item 3): an update that changes a resource's title may give it a
 * new slug, a new `Location` or a new id in its envelope. The scan follows it: every later request
 * for that resource (a delete, a BOLA probe, the clean-up) uses the current identifier, not the
 * stale one that now answers 404.
 */
import { keysForParam, listedItems, normKey, resourceOf } from './resources.js';
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

/**
 * The body a create sent, without the values its answer contradicts: a read-only `id: 1` (or `url`)
 * the scan sent and the target replaced with its own is not the resource's, and filed as the scan's
 * own it would send the next update to whatever record 1 is (another user's). What the answer does
 * not show is kept (a 204, a title only the request carries).
 */
export function agreedWith(sent: unknown, answer: unknown): unknown {
  const shown = unwrapEnvelope(answer);
  if (!shown) return sent;
  const primitive = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';
  const keep = (node: unknown, depth: number): unknown => {
    if (!node || typeof node !== 'object' || Array.isArray(node) || depth > 3) return node;
    return Object.fromEntries(
      Object.entries(node as Record<string, unknown>)
        .filter(([k, v]) => !(primitive(v) && primitive(shown[k]) && String(shown[k]) !== String(v)))
        .map(([k, v]) => [k, keep(v, depth + 1)]),
    );
  };
  return keep(sent, 0);
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

/** The operation's last path parameter and the resource it names (`slug` of `/articles/{slug}`: `article`). */
function itemParam(op: Operation): { param: string; resource: string } | undefined {
  const last = /\{([^}]+)\}\/?$/.exec(op.path);
  const resource = last && resourceOf(op.path, last[1]);
  return last && resource ? { param: last[1], resource } : undefined;
}

/** The value an object gives the parameter: its own property (`slug` for `{slug}`, `id` for `{articleId}`, filed as `articleid`). */
function valueFor(op: Operation, param: string, resource: string, obj: Record<string, unknown>): string | number | undefined {
  const wanted = new Set(keysForParam(op, param).map(normKey));
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const nk = normKey(k);
    if (wanted.has(nk) || wanted.has(`${resource}${nk}`)) return v;
  }
  return undefined;
}

/** The identifier an update's answer gives its resource: a `Location` on the operation's own path, else the body's (in an envelope or not). */
function shownIdentifier(
  op: Operation,
  param: string,
  resource: string,
  body: unknown,
  location: string | undefined,
  basePath: string,
): string | number | undefined {
  if (location) {
    try {
      let p = new URL(location, 'http://location.invalid/').pathname;
      if (basePath && p.startsWith(basePath)) p = p.slice(basePath.length);
      const to = pathValuesOf(op.path, p)?.[param];
      if (to !== undefined) return to;
    } catch {
      // A Location that is no URL says nothing.
    }
  }
  const obj = unwrapEnvelope(body);
  return obj ? valueFor(op, param, resource, obj) : undefined;
}

/**
 * The identifier a successful update moved its resource to: the last path parameter's value as the
 * answer shows it (its own property, `slug` for `{slug}`, `id` for `{articleId}`, in an envelope or
 * not), or as a `Location` header on the operation's own path shows it. Undefined when it stayed.
 */
export function movedIdentifier(op: Operation, sentPath: string, body: unknown, location: string | undefined, basePath: string): Move | undefined {
  const item = itemParam(op);
  const before = item && pathValuesOf(op.path, sentPath)?.[item.param];
  if (!item || before === undefined) return undefined;
  const to = shownIdentifier(op, item.param, item.resource, body, location, basePath);
  if (to === undefined || String(to) === before || String(to) === '') return undefined;
  return { ...item, from: before, to };
}

/** Whether an update's answer shows its resource's identifier at all (a 204, or a body without it, does not: only a re-read tells whether it moved). */
export function identifierShown(op: Operation, body: unknown, location: string | undefined, basePath: string): boolean {
  const item = itemParam(op);
  return !item || shownIdentifier(op, item.param, item.resource, body, location, basePath) !== undefined;
}

/**
 * Where a resource went when an update did not say and its old identifier now answers 404: the one
 * item of its collection's list that holds every string value the update sent (the title a slug is
 * derived from). Undefined when no item, or more than one, does.
 */
export function findMoved(op: Operation, sentPath: string, sent: unknown, list: unknown): Move | undefined {
  const item = itemParam(op);
  const before = item && pathValuesOf(op.path, sentPath)?.[item.param];
  const wrote = Object.entries(unwrapEnvelope(sent) ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
  if (!item || before === undefined || !wrote.length) return undefined;
  const candidates = listedItems(list)
    .map((listed) => unwrapEnvelope(listed) ?? {})
    .filter((o) => {
      const shared = wrote.filter(([k]) => k in o);
      return shared.length > 0 && shared.every(([k, v]) => o[k] === v);
    })
    .map((o) => valueFor(op, item.param, item.resource, o))
    .filter((v): v is string | number => v !== undefined && v !== '' && String(v) !== before);
  return candidates.length === 1 ? { ...item, from: before, to: candidates[0] } : undefined;
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
