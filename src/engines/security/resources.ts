/**
 * Real values harvested from the target (ids, names, usernames, titles), so checks address
 * resources that exist instead of the spec's invented examples. Values are keyed by a normalised
 * property name; an id found in a response of `/orders` is also filed as `orderid`, so it fills
 * `/orders/{orderId}` and `/orders/{order_id}` alike.
 */
import type { HarvestedValue, Identity, Operation, ParamSpec } from './types.js';

/** `book_title`, `bookTitle` and `Book-Title` are one key: `booktitle`. */
export function normKey(name: string): string {
  // Asked for every property of every harvested answer: property names repeat, so each is normalised once.
  let k = normKeys.get(name);
  if (k === undefined) {
    if (normKeys.size >= MAX_NORM_KEYS) normKeys.clear();
    normKeys.set(name, (k = name.toLowerCase().replace(/[^a-z0-9]/g, '')));
  }
  return k;
}

const normKeys = new Map<string, string>();
const MAX_NORM_KEYS = 10_000;

/** Identifying property names: also filed under the resource they belong to (`id` of /orders -> `orderid`). */
const IDENTIFYING = new Set(['id', 'uuid', 'guid', 'key', 'slug', 'name', 'title', 'code', 'number', 'handle', 'username', 'email']);

/** Very rough English singular of a path segment (`orders` -> `order`, `categories` -> `category`). */
export function singular(word: string): string {
  const w = word.toLowerCase();
  if (/ies$/.test(w)) return `${w.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(w)) return w;
  if (/(ches|shes|xes|sses|zes)$/.test(w)) return w.slice(0, -2);
  if (/s$/.test(w)) return w.slice(0, -1);
  return w;
}

/** The resource a path is about: its last literal segment that is not a version (`/books/v1` -> `book`). */
export function resourceOf(path: string, beforeParam?: string): string | undefined {
  let segments = path.split('/').filter(Boolean);
  if (beforeParam) {
    const i = segments.indexOf(`{${beforeParam}}`);
    if (i >= 0) segments = segments.slice(0, i);
  }
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i];
    if (s.startsWith('{') || /^v\d+(\.\d+)*$/i.test(s) || /^(api|me|self|current|myself)$/i.test(s)) continue;
    return singular(s.replace(/[^A-Za-z0-9]/g, ''));
  }
  return undefined;
}

/** Keys a path parameter may be filled from, best first: `{id}` on /invoices is an invoice's id before any id. */
export function keysForParam(op: Operation, name: string): string[] {
  const n = normKey(name);
  const keys: string[] = [];
  const resource = resourceOf(op.path, name);
  if (resource) {
    if (IDENTIFYING.has(n)) keys.push(`${resource}${n}`);
    // `{orderId}` on /orders: the `id` of an order. The stem is compared in its plural forms too,
    // as the path segment was singularised (`{statusId}` on /statuses: `statuse`).
    const stem = /^(.+?)(id|uuid|name|title|slug)$/.exec(n);
    if (stem && [stem[1], `${stem[1]}s`, `${stem[1]}es`].some((w) => singular(w) === resource)) keys.push(`${resource}${stem[2]}`);
  }
  keys.push(n);
  return [...new Set(keys)];
}

/**
 * Keys a query filter may be filled from: its own name, its plural or list (`tag` from `tags`,
 * `tagList`), and the identifying properties of what it names (`author` from `author.username`).
 */
export function keysForQuery(name: string): string[] {
  const n = normKey(name);
  return [...new Set([n, `${n}s`, `${n}list`, `${n}username`, `${n}name`, `${n}slug`, `${n}id`])];
}

/** Bare names any resource has: a value filed only under one of them may be another resource's. */
const AMBIGUOUS = new Set([...IDENTIFYING].filter((k) => k !== 'username' && k !== 'email'));

const MAX_DEPTH = 4;
const MAX_ITEMS = 25;
const MAX_VALUES_PER_KEY = 50;

type Entry = HarvestedValue & { key: string };

/** Whether a harvested value suits a parameter's schema (type, enum, pattern, format). */
export function fitsSchema(value: string | number, p: Pick<ParamSpec, 'schema'>): boolean {
  const s = p.schema ?? {};
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  const text = String(value);
  if (type === 'integer' && !/^-?\d+$/.test(text)) return false;
  if (type === 'number' && !Number.isFinite(Number(text))) return false;
  if (Array.isArray(s.enum) && !s.enum.map(String).includes(text)) return false;
  if (typeof s.pattern === 'string') {
    try {
      if (!new RegExp(s.pattern, 'u').test(text)) return false;
    } catch {
      // An unparsable pattern does not rule a value out.
    }
  }
  if (s.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return false;
  if (typeof s.maxLength === 'number' && text.length > s.maxLength) return false;
  if (typeof s.minLength === 'number' && text.length < s.minLength) return false;
  return true;
}

/** One sighting's identity in `add`'s index: the value compared as `===` compares it (1 and "1" are two values). */
function sightingId(identity: Identity, value: string | number): string {
  return `${identity}\u0000${typeof value === 'number' ? 'n' : 's'}${value}`;
}

export class ResourcePool {
  private byKey = new Map<string, Entry[]>();

  /** Per key, its entries by identity and value (`add` deduplicates every harvested property against it). */
  private seen = new Map<string, Map<string, Entry>>();

  /** Files a value under a key (deduplicated; an owned sighting upgrades an earlier plain one). */
  add(key: string, v: HarvestedValue): void {
    if (typeof v.value === 'string' && (v.value.length === 0 || v.value.length > 200 || /[\r\n]/.test(v.value))) return;
    if (typeof v.value === 'number' && !Number.isFinite(v.value)) return;
    const k = normKey(key);
    if (!k) return;
    let list = this.byKey.get(k);
    let seen = this.seen.get(k);
    if (!list || !seen) {
      this.byKey.set(k, (list = []));
      this.seen.set(k, (seen = new Map()));
    }
    const id = sightingId(v.identity, v.value);
    const same = seen.get(id);
    if (same) {
      if (v.owned && !same.owned) Object.assign(same, v, { key: k });
      return;
    }
    if (list.length >= MAX_VALUES_PER_KEY) {
      // What the scan owns always finds room (long lists seen by both identities fill a key first).
      if (!v.owned) return;
      const plain = list.findLastIndex((e) => !e.owned);
      if (plain < 0) return;
      const [gone] = list.splice(plain, 1);
      seen.delete(sightingId(gone!.identity, gone!.value));
    }
    const entry = { ...v, key: k };
    list.push(entry);
    seen.set(id, entry);
  }

  /** A value the target moved (a slug renamed by an update): filed under its new value wherever the old one was, under `keys`. */
  rename(keys: string[], from: string, to: string | number): void {
    for (const k of keys) {
      const list = this.byKey.get(normKey(k));
      if (!list) continue;
      for (const e of list) if (String(e.value) === from) e.value = to;
      // Two sightings now the same value: the first (an owned one upgraded) stays.
      const seen = new Set<string>();
      for (let i = 0; i < list.length; i++) {
        const id = `${list[i].identity}\u0000${String(list[i].value)}`;
        if (seen.has(id)) {
          if (list[i].owned) {
            const first = list.findIndex((e) => `${e.identity}\u0000${String(e.value)}` === id);
            list[first].owned = true;
          }
          list.splice(i--, 1);
        } else seen.add(id);
      }
      this.seen.set(normKey(k), new Map(list.map((e) => [sightingId(e.identity, e.value), e])));
    }
  }

  /**
   * Harvests a JSON body: every primitive under its property name, identifying ones also under
   * the resource they belong to (the response's own resource at the top, the parent property's
   * name when nested: `author.id` -> `authorid`).
   */
  harvestJson(body: unknown, op: Operation, identity: Identity, owned: boolean): void {
    const top = resourceOf(op.path);
    const walk = (node: unknown, resource: string | undefined, depth: number) => {
      if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const item of node.slice(0, MAX_ITEMS)) walk(item, resource, depth + 1);
        return;
      }
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
        if (typeof v === 'string' || typeof v === 'number') {
          const base = { value: v, source: k, from: op.key, identity, owned };
          this.add(k, base);
          const nk = normKey(k);
          if (resource && IDENTIFYING.has(nk)) this.add(`${resource}${nk}`, base);
        } else if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
          // A list of plain values (`tagList: ["intro"]`, `tags`): each under the list's name and its singular.
          for (const item of v.slice(0, MAX_ITEMS) as (string | number)[]) {
            const base = { value: item, source: k, from: op.key, identity, owned };
            this.add(k, base);
            this.add(singular(k.replace(/list$/i, '').replace(/[^A-Za-z0-9]/g, '')) || k, base);
          }
        } else if (v && typeof v === 'object') {
          // Wrappers (`data`, `items`, `results`) keep the resource; a named child is its own resource.
          const child = /^(data|items|results|records|content|list|rows|entries|objects|payload|result|value)$/i.test(k)
            ? resource
            : singular(k.replace(/[^A-Za-z0-9]/g, ''));
          walk(v, child, depth + 1);
        }
      }
    };
    walk(body, top, 0);
  }

  /**
   * Values under any of `keys`, best first: owned by the identity, then seen by it, then seen by
   * anyone. Values found only under a bare `id`, `name`... are a last resort, left out when a more
   * specific key has one: they may belong to another resource (a thing the scan created has no
   * invoice id).
   */
  lookup(keys: string[], opts: { identity?: Identity; owned?: boolean; fits?: (v: string | number) => boolean } = {}): HarvestedValue[] {
    const out: Entry[] = [];
    for (const k of keys) for (const e of this.byKey.get(normKey(k)) ?? []) if (!out.some((o) => o.value === e.value && o.identity === e.identity)) out.push(e);
    const rank = (e: Entry) => {
      // The identity's own account (its token's claims) before what the scan created as it.
      if (opts.identity && e.identity === opts.identity) return e.owned ? (e.from === 'token' ? -1 : 0) : 2;
      return e.owned ? 3 : 4;
    };
    const fitting = out.filter((e) => !opts.fits || opts.fits(e.value));
    // Decided before the `owned` filter: an owned thing id is no invoice id even when no invoice is owned.
    const bare = (e: Entry) => keys.length > 1 && AMBIGUOUS.has(e.key);
    const specific = fitting.filter((e) => !bare(e));
    return (specific.length ? specific : fitting)
      .filter((e) => (opts.owned ? e.owned && (!opts.identity || e.identity === opts.identity) : true))
      .map((e, i) => ({ e, i }))
      .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
      .map(({ e }) => ({ value: e.value, source: e.source, from: e.from, identity: e.identity, owned: e.owned }));
  }

  /**
   * Best real value for each required query parameter of an operation (a filter such as `author`,
   * `tag`, `status`): a value the target itself answered, so the filter selects real data instead of
   * nothing. Parameters without one are left out (the spec's value is used).
   */
  queryValues(op: Operation, identity: Identity): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of op.params) {
      if (p.in !== 'query' || !p.required) continue;
      const best = this.lookup(keysForQuery(p.name), { identity, fits: (v) => fitsSchema(v, p) })[0];
      if (best) out[p.name] = String(best.value);
    }
    return out;
  }

  /** Best real value for each path parameter of an operation; params without one are left out. */
  pathValues(op: Operation, identity: Identity): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of op.params) {
      if (p.in !== 'path') continue;
      // A DELETE removes only what the scan created (the user's own data stays): no such value, none given (an invented one is used).
      const found = this.lookup(keysForParam(op, p.name), { identity, fits: (v) => fitsSchema(v, p), owned: op.method === 'DELETE' });
      const best = (op.method === 'DELETE' ? found.filter((e) => e.from !== 'token') : found)[0];
      if (best) out[p.name] = String(best.value);
    }
    return out;
  }
}

/** The objects of a list answer (a bare array, or the first array of objects in an envelope). */
export function listedItems(json: unknown): Record<string, unknown>[] {
  const isItems = (v: unknown): v is Record<string, unknown>[] => Array.isArray(v) && v.some((x) => x && typeof x === 'object' && !Array.isArray(x));
  if (isItems(json)) return json.filter((x) => x && typeof x === 'object' && !Array.isArray(x));
  if (json && typeof json === 'object')
    for (const v of Object.values(json as Record<string, unknown>)) if (isItems(v)) return v.filter((x) => x && typeof x === 'object' && !Array.isArray(x));
  return [];
}
