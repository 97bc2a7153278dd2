/**
 * Spec loading: given text, a URL, or discovery at the target's usual paths. Swagger 2.0 and
 * OpenAPI 3.0/3.1, JSON or YAML; $refs (local and relative) resolved through the guarded client,
 * never from the scanner's own filesystem. The operation limit (VIGIL_SPEC_MAX_OPERATIONS) is
 * enforced before the slow YAML parse where the layout allows, after it, and on the built model.
 */
import { createHash } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { EngineFailure, targetBlocked } from '../../engine.js';
import type { TargetClient } from '../client.js';
import { countOperations, countYamlOperations } from '../spec-size.js';
import type { ApiModel } from '../types.js';
import type { ParsedDocument } from './document.js';
import { buildModel } from './model.js';

export const DISCOVERY_PATHS = [
  '/openapi.json',
  '/swagger.json',
  '/v3/api-docs',
  '/openapi.yaml',
  '/openapi.yml',
  '/swagger.yaml',
  '/v2/api-docs',
  '/api-docs',
  '/api-docs.json',
  '/swagger/v1/swagger.json',
  '/docs/openapi.json',
  '/api/openapi.json',
];

export interface LoadedSpec {
  model: ApiModel;
  /** Where the document came from: "spec_text", the spec URL, or the discovered URL. */
  source: string;
}

/** Parses JSON or YAML text into an object; throws SPEC_INVALID with the parser's reason. */
export function parseSpecText(text: string, where = 'specification'): ParsedDocument {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) throw new EngineFailure('SPEC_INVALID', `The ${where} is empty.`);
  let doc: unknown;
  try {
    doc = trimmed.startsWith('{') ? JSON.parse(trimmed) : parseYaml(trimmed, { maxAliasCount: 1000 });
  } catch (err) {
    throw new EngineFailure('SPEC_INVALID', `The ${where} is neither valid JSON nor valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new EngineFailure('SPEC_INVALID', `The ${where} is not an object (expected an OpenAPI or Swagger document).`);
  }
  const d = doc as ParsedDocument;
  const version = String(d.openapi ?? d.swagger ?? '');
  if (!/^(2\.0|3\.[01](\.\d+)?)/.test(version)) {
    throw new EngineFailure(
      'SPEC_INVALID',
      d.openapi || d.swagger
        ? `Unsupported specification version "${version}" (supported: Swagger 2.0, OpenAPI 3.0, OpenAPI 3.1).`
        : `The ${where} has no "openapi" or "swagger" version field; it is not an OpenAPI/Swagger document.`,
    );
  }
  if (!d.paths || typeof d.paths !== 'object') {
    if (!(d.webhooks && version.startsWith('3.1'))) throw new EngineFailure('SPEC_INVALID', `The ${where} has no "paths" object.`);
  }
  return d;
}

function hasRef(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasRef);
  for (const k in v as Record<string, unknown>) {
    if (k === '$ref') return true;
    if (hasRef((v as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/** Resolves every $ref. External refs are fetched with `fetchText` (the guarded client), relative to `baseUrl`. */
export async function dereferenceSpec(
  doc: ParsedDocument,
  baseUrl: string,
  fetchText: ((url: string) => Promise<string>) | undefined,
): Promise<ParsedDocument> {
  // Nothing to resolve: skip the parser's clone-and-walk (tens of ms on a few hundred operations).
  if (!hasRef(doc)) return doc;
  const options: SwaggerParser.Options = {
    resolve: {
      external: Boolean(fetchText),
      // Never read the scanner's own files, whatever a spec's $ref says.
      file: false,
      http: false,
      guarded: {
        order: 1,
        canRead: /^https?:\/\//i,
        read: async (file: { url: string }) => {
          if (!fetchText) throw new Error('external references are disabled');
          return fetchText(file.url);
        },
      },
    } as never,
    dereference: { circular: true } as never,
    validate: { schema: false, spec: false },
  };
  try {
    // The "api" argument is cloned by the parser; baseUrl anchors relative refs.
    return (await SwaggerParser.dereference(baseUrl, structuredClone(doc) as never, options)) as ParsedDocument;
  } catch (err) {
    if (err instanceof EngineFailure) throw err;
    throw new EngineFailure('SPEC_INVALID', `The specification's $refs could not be resolved: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** True when every $ref of the document points into the document itself: its dereferenced form depends on its text alone. */
function onlyLocalRefs(v: unknown): boolean {
  if (!v || typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(onlyLocalRefs);
  const o = v as Record<string, unknown>;
  if (typeof o.$ref === 'string' && !o.$ref.startsWith('#')) return false;
  for (const k in o) if (!onlyLocalRefs(o[k])) return false;
  return true;
}

/** Dereferenced documents kept by a process (a worker scans the same API again and again), most recent last. */
const RECENT_SPECS = 4;
/** Larger texts are not kept (their documents would hold tens of megabytes). */
const RECENT_SPEC_MAX_CHARS = 2 * 1024 * 1024;
const recentSpecs = new Map<string, ParsedDocument>();

function specKey(text: string, base: string): string {
  return createHash('sha256').update(text).update('\u0000').update(base).digest('base64');
}

/**
 * The dereferenced document of a specification text this process parsed and dereferenced before
 * (its $refs all local, so nothing fetched went into it), as a copy the scan may change; undefined
 * otherwise. Parsing and dereferencing a real API's spec (650 KB) took a tenth of a scan's CPU.
 */
function recentSpec(text: string, base: string, limit: number | undefined, where: string): ParsedDocument | undefined {
  if (text.length > RECENT_SPEC_MAX_CHARS) return undefined;
  const key = specKey(text, base);
  const doc = recentSpecs.get(key);
  if (!doc) return undefined;
  recentSpecs.delete(key);
  recentSpecs.set(key, doc);
  enforceOperationLimit(countOperations(doc), limit, where);
  return structuredClone(doc);
}

function rememberSpec(text: string, base: string, parsed: ParsedDocument, dereferenced: ParsedDocument): void {
  if (text.length > RECENT_SPEC_MAX_CHARS || !onlyLocalRefs(parsed)) return;
  if (recentSpecs.size >= RECENT_SPECS) recentSpecs.delete(recentSpecs.keys().next().value!);
  // A copy: the scan's own document stays its own.
  recentSpecs.set(specKey(text, base), structuredClone(dereferenced));
}

export interface SpecSource {
  specText?: string;
  specUrl?: string;
  targetUrl: string;
  /** Most operations scanned (VIGIL_SPEC_MAX_OPERATIONS); a larger spec fails the scan with SPEC_TOO_LARGE. */
  maxOperations?: number;
  /** Largest document (VIGIL_SPEC_MAX_BYTES), however it arrives; a larger one fails with SPEC_TOO_LARGE. */
  maxBytes?: number;
}

/** Default of VIGIL_SPEC_MAX_BYTES: the same 5 MiB as an uploaded or inline specification. */
export const DEFAULT_SPEC_MAX_BYTES = 5 * 1024 * 1024;

function enforceByteLimit(size: number, limit: number, where: string): void {
  if (size <= limit) return;
  throw new EngineFailure(
    'SPEC_TOO_LARGE',
    `The ${where} is ${formatMiB(size)}; this server reads specifications of at most ${formatMiB(limit)} (VIGIL_SPEC_MAX_BYTES).`,
  );
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

function enforceOperationLimit(count: number | undefined, limit: number | undefined, where: string): void {
  if (limit === undefined || count === undefined || count <= limit) return;
  throw new EngineFailure(
    'SPEC_TOO_LARGE',
    `The ${where} has ${count} operations; this server scans at most ${limit} per scan (VIGIL_SPEC_MAX_OPERATIONS). Scan a smaller specification.`,
  );
}

/**
 * parseSpecText within the operation limit: a YAML text is counted by its layout before the parser
 * (which takes seconds on a few megabytes) runs, the parsed document is counted again (JSON, flow
 * style), and the built model once more (path items behind $ref).
 */
function parseWithinLimit(text: string, where: string, limit: number | undefined): ParsedDocument {
  if (
    limit !== undefined &&
    !text
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('{')
  )
    enforceOperationLimit(countYamlOperations(text), limit, where);
  const doc = parseSpecText(text, where);
  enforceOperationLimit(countOperations(doc), limit, where);
  return doc;
}

function modelWithinLimit(doc: ParsedDocument, targetUrl: string, limit: number | undefined, where: string): ApiModel {
  const model = buildModel(doc, targetUrl);
  enforceOperationLimit(model.operations.length, limit, where);
  return model;
}

/**
 * Fetches a document through the guarded client, keeping up to `maxBytes` of it (a target answer is
 * otherwise cut at the engine's response cap, far below a real specification's size).
 */
async function fetchDoc(client: TargetClient, url: string, headers: Record<string, string>, maxBytes: number) {
  const res = await client.send({
    method: 'GET',
    url,
    headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5', ...headers },
    followRedirects: true,
    maxBodyBytes: maxBytes + 1,
  });
  return res;
}

export async function loadSpec(client: TargetClient, src: SpecSource, authHeaders: () => Promise<Record<string, string>>): Promise<LoadedSpec> {
  const maxBytes = src.maxBytes ?? DEFAULT_SPEC_MAX_BYTES;
  const fetchText = async (url: string): Promise<string> => {
    const sameOrigin = new URL(url).origin === new URL(src.targetUrl).origin;
    const res = await fetchDoc(client, url, sameOrigin ? await authHeaders() : {}, maxBytes);
    if (res.status === 0) throw new Error(`${url}: ${res.errorMessage ?? res.error}`);
    if (res.status < 200 || res.status > 299) throw new Error(`${url} answered HTTP ${res.status}`);
    enforceByteLimit(res.size, maxBytes, `document referenced at ${url}`);
    return res.body;
  };

  const limit = src.maxOperations;
  if (src.specText !== undefined) {
    const base = src.specUrl ?? new URL('/openapi.json', src.targetUrl).href;
    const recent = recentSpec(src.specText, base, limit, 'specification content');
    if (recent) return { model: modelWithinLimit(recent, src.targetUrl, limit, 'specification content'), source: 'spec_text' };
    const doc = parseWithinLimit(src.specText, 'specification content', limit);
    const deref = await dereferenceSpec(doc, base, fetchText);
    rememberSpec(src.specText, base, doc, deref);
    return { model: modelWithinLimit(deref, src.targetUrl, limit, 'specification content'), source: 'spec_text' };
  }

  if (src.specUrl) {
    const res = await fetchDoc(client, src.specUrl, new URL(src.specUrl).origin === new URL(src.targetUrl).origin ? await authHeaders() : {}, maxBytes);
    if (res.status === 0) {
      if (res.error === 'blocked') throw targetBlocked(`spec_url ${src.specUrl}`);
      throw new EngineFailure('SPEC_NOT_FOUND', `spec_url ${src.specUrl} could not be fetched: ${res.errorMessage ?? res.error}.`);
    }
    if (res.status < 200 || res.status > 299) throw new EngineFailure('SPEC_NOT_FOUND', `spec_url ${src.specUrl} answered HTTP ${res.status}.`);
    const where = `document at spec_url ${src.specUrl}`;
    enforceByteLimit(res.size, maxBytes, where);
    const recent = recentSpec(res.body, res.request.url, limit, where);
    if (recent) return { model: modelWithinLimit(recent, src.targetUrl, limit, where), source: src.specUrl };
    const doc = parseWithinLimit(res.body, where, limit);
    const deref = await dereferenceSpec(doc, res.request.url, fetchText);
    rememberSpec(res.body, res.request.url, doc, deref);
    return { model: modelWithinLimit(deref, src.targetUrl, limit, where), source: src.specUrl };
  }

  // Discovery: relative to the target URL's path first, then the origin root.
  const target = new URL(src.targetUrl);
  const prefixes = [target.pathname.replace(/\/+$/, '')];
  if (prefixes[0] !== '') prefixes.push('');
  const tried: string[] = [];
  const headers = await authHeaders();
  for (const prefix of prefixes) {
    for (const p of DISCOVERY_PATHS) {
      const url = new URL(prefix + p, target.origin).href;
      tried.push(prefix + p);
      const res = await fetchDoc(client, url, headers, maxBytes);
      if (res.status === 0 && res.error === 'blocked') {
        throw targetBlocked(`The target ${target.host}`);
      }
      if (res.status === 0 && tried.length === 1) {
        throw new EngineFailure('TARGET_UNREACHABLE', `The target ${target.origin} could not be reached: ${res.errorMessage ?? res.error}.`);
      }
      if (res.status < 200 || res.status > 299 || !res.body.trim()) continue;
      if (res.size > maxBytes && /^\s*(\{|openapi\s*:|swagger\s*:)/.test(res.body)) enforceByteLimit(res.size, maxBytes, `document at ${url}`);
      const recent = recentSpec(res.body, res.request.url, limit, `document at ${url}`);
      if (recent) return { model: modelWithinLimit(recent, src.targetUrl, limit, `document at ${url}`), source: url };
      let doc: ParsedDocument;
      try {
        doc = parseWithinLimit(res.body, `document at ${url}`, limit);
      } catch (err) {
        if (err instanceof EngineFailure && err.code === 'SPEC_TOO_LARGE') throw err;
        continue; // an HTML page or something else: keep looking
      }
      const deref = await dereferenceSpec(doc, res.request.url, fetchText);
      rememberSpec(res.body, res.request.url, doc, deref);
      return { model: modelWithinLimit(deref, src.targetUrl, limit, `document at ${url}`), source: url };
    }
  }
  throw new EngineFailure(
    'SPEC_NOT_FOUND',
    `No OpenAPI/Swagger document was given and none was found at the target's usual paths (${tried.slice(0, 6).join(', ')}, ...). Pass spec_url or spec_content.`,
  );
}
