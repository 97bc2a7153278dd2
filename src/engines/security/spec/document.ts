/**
 * The input documents as the model builders read them: Swagger 2.0 and OpenAPI 3.0/3.1, limited to
 * the fields the engine uses. `read.ts` narrows a parsed (unknown) document into these shapes at
 * the boundary: a field of the wrong type is dropped or normalised there, so the builders trust
 * what they get. Schemas stay the document's own objects (JsonSchema), never copied. Keyed
 * collections are Maps: objects filled key by key with numeric keys ("200") are slow to iterate.
 */
import type { JsonSchema } from '../types.js';
import type { SPEC_METHODS } from '../spec-size.js';

export type HttpMethod = (typeof SPEC_METHODS)[number];

/** A parsed document before narrowing: an object whose version field parseSpecText checked. */
export type ParsedDocument = Record<string, unknown>;

export interface Info {
  title?: string;
  version?: string;
}

/** Security scheme name -> scopes. An empty requirement (`{}`) makes authentication optional. */
export type SecurityRequirement = ReadonlyMap<string, string[]>;

/** What every operation of either version carries. */
export interface OperationBase {
  operationId?: string;
  summary?: string;
  tags: string[];
  /** Absent: the document's global requirements apply. `[]`: public by design. */
  security?: SecurityRequirement[];
  /** `x-` keys with their values. */
  extensions: Record<string, unknown>;
}

export type PathItem<Op, Param> = Partial<Record<HttpMethod, Op>> & {
  /** Shared by every operation of the path; an operation's own parameter of the same name and location wins. */
  parameters: Param[];
};

interface ParameterBase {
  name: string;
  /** "path", "query", "header", "cookie" (3.x), "body", "formData" (2.0); anything else is ignored. */
  in: string;
  required: boolean;
  example?: unknown;
  'x-example'?: unknown;
  examples?: ReadonlyMap<string, Example>;
}

export interface Example {
  value?: unknown;
}

// ---- Swagger 2.0 ----

export interface Swagger2Document {
  swagger: string;
  info: Info;
  basePath?: string;
  schemes: string[];
  consumes?: string[];
  produces?: string[];
  security?: SecurityRequirement[];
  paths: ReadonlyMap<string, PathItem<Swagger2Operation, Swagger2Parameter>>;
}

export interface Swagger2Operation extends OperationBase {
  consumes?: string[];
  produces?: string[];
  parameters: Swagger2Parameter[];
  responses: ReadonlyMap<string, Swagger2Response>;
}

export interface Swagger2Parameter extends ParameterBase {
  /** `in: body`: the payload's schema. */
  schema?: JsonSchema;
  /**
   * Every other location describes its value inline (type, format, items, enum, default,
   * collectionFormat...): the parameter without name, in, required and description.
   */
  inline: JsonSchema;
}

export interface Swagger2Response {
  schema?: JsonSchema;
}

// ---- OpenAPI 3.0 / 3.1 ----

export interface OpenApi3Document {
  openapi: string;
  info: Info;
  servers: Server[];
  security?: SecurityRequirement[];
  paths: ReadonlyMap<string, PathItem<OpenApi3Operation, OpenApi3Parameter>>;
}

export interface Server {
  url?: string;
  variables: ReadonlyMap<string, ServerVariable>;
}

export interface ServerVariable {
  default?: string;
}

export interface OpenApi3Operation extends OperationBase {
  parameters: OpenApi3Parameter[];
  requestBody?: RequestBody;
  responses: ReadonlyMap<string, OpenApi3Response>;
}

export interface OpenApi3Parameter extends ParameterBase {
  schema?: JsonSchema;
  /** The alternative to `schema`: one media type describing the value. */
  content?: ReadonlyMap<string, MediaType>;
}

export interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
  examples?: ReadonlyMap<string, Example>;
}

export interface RequestBody {
  required: boolean;
  content: ReadonlyMap<string, MediaType>;
}

export interface OpenApi3Response {
  content: ReadonlyMap<string, MediaType>;
  links: ReadonlyMap<string, Link>;
}

/** A response link: which operation a value of this response feeds, and into which parameters. */
export interface Link {
  operationId?: string;
  /** A JSON reference to an operation, e.g. "#/paths/~1invoices~1{invoice_id}/get". */
  operationRef?: string;
  /** Target parameter (optionally "path.id" qualified) -> runtime expression or constant. */
  parameters: Record<string, unknown>;
}
