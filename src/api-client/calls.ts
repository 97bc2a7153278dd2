/**
 * The API's operations as its clients (the CLI and the dashboard) call them, typed by the generated
 * description (openapi.generated.ts, `npm run generate:client`): a path template relative to /api/v1 and
 * a method choose the operation; its path and query parameters, JSON body and success body follow from
 * it. A route whose schema changes changes these types, so a client that no longer fits fails to compile.
 * Imports nothing at run time: the dashboard bundles it.
 */
import type { paths } from './openapi.generated.js';

export const API_PREFIX = '/api/v1';

/** The API's paths relative to its prefix (`/scan/{id}/results`), as both clients' base URLs end in /api/v1. */
type Api = { [P in keyof paths as P extends `${typeof API_PREFIX}${infer Rest}` ? Rest : never]: paths[P] };

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that have an operation for `M`. */
export type ApiPath<M extends Method> = { [P in keyof Api]: Api[P][M] extends { responses: unknown } ? P : never }[keyof Api];

type Operation<M extends Method, P extends ApiPath<M>> = NonNullable<Api[P][M]>;

type ParametersOf<O> = O extends { parameters: infer X } ? X : never;
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type Responses<O> = O extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON body of the operation's success answers (undefined for one without a JSON body, such as a 204). */
export type ResponseBody<M extends Method, P extends ApiPath<M>> = JsonContent<
  Responses<Operation<M, P>>[Extract<keyof Responses<Operation<M, P>>, SuccessStatus>]
>;

/** The operation's JSON request body (never when it takes none). */
export type RequestBody<M extends Method, P extends ApiPath<M>> = JsonContent<NonNullable<Operation<M, P>['requestBody']>> & {};

/** The `{name}` parameters of the path (undefined when it has none). */
export type PathParams<M extends Method, P extends ApiPath<M>> = ParametersOf<Operation<M, P>>['path'];

/**
 * The operation's query parameters: only the names it declares; a value is its declared type or text as
 * a person typed it (a query string is text on the wire; the server validates it).
 */
export type QueryParams<M extends Method, P extends ApiPath<M>> = {
  [K in keyof NonNullable<ParametersOf<Operation<M, P>>['query']>]?: NonNullable<ParametersOf<Operation<M, P>>['query']>[K] | string | null;
};

/** `path` is required exactly when the template has parameters. */
export type PathOption<M extends Method, P extends ApiPath<M>> = undefined extends PathParams<M, P> ? { path?: undefined } : { path: PathParams<M, P> };

/** `/scan/{id}/results` with `{id: 'scan_1'}` -> `/scan/scan_1/results` (each value percent-encoded). */
export function fillPath(template: string, params: Record<string, string | number> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`${template}: no value for the path parameter "${name}"`);
    return encodeURIComponent(String(value));
  });
}
