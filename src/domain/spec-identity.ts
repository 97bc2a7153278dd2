/**
 * Which API specification a security scan is about, identified stably (docs/api.md "API specification
 * quota"): no I/O. The identity decides whether a scan is the first of a new specification in the
 * period (and counts against the plan's `API specifications` quota) or one of a known specification (free
 * of that quota).
 *
 * - A document given inline (`spec_content`, an uploaded `spec_file`) is identified by its normalised
 *   content: the title (trimmed, spaces collapsed, case folded), the set of server URLs (OpenAPI 3
 *   `servers`, Swagger 2 `schemes` x `host` + `basePath`; case folded, trailing slash dropped) and the set
 *   of operations (`METHOD /path`, path parameter names dropped: `/pets/{id}` = `/pets/{petId}`).
 *   Renaming the file, reordering keys or operations, reformatting (JSON or YAML), editing descriptions,
 *   examples, schemas or `info.version` keep the identity; changing the title, a server or the
 *   operation set makes a new specification.
 * - A document given by `spec_url` is identified by its normalised URL (scheme and host case folded,
 *   default port and fragment dropped): the API does not fetch it at admission.
 * - A security scan with neither is about the specification discovered at the target: identified by
 *   the target's origin.
 * - A document that cannot be read as JSON or YAML is identified by its text without surrounding or
 *   trailing whitespace (the worker then fails it as SPEC_INVALID; it still counted, like any scan).
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** What a scan says about its specification. */
export interface SpecSource {
  /** The scan's target URL. */
  url: string;
  spec_url?: string;
  /** The decoded inline document. */
  spec_text?: string;
}

export interface SpecIdentity {
  /** Stable key: `doc:`, `url:`, `target:` or `text:` followed by a SHA-256 (hex) of the normalised parts. */
  key: string;
  /** What people recognise the specification by: its title, its URL or the target's origin (at most 200 characters). */
  label: string;
}

export function specIdentity(source: SpecSource): SpecIdentity {
  if (source.spec_text !== undefined) return documentIdentity(source.spec_text);
  if (source.spec_url !== undefined) {
    const url = normalisedUrl(source.spec_url);
    return { key: `url:${sha256(url)}`, label: url.slice(0, 200) };
  }
  const origin = originOf(source.url);
  return { key: `target:${sha256(origin)}`, label: `discovered at ${origin}`.slice(0, 200) };
}

/** The identity of an inline document (see the module comment). */
export function documentIdentity(text: string): SpecIdentity {
  const doc = parseDocument(text);
  if (!doc) {
    const trimmed = text.replace(/^\uFEFF/, '').trim();
    return { key: `text:${sha256(trimmed)}`, label: 'unreadable specification' };
  }
  const info = isObject(doc.info) ? doc.info : {};
  const title = typeof info.title === 'string' ? info.title.trim().replace(/\s+/g, ' ') : '';
  const parts = { title: title.toLowerCase(), servers: serversOf(doc), operations: operationsOf(doc) };
  return { key: `doc:${sha256(JSON.stringify(parts))}`, label: (title || 'untitled specification').slice(0, 200) };
}

function parseDocument(text: string): Record<string, unknown> | undefined {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  try {
    const doc: unknown = trimmed.startsWith('{') ? JSON.parse(trimmed) : parseYaml(trimmed, { maxAliasCount: 1000 });
    return isObject(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

function serversOf(doc: Record<string, unknown>): string[] {
  const urls: string[] = [];
  if (Array.isArray(doc.servers)) {
    for (const server of doc.servers) if (isObject(server) && typeof server.url === 'string') urls.push(server.url);
  } else if (typeof doc.host === 'string' || typeof doc.basePath === 'string') {
    const schemes = Array.isArray(doc.schemes) && doc.schemes.length > 0 ? doc.schemes.filter((s): s is string => typeof s === 'string') : ['https'];
    const host = typeof doc.host === 'string' ? doc.host : '';
    const basePath = typeof doc.basePath === 'string' ? doc.basePath : '';
    for (const scheme of schemes) urls.push(`${scheme}://${host}${basePath}`);
  }
  return sortedSet(urls.map((u) => u.trim().toLowerCase().replace(/\/+$/, '')));
}

function operationsOf(doc: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (!isObject(doc.paths)) return out;
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObject(item)) continue;
    const shape = path.replace(/\{[^}]*\}/g, '{}');
    for (const method of METHODS) if (item[method] !== undefined) out.push(`${method.toUpperCase()} ${shape}`);
  }
  return sortedSet(out);
}

function normalisedUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.hash = '';
    return u.toString();
  } catch {
    return raw.trim();
  }
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return raw.trim();
  }
}

function sortedSet(values: string[]): string[] {
  return [...new Set(values)].sort();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
