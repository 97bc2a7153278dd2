/**
 * Spec loading: given text, a URL, or discovery at the target's usual paths. Swagger 2.0 and
 * OpenAPI 3.0/3.1, JSON or YAML; $refs (local and relative) resolved through the guarded client,
 * never from the scanner's own filesystem.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { EngineFailure } from '../engine.js';
import type { TargetClient } from './client.js';
import { countOperations, countYamlOperations, SPEC_METHODS } from './spec-size.js';
import type { ApiModel, BodySpec, JsonSchema, Operation, ParamLocation, ParamSpec, ResponseSpec } from './types.js';

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

const METHODS = SPEC_METHODS;

export interface LoadedSpec {
  model: ApiModel;
  /** Where the document came from: "spec_text", the spec URL, or the discovered URL. */
  source: string;
}

/** Parses JSON or YAML text into an object; throws SPEC_INVALID with the parser's reason. */
export function parseSpecText(text: string, where = 'specification'): Record<string, any> {
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
  const d = doc as Record<string, any>;
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
  doc: Record<string, any>,
  baseUrl: string,
  fetchText: ((url: string) => Promise<string>) | undefined,
): Promise<Record<string, any>> {
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
    return (await SwaggerParser.dereference(baseUrl, structuredClone(doc) as never, options)) as Record<string, any>;
  } catch (err) {
    if (err instanceof EngineFailure) throw err;
    throw new EngineFailure('SPEC_INVALID', `The specification's $refs could not be resolved: ${(err as Error).message.split('\n')[0]}`);
  }
}

function lower(o: unknown): Record<string, any> {
  return o && typeof o === 'object' ? (o as Record<string, any>) : {};
}

function pickMedia(content: Record<string, any>): [string, any] | undefined {
  const types = Object.keys(content);
  if (types.length === 0) return undefined;
  const pref = [
    (t: string) => /^application\/json/i.test(t),
    (t: string) => /\+json/i.test(t),
    (t: string) => /x-www-form-urlencoded/i.test(t),
    (t: string) => /multipart\/form-data/i.test(t),
    (t: string) => /^text\//i.test(t),
    () => true,
  ];
  for (const p of pref) {
    const t = types.find(p);
    if (t) return [t, content[t]];
  }
  return undefined;
}

function firstExample(media: Record<string, any>): unknown {
  if (media.example !== undefined) return media.example;
  const ex = lower(media.examples);
  for (const v of Object.values(ex)) {
    const e = lower(v);
    if (e.value !== undefined) return e.value;
  }
  return undefined;
}

/** Turns a dereferenced 2.0 / 3.x document into the engine's operation model. */
export function buildModel(doc: Record<string, any>, targetUrl: string): ApiModel {
  const isSwagger2 = String(doc.swagger ?? '').startsWith('2');
  let serverPath = '';
  let serverSchemes: string[] = [];
  if (isSwagger2) {
    serverPath = typeof doc.basePath === 'string' ? doc.basePath : '';
    serverSchemes = Array.isArray(doc.schemes) ? doc.schemes.map(String) : [];
  } else {
    const server = Array.isArray(doc.servers) ? lower(doc.servers[0]) : {};
    let url = typeof server.url === 'string' ? server.url : '/';
    for (const [name, v] of Object.entries(lower(server.variables))) {
      url = url.replaceAll(`{${name}}`, String(lower(v).default ?? ''));
    }
    try {
      const u = new URL(url, targetUrl);
      serverPath = decodeURI(u.pathname);
    } catch {
      serverPath = '';
    }
    // Schemes of every absolute server URL (relative ones inherit the target's).
    for (const s of Array.isArray(doc.servers) ? doc.servers : []) {
      const m = /^(https?):/i.exec(String(lower(s).url ?? ''));
      if (m && !serverSchemes.includes(m[1].toLowerCase())) serverSchemes.push(m[1].toLowerCase());
    }
  }
  serverPath = serverPath.replace(/\/+$/, '');

  const globalSecurity = Array.isArray(doc.security) ? doc.security : [];
  const operations: Operation[] = [];
  for (const [path, rawItem] of Object.entries(lower(doc.paths))) {
    const item = lower(rawItem);
    const shared: any[] = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = lower(item[method]);
      if (!item[method]) continue;
      const opParams: any[] = Array.isArray(op.parameters) ? op.parameters : [];
      const merged = new Map<string, any>();
      for (const p of [...shared, ...opParams]) {
        const pp = lower(p);
        if (!pp.name || !pp.in) continue;
        merged.set(`${pp.in}:${pp.name}`, pp);
      }
      const params: ParamSpec[] = [];
      let body: BodySpec | undefined;
      const formFields: Record<string, JsonSchema> = {};
      const formRequired: string[] = [];
      for (const p of merged.values()) {
        if (isSwagger2 && p.in === 'body') {
          const consumes: string[] = op.consumes ?? doc.consumes ?? ['application/json'];
          body = {
            contentType: consumes.find((c) => /json/i.test(c)) ?? consumes[0] ?? 'application/json',
            schema: lower(p.schema),
            example: p['x-example'] ?? lower(p.schema).example,
            required: Boolean(p.required),
          };
          continue;
        }
        if (isSwagger2 && p.in === 'formData') {
          const { name, in: _in, required, description: _d, ...schema } = p;
          formFields[name] = schema.type === 'file' ? { type: 'string', format: 'binary' } : schema;
          if (required) formRequired.push(name);
          continue;
        }
        if (!['path', 'query', 'header', 'cookie'].includes(p.in)) continue;
        let schema: JsonSchema;
        let example: unknown = p.example ?? p['x-example'];
        if (isSwagger2) {
          const { name: _n, in: _i, required: _r, description: _d, ...rest } = p;
          schema = rest;
        } else if (p.schema) {
          schema = lower(p.schema);
        } else if (p.content) {
          const media = pickMedia(lower(p.content));
          schema = lower(media?.[1]?.schema);
          example ??= media ? firstExample(lower(media[1])) : undefined;
        } else {
          schema = { type: 'string' };
        }
        if (example === undefined && p.examples) example = firstExample({ examples: p.examples });
        params.push({ name: String(p.name), in: p.in as ParamLocation, required: p.in === 'path' || Boolean(p.required), schema, example });
      }
      if (isSwagger2 && Object.keys(formFields).length > 0 && !body) {
        const consumes: string[] = op.consumes ?? doc.consumes ?? [];
        body = {
          contentType: consumes.find((c) => /multipart/i.test(c)) ?? 'application/x-www-form-urlencoded',
          schema: { type: 'object', properties: formFields, required: formRequired },
          required: formRequired.length > 0,
        };
      }
      if (!isSwagger2 && op.requestBody) {
        const rb = lower(op.requestBody);
        const media = pickMedia(lower(rb.content));
        if (media) {
          const m = lower(media[1]);
          body = { contentType: media[0], schema: lower(m.schema), example: firstExample(m), required: Boolean(rb.required) };
        }
      }
      // Path parameters the spec forgot to declare still need a value.
      for (const m of path.matchAll(/\{([^}]+)\}/g)) {
        if (!params.some((p) => p.in === 'path' && p.name === m[1])) {
          params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
        }
      }
      const responses: Record<string, ResponseSpec> = {};
      for (const [status, rawRes] of Object.entries(lower(op.responses))) {
        const r = lower(rawRes);
        if (isSwagger2) {
          const produces: string[] = op.produces ?? doc.produces ?? ['application/json'];
          responses[status] = { schema: r.schema ? lower(r.schema) : undefined, contentTypes: r.schema ? produces : [] };
        } else {
          const content = lower(r.content);
          const media = pickMedia(content);
          responses[status] = { schema: media && media[1]?.schema ? lower(media[1].schema) : undefined, contentTypes: Object.keys(content) };
        }
      }
      const security = Array.isArray(op.security) ? op.security : globalSecurity;
      const secured = security.length > 0 && !security.some((req: unknown) => Object.keys(lower(req)).length === 0);
      const extensions: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(op)) if (k.startsWith('x-')) extensions[k] = v;
      const upper = method.toUpperCase();
      operations.push({
        key: `${upper} ${path}`,
        method: upper,
        path,
        operationId: typeof op.operationId === 'string' ? op.operationId : undefined,
        summary: typeof op.summary === 'string' ? op.summary : undefined,
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        params,
        body,
        responses,
        secured,
        publicByDesign: Array.isArray(op.security) && op.security.length === 0,
        links: [],
        extensions,
      });
    }
  }
  const info = lower(doc.info);
  return {
    title: String(info.title ?? 'API'),
    apiVersion: String(info.version ?? ''),
    specVersion: String(doc.openapi ?? doc.swagger),
    serverPath,
    serverSchemes,
    operations,
  };
}

export interface SpecSource {
  specText?: string;
  specUrl?: string;
  targetUrl: string;
  /** Most operations scanned (VIGIL_SPEC_MAX_OPERATIONS); a larger spec fails the scan with SPEC_TOO_LARGE. */
  maxOperations?: number;
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
function parseWithinLimit(text: string, where: string, limit: number | undefined): Record<string, any> {
  if (limit !== undefined && !text.replace(/^\uFEFF/, '').trimStart().startsWith('{')) enforceOperationLimit(countYamlOperations(text), limit, where);
  const doc = parseSpecText(text, where);
  enforceOperationLimit(countOperations(doc), limit, where);
  return doc;
}

function modelWithinLimit(doc: Record<string, any>, targetUrl: string, limit: number | undefined, where: string): ApiModel {
  const model = buildModel(doc, targetUrl);
  enforceOperationLimit(model.operations.length, limit, where);
  return model;
}

/** Fetches a document through the guarded client; returns undefined for non-2xx. */
async function fetchDoc(client: TargetClient, url: string, headers: Record<string, string>) {
  const res = await client.send({
    method: 'GET',
    url,
    headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5', ...headers },
    followRedirects: true,
  });
  return res;
}

export async function loadSpec(client: TargetClient, src: SpecSource, authHeaders: () => Promise<Record<string, string>>): Promise<LoadedSpec> {
  const fetchText = async (url: string): Promise<string> => {
    const sameOrigin = new URL(url).origin === new URL(src.targetUrl).origin;
    const res = await fetchDoc(client, url, sameOrigin ? await authHeaders() : {});
    if (res.status === 0) throw new Error(`${url}: ${res.errorMessage ?? res.error}`);
    if (res.status < 200 || res.status > 299) throw new Error(`${url} answered HTTP ${res.status}`);
    return res.body;
  };

  const limit = src.maxOperations;
  if (src.specText !== undefined) {
    const doc = parseWithinLimit(src.specText, 'specification content', limit);
    const base = src.specUrl ?? new URL('/openapi.json', src.targetUrl).href;
    const deref = await dereferenceSpec(doc, base, fetchText);
    return { model: modelWithinLimit(deref, src.targetUrl, limit, 'specification content'), source: 'spec_text' };
  }

  if (src.specUrl) {
    const res = await fetchDoc(client, src.specUrl, new URL(src.specUrl).origin === new URL(src.targetUrl).origin ? await authHeaders() : {});
    if (res.status === 0) {
      if (res.error === 'blocked') throw new EngineFailure('TARGET_BLOCKED', `spec_url ${src.specUrl} resolves to a non-public address, which hosted scans may not reach.`);
      throw new EngineFailure('SPEC_NOT_FOUND', `spec_url ${src.specUrl} could not be fetched: ${res.errorMessage ?? res.error}.`);
    }
    if (res.status < 200 || res.status > 299) throw new EngineFailure('SPEC_NOT_FOUND', `spec_url ${src.specUrl} answered HTTP ${res.status}.`);
    const where = `document at spec_url ${src.specUrl}`;
    const doc = parseWithinLimit(res.body, where, limit);
    const deref = await dereferenceSpec(doc, res.request.url, fetchText);
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
      const res = await fetchDoc(client, url, headers);
      if (res.status === 0 && res.error === 'blocked') {
        throw new EngineFailure('TARGET_BLOCKED', `The target ${target.host} resolves to a non-public address, which hosted scans may not reach.`);
      }
      if (res.status === 0 && tried.length === 1) {
        throw new EngineFailure('TARGET_UNREACHABLE', `The target ${target.origin} could not be reached: ${res.errorMessage ?? res.error}.`);
      }
      if (res.status < 200 || res.status > 299 || !res.body.trim()) continue;
      let doc: Record<string, any>;
      try {
        doc = parseWithinLimit(res.body, `document at ${url}`, limit);
      } catch (err) {
        if (err instanceof EngineFailure && err.code === 'SPEC_TOO_LARGE') throw err;
        continue; // an HTML page or something else: keep looking
      }
      const deref = await dereferenceSpec(doc, res.request.url, fetchText);
      return { model: modelWithinLimit(deref, src.targetUrl, limit, `document at ${url}`), source: url };
    }
  }
  throw new EngineFailure(
    'SPEC_NOT_FOUND',
    `No OpenAPI/Swagger document was given and none was found at the target's usual paths (${tried.slice(0, 6).join(', ')}, ...). Pass spec_url or spec_content.`,
  );
}
