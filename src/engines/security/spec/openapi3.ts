/** OpenAPI 3.0 / 3.1: operations (request bodies by media type, response links) and the first server's path. */
import { SPEC_METHODS } from '../spec-size.js';
import type { BodySpec, JsonSchema, Operation, OperationLink, ParamSpec, ResponseSpec } from '../types.js';
import type { Link, OpenApi3Document, OpenApi3Operation, OpenApi3Parameter } from './document.js';
import { addUndeclaredPathParams, assembleOperation, firstExample, isParamLocation, mergeParameters, pickMedia, type ServerInfo } from './operation.js';
import { localPointerTokens } from './pointer.js';

export function openApi3Server(doc: OpenApi3Document, targetUrl: string): ServerInfo {
  const server = doc.servers[0];
  let url = server?.url ?? '/';
  for (const [name, variable] of server?.variables ?? []) url = url.replaceAll(`{${name}}`, variable.default ?? '');
  let serverPath: string;
  try {
    serverPath = decodeURI(new URL(url, targetUrl).pathname);
  } catch {
    serverPath = '';
  }
  // Schemes of every absolute server URL (relative ones inherit the target's).
  const serverSchemes: string[] = [];
  for (const { url: serverUrl } of doc.servers) {
    const scheme = /^(https?):/i.exec(serverUrl ?? '')?.[1].toLowerCase();
    if (scheme && !serverSchemes.includes(scheme)) serverSchemes.push(scheme);
  }
  return { serverPath, serverSchemes };
}

export function openApi3Operations(doc: OpenApi3Document): Operation[] {
  const operations: Operation[] = [];
  const globalSecurity = doc.security ?? [];
  for (const [path, item] of doc.paths) {
    for (const method of SPEC_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = paramsOf(mergeParameters(item.parameters, op.parameters));
      const body = bodyOf(op);
      addUndeclaredPathParams(path, params);
      operations.push(assembleOperation(method, path, op, globalSecurity, { params, body, responses: responsesOf(op), links: linksOf(op) }));
    }
  }
  return operations;
}

function paramsOf(parameters: OpenApi3Parameter[]): ParamSpec[] {
  const params: ParamSpec[] = [];
  for (const p of parameters) {
    if (!isParamLocation(p.in)) continue;
    let schema: JsonSchema;
    let example = p.example ?? p['x-example'];
    if (p.schema) {
      schema = p.schema;
    } else if (p.content) {
      const media = pickMedia(p.content);
      schema = media?.[1].schema ?? {};
      example ??= media ? firstExample(media[1]) : undefined;
    } else {
      schema = { type: 'string' };
    }
    if (example === undefined && p.examples) example = firstExample({ examples: p.examples });
    params.push({ name: p.name, in: p.in, required: p.in === 'path' || p.required, schema, example });
  }
  return params;
}

function bodyOf(op: OpenApi3Operation): BodySpec | undefined {
  if (!op.requestBody) return undefined;
  const media = pickMedia(op.requestBody.content);
  if (!media) return undefined;
  const [contentType, mediaType] = media;
  return { contentType, schema: mediaType.schema ?? {}, example: firstExample(mediaType), required: op.requestBody.required };
}

function responsesOf(op: OpenApi3Operation): Record<string, ResponseSpec> {
  const responses: Record<string, ResponseSpec> = {};
  for (const [status, response] of op.responses) {
    responses[status] = { schema: pickMedia(response.content)?.[1].schema, contentTypes: [...response.content.keys()] };
  }
  return responses;
}

/** Links that name their target (an operationId, or an operationRef into this document's paths). */
function linksOf(op: OpenApi3Operation): OperationLink[] {
  const links: OperationLink[] = [];
  for (const [status, response] of op.responses) {
    for (const link of response.links.values()) {
      const operationKey = link.operationRef === undefined ? undefined : operationKeyOf(link.operationRef);
      if (link.operationId === undefined && operationKey === undefined) continue;
      links.push({
        status,
        ...(link.operationId !== undefined && { operationId: link.operationId }),
        ...(operationKey !== undefined && { operationKey }),
        parameters: expressionsOf(link),
      });
    }
  }
  return links;
}

/** "#/paths/~1invoices~1{invoice_id}/get" -> "GET /invoices/{invoice_id}"; undefined for a ref elsewhere. */
export function operationKeyOf(operationRef: string): string | undefined {
  const tokens = localPointerTokens(operationRef);
  if (!tokens || tokens.length !== 3 || tokens[0] !== 'paths') return undefined;
  const [, path, method] = tokens;
  if (!(SPEC_METHODS as readonly string[]).includes(method.toLowerCase())) return undefined;
  return `${method.toUpperCase()} ${path}`;
}

/** Parameter -> runtime expression; a constant (number, boolean, object) as its JSON text. */
function expressionsOf(link: Link): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(link.parameters)) {
    const expression = typeof value === 'string' ? value : JSON.stringify(value);
    if (expression !== undefined) parameters[name] = expression;
  }
  return parameters;
}
