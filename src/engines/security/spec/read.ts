/**
 * The boundary: a parsed document (unknown shape, whatever the author wrote) narrowed into the typed
 * models of document.ts. Lenient as the scanner must be with real specs: a field of the wrong type
 * reads as absent (or its string form where a name is expected), never as an error.
 */
import type { JsonSchema } from '../types.js';
import { SPEC_METHODS } from '../spec-size.js';
import type {
  Example,
  Info,
  Link,
  MediaType,
  OpenApi3Document,
  OpenApi3Operation,
  OpenApi3Parameter,
  OpenApi3Response,
  ParsedDocument,
  PathItem,
  SecurityRequirement,
  Server,
  Swagger2Document,
  Swagger2Operation,
  Swagger2Parameter,
} from './document.js';
import { resolveLocalRef } from './pointer.js';

type Fields = Record<string, unknown>;

/** An object's fields; {} for anything else. Arrays pass, as objects with index keys. */
function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null ? (value as Fields) : {};
}

/** A truthy value as a schema object ({} when it is not an object), undefined when absent. */
function schemaOf(value: unknown): JsonSchema | undefined {
  return value ? fieldsOf(value) : undefined;
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const stringsOf = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.map(String) : undefined);
const textOf = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : String(value));

const NO_FIELDS: ReadonlyMap<string, never> = new Map<string, never>();

/** The object's fields read with `read`, in document order. */
function mapOf<T>(value: unknown, read: (field: unknown) => T): ReadonlyMap<string, T> {
  const fields = fieldsOf(value);
  const keys = Object.keys(fields);
  if (keys.length === 0) return NO_FIELDS;
  const out = new Map<string, T>();
  for (const key of keys) out.set(key, read(fields[key]));
  return out;
}

function listOf<T>(value: unknown, read: (item: unknown) => T | undefined): T[] {
  if (!Array.isArray(value)) return [];
  const out: T[] = [];
  for (const item of value) {
    const narrowed = read(item);
    if (narrowed !== undefined) out.push(narrowed);
  }
  return out;
}

function infoOf(value: unknown): Info {
  const info = fieldsOf(value);
  return { title: textOf(info.title), version: textOf(info.version) };
}

function requirementOf(value: unknown): SecurityRequirement {
  return mapOf(value, (scopes) => stringsOf(scopes) ?? []);
}

function requirementsOf(value: unknown): SecurityRequirement[] | undefined {
  return Array.isArray(value) ? value.map(requirementOf) : undefined;
}

function examplesOf(value: unknown): ReadonlyMap<string, Example> | undefined {
  return value ? mapOf(value, (example) => ({ value: fieldsOf(example).value })) : undefined;
}

function mediaTypeOf(value: unknown): MediaType {
  const media = fieldsOf(value);
  return { schema: schemaOf(media.schema), example: media.example, examples: examplesOf(media.examples) };
}

const contentOf = (value: unknown): ReadonlyMap<string, MediaType> => mapOf(value, mediaTypeOf);

function extensionsOf(op: Fields): Record<string, unknown> {
  const extensions: Record<string, unknown> = {};
  for (const key in op) if (key.startsWith('x-') && Object.hasOwn(op, key)) extensions[key] = op[key];
  return extensions;
}

// Objects are built field by field, not spread from a shared part: spreading is several times slower here.

/** A parameter needs a name and a location; others are dropped. */
const isParameter = (p: Fields): p is Fields & { in: string } => Boolean(p.name) && typeof p.in === 'string' && p.in !== '';

function pathItemsOf<Op, Param>(value: unknown, operationOf: (op: Fields) => Op, parameterOf: (p: unknown) => Param | undefined) {
  return mapOf(value, (rawItem): PathItem<Op, Param> => {
    const item = fieldsOf(rawItem);
    const pathItem: PathItem<Op, Param> = { parameters: listOf(item.parameters, parameterOf) };
    for (const method of SPEC_METHODS) if (item[method]) pathItem[method] = operationOf(fieldsOf(item[method]));
    return pathItem;
  });
}

// ---- Swagger 2.0 ----

function swagger2ParameterOf(value: unknown): Swagger2Parameter | undefined {
  const p = fieldsOf(value);
  if (!isParameter(p)) return undefined;
  const { name: _name, in: _in, required: _required, description: _description, ...inline } = p;
  return {
    name: String(p.name),
    in: p.in,
    required: Boolean(p.required),
    example: p.example,
    'x-example': p['x-example'],
    examples: examplesOf(p.examples),
    schema: schemaOf(p.schema),
    inline,
  };
}

function swagger2OperationOf(op: Fields): Swagger2Operation {
  return {
    operationId: stringOf(op.operationId),
    summary: stringOf(op.summary),
    tags: stringsOf(op.tags) ?? [],
    security: requirementsOf(op.security),
    extensions: extensionsOf(op),
    consumes: stringsOf(op.consumes),
    produces: stringsOf(op.produces),
    parameters: listOf(op.parameters, swagger2ParameterOf),
    responses: mapOf(op.responses, (response) => ({ schema: schemaOf(fieldsOf(response).schema) })),
  };
}

export function readSwagger2(doc: ParsedDocument): Swagger2Document {
  return {
    swagger: String(doc.swagger),
    info: infoOf(doc.info),
    basePath: stringOf(doc.basePath),
    schemes: stringsOf(doc.schemes) ?? [],
    consumes: stringsOf(doc.consumes),
    produces: stringsOf(doc.produces),
    security: requirementsOf(doc.security),
    paths: pathItemsOf(doc.paths, swagger2OperationOf, swagger2ParameterOf),
  };
}

// ---- OpenAPI 3.x ----

function openApi3ParameterOf(value: unknown): OpenApi3Parameter | undefined {
  const p = fieldsOf(value);
  if (!isParameter(p)) return undefined;
  return {
    name: String(p.name),
    in: p.in,
    required: Boolean(p.required),
    example: p.example,
    'x-example': p['x-example'],
    examples: examplesOf(p.examples),
    schema: schemaOf(p.schema),
    content: p.content ? contentOf(p.content) : undefined,
  };
}

/** Follows a link's local `$ref` (components.links) when the document was not dereferenced. */
function linkOf(value: unknown, root: ParsedDocument): Link {
  let link = fieldsOf(value);
  for (let hops = 0; typeof link.$ref === 'string' && hops < 8; hops += 1) link = fieldsOf(resolveLocalRef(root, link.$ref));
  return { operationId: stringOf(link.operationId), operationRef: stringOf(link.operationRef), parameters: fieldsOf(link.parameters) };
}

function openApi3ResponseOf(value: unknown, root: ParsedDocument): OpenApi3Response {
  const response = fieldsOf(value);
  return { content: contentOf(response.content), links: mapOf(response.links, (link) => linkOf(link, root)) };
}

function openApi3OperationOf(op: Fields, root: ParsedDocument): OpenApi3Operation {
  const requestBody = op.requestBody ? fieldsOf(op.requestBody) : undefined;
  return {
    operationId: stringOf(op.operationId),
    summary: stringOf(op.summary),
    tags: stringsOf(op.tags) ?? [],
    security: requirementsOf(op.security),
    extensions: extensionsOf(op),
    parameters: listOf(op.parameters, openApi3ParameterOf),
    requestBody: requestBody && { required: Boolean(requestBody.required), content: contentOf(requestBody.content) },
    responses: mapOf(op.responses, (response) => openApi3ResponseOf(response, root)),
  };
}

function serverOf(value: unknown): Server {
  const server = fieldsOf(value);
  return { url: stringOf(server.url), variables: mapOf(server.variables, (variable) => ({ default: textOf(fieldsOf(variable).default) })) };
}

export function readOpenApi3(doc: ParsedDocument): OpenApi3Document {
  return {
    openapi: String(doc.openapi),
    info: infoOf(doc.info),
    servers: Array.isArray(doc.servers) ? doc.servers.map(serverOf) : [],
    security: requirementsOf(doc.security),
    paths: pathItemsOf(doc.paths, (op) => openApi3OperationOf(op, doc), openApi3ParameterOf),
  };
}
