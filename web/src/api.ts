/**
 * The dashboard's only way to the server: the public API under /api/v1, with the session cookie (opened by
 * single sign-on or by a key sign-in) and, on every state-changing request, its CSRF token. A key is sent in
 * X-API-Key only by the calls that hand one over (the key sign-in itself).
 * Each call names its operation by method and path template; the parameters, body and answer are typed by
 * the API's generated description (src/api-client), so a page that no longer fits the API fails to compile.
 */
import {
  API_PREFIX,
  fillPath,
  type ApiPath,
  type Method,
  type PathOption,
  type QueryParams,
  type RequestBody,
  type ResponseBody,
} from '../../src/api-client/calls.js';
import type { ErrorBody } from './types.js';
import { session } from './session.js';

export const API_BASE = API_PREFIX;

/** A non-2xx answer, in the API's error shape (or a network failure: status 0). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: Partial<ErrorBody> & Record<string, unknown>,
  ) {
    super(message);
  }
}

interface RequestOptions {
  method?: string;
  json?: unknown;
  key?: string;
  cookie?: boolean;
  accept?: string;
  signal?: AbortSignal;
}

/** One call's options: the operation's path parameters, query and JSON body; a key to hand over; an abort signal. */
export type CallOptions<M extends Method, P extends ApiPath<M>> = PathOption<M, P> & {
  query?: QueryParams<M, P>;
  json?: RequestBody<M, P>;
  /** A key to send in X-API-Key (the key sign-in); without one the call goes with the session cookie. */
  key?: string;
  /** Let the browser keep the cookie a call with a key sets (POST /session/key). */
  cookie?: boolean;
  /** An Accept header, for the operations that answer a browser with a redirect and a page with JSON (SSO start). */
  accept?: string;
  signal?: AbortSignal;
};

/** Options may be left out when the operation needs none (no path parameter, no body). */
type CallArgs<M extends Method, P extends ApiPath<M>> = undefined extends CallOptions<M, P>['path']
  ? [options?: CallOptions<M, P>]
  : [options: CallOptions<M, P>];

/** The concrete path and query string of a call. */
function target(template: string, options: { path?: unknown; query?: unknown } | undefined): string {
  return (
    fillPath(template, options?.path as Record<string, string> | undefined) +
    query((options?.query ?? {}) as Record<string, string | number | undefined | null>)
  );
}

async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const key = options.key;
  const headers: Record<string, string> = {};
  if (key) headers['X-API-Key'] = key;
  if (options.accept) headers.Accept = options.accept;
  const method = options.method ?? (options.json !== undefined ? 'POST' : 'GET');
  // Cookies go with calls made without a key (the session's, and the public ones: the SSO start sets the
  // cookie that binds the sign-in to this browser), and with the key sign-in, whose answer sets the session's.
  const cookie = !key || options.cookie === true;
  const csrf = session.cookie()?.csrfToken;
  if (!key && csrf && method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = csrf;
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      body,
      signal: options.signal,
      credentials: cookie ? 'same-origin' : 'omit',
      cache: 'no-store',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiFailure(0, 'NETWORK_ERROR', 'The server could not be reached. Is Vigil running?');
  }
  const limit = Number(response.headers.get('X-RateLimit-Limit'));
  if (Number.isFinite(limit) && limit > 0) rateLimit = limit;
  if (!response.ok) {
    let parsed: (Partial<ErrorBody> & Record<string, unknown>) | undefined;
    try {
      parsed = (await response.json()) as Partial<ErrorBody> & Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const failure = new ApiFailure(response.status, parsed?.error ?? `HTTP_${response.status}`, parsed?.message ?? response.statusText, parsed);
    // An ended session (expired, signed out elsewhere, member removed, key rotated) signs the tab out.
    if (response.status === 401 && options.key === undefined) session.expire(failure.message);
    throw failure;
  }
  return response;
}

/** The key's rate limit (requests per minute) as the last answer gave it; undefined while unknown or unlimited. */
let rateLimit: number | undefined;

/**
 * How often a page may poll: `base` ms, slowed down so that polling takes at most a quarter of the key's
 * rate limit (free: 10 a minute, so one poll every 24 s), leaving the rest to the person's own actions.
 */
export function pollInterval(base: number): number {
  return rateLimit ? Math.max(base, (4 * 60_000) / rateLimit) : base;
}

/** One API operation (`api('get', '/scan/{id}', {path: {id}})`); resolves with its success body (undefined for a 204). */
export async function api<M extends Method, P extends ApiPath<M>>(method: M, path: P, ...[options]: CallArgs<M, P>): Promise<ResponseBody<M, P>> {
  const response = await request(target(path, options), {
    method: method.toUpperCase(),
    json: options?.json,
    key: options?.key,
    cookie: options?.cookie,
    accept: options?.accept,
    signal: options?.signal,
  });
  if (response.status === 204) return undefined as ResponseBody<M, P>;
  return (await response.json()) as ResponseBody<M, P>;
}

/** A file answer (exports): saved through a temporary blob link, so the key never appears in a URL. */
export async function download<P extends ApiPath<'get'>>(path: P, options: CallOptions<'get', P>, filename: string): Promise<void> {
  const response = await request(target(path, options));
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const named = /filename="?([^";]+)"?/.exec(disposition)?.[1];
  const blob = await response.blob();
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = named ?? filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
