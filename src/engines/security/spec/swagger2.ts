/** Swagger 2.0: operations (body and formData parameters become the request body) and the base path. */
import { SPEC_METHODS } from '../spec-size.js';
import type { BodySpec, JsonSchema, Operation, ParamSpec, ResponseSpec } from '../types.js';
import type { Swagger2Document, Swagger2Operation, Swagger2Parameter } from './document.js';
import { addUndeclaredPathParams, assembleOperation, firstExample, isParamLocation, mergeParameters, type ServerInfo } from './operation.js';

export function swagger2Server(doc: Swagger2Document): ServerInfo {
  return { serverPath: doc.basePath ?? '', serverSchemes: doc.schemes };
}

export function swagger2Operations(doc: Swagger2Document): Operation[] {
  const operations: Operation[] = [];
  const globalSecurity = doc.security ?? [];
  for (const [path, item] of doc.paths) {
    for (const method of SPEC_METHODS) {
      const op = item[method];
      if (!op) continue;
      const { params, body } = requestOf(doc, op, mergeParameters(item.parameters, op.parameters));
      addUndeclaredPathParams(path, params);
      operations.push(assembleOperation(method, path, op, globalSecurity, { params, body, responses: responsesOf(doc, op), links: [] }));
    }
  }
  return operations;
}

function requestOf(doc: Swagger2Document, op: Swagger2Operation, parameters: Swagger2Parameter[]): { params: ParamSpec[]; body?: BodySpec } {
  const params: ParamSpec[] = [];
  let body: BodySpec | undefined;
  const formFields: Record<string, JsonSchema> = {};
  const formRequired: string[] = [];
  for (const p of parameters) {
    if (p.in === 'body') {
      const consumes = op.consumes ?? doc.consumes ?? ['application/json'];
      const schema = p.schema ?? {};
      body = {
        contentType: consumes.find((c) => /json/i.test(c)) ?? consumes[0] ?? 'application/json',
        schema,
        example: p['x-example'] ?? schema.example,
        required: p.required,
      };
      continue;
    }
    if (p.in === 'formData') {
      formFields[p.name] = p.inline.type === 'file' ? { type: 'string', format: 'binary' } : p.inline;
      if (p.required) formRequired.push(p.name);
      continue;
    }
    if (!isParamLocation(p.in)) continue;
    let example = p.example ?? p['x-example'];
    if (example === undefined && p.examples) example = firstExample({ examples: p.examples });
    params.push({ name: p.name, in: p.in, required: p.in === 'path' || p.required, schema: p.inline, example });
  }
  if (Object.keys(formFields).length > 0 && !body) {
    const consumes = op.consumes ?? doc.consumes ?? [];
    body = {
      contentType: consumes.find((c) => /multipart/i.test(c)) ?? 'application/x-www-form-urlencoded',
      schema: { type: 'object', properties: formFields, required: formRequired },
      required: formRequired.length > 0,
    };
  }
  return { params, body };
}

function responsesOf(doc: Swagger2Document, op: Swagger2Operation): Record<string, ResponseSpec> {
  const produces = op.produces ?? doc.produces ?? ['application/json'];
  const responses: Record<string, ResponseSpec> = {};
  for (const [status, response] of op.responses) {
    responses[status] = { schema: response.schema, contentTypes: response.schema ? produces : [] };
  }
  return responses;
}
