/** HTTP client for the `vigil` CLI: configuration (flags > env > config file) and API calls. */
import { fillPath, type ApiPath, type Method, type PathOption, type QueryParams, type RequestBody, type ResponseBody } from '../api-client/calls.js';
import { loadProjectConfig, type ProjectConfig } from './config-file.js';
import { isObject } from './unchecked.js';
import { UsageError } from './usage-error.js';

export interface ClientConfig {
  url: string;
  apiKey: string;
  /** Per request (VIGIL_HTTP_TIMEOUT seconds; default 30, uploads get 4 times as long). */
  timeoutMs?: number;
}

/** A non-2xx answer from the server, printed as `error CODE: message`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
    readonly retryAfter: number | null,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/**
 * Flags, then VIGIL_API_KEY / VIGIL_URL, then the config file (keys `url`, `api_key`: vigil.config.json,
 * vigil.config.yaml or .vigilrc in the cwd, or the one already loaded).
 */
export function resolveClientConfig(
  flags: { url?: string; 'api-key'?: string },
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  loaded?: ProjectConfig,
): ClientConfig & { file: Record<string, unknown> } {
  const file = loaded ?? loadProjectConfig({ cwd, env }).config;
  const url = flags.url ?? env.VIGIL_URL ?? (typeof file.url === 'string' ? file.url : undefined) ?? 'http://127.0.0.1:8080';
  const apiKey = flags['api-key'] ?? env.VIGIL_API_KEY ?? (typeof file.api_key === 'string' ? file.api_key : undefined);
  if (!apiKey) throw new UsageError('no API key: pass --api-key, set VIGIL_API_KEY, or put "api_key" in vigil.config.json');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid server URL "${url}"`);
  }
  let base = parsed.toString().replace(/\/+$/, '');
  if (!/\/api\/v1$/.test(base)) base = `${base}/api/v1`;
  const timeout = Number(env.VIGIL_HTTP_TIMEOUT ?? 30);
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new UsageError(`VIGIL_HTTP_TIMEOUT must be a positive number of seconds, got "${env.VIGIL_HTTP_TIMEOUT}"`);
  return { url: base, apiKey, timeoutMs: timeout * 1000, file };
}

/** Answers a proxy in front of Vigil gives while it (re)starts: retried, never taken for another server. */
const GATEWAY_STATUSES = [502, 503, 504];

/** The answer came from a server that is not Vigil (another app, a web server's 404 page, a proxy). */
export function notVigil(base: string, what: string, answer: string, status = 0): ApiFailure {
  const server = base.replace(/\/api\/v1$/, '');
  return new ApiFailure(
    status,
    'NOT_VIGIL',
    `${what} on ${server} answered ${answer}, not as Vigil does: is VIGIL_URL a Vigil server? It is the server's base URL (e.g. https://vigil.example.com), without /api/v1 or /app`,
    null,
    null,
  );
}

/** What one API call takes besides its method and path: the operation's parameters and body, typed by the API's description. */
export type CallOptions<M extends Method, P extends ApiPath<M>> = PathOption<M, P> & {
  query?: QueryParams<M, P>;
  json?: RequestBody<M, P>;
  /** A multipart body (the upload operation), sent as it is. */
  form?: FormData;
  headers?: Record<string, string>;
};

/** A 2xx answer: `body` typed as the operation's success body (the export's HTML and CSV are in `text`). */
export interface CallResult<M extends Method, P extends ApiPath<M>> {
  status: number;
  headers: Headers;
  body: ResponseBody<M, P>;
  text: string;
}

/** Options may be left out when the operation needs none (no path parameter). */
export type CallArgs<M extends Method, P extends ApiPath<M>> = undefined extends CallOptions<M, P>['path']
  ? [options?: CallOptions<M, P>]
  : [options: CallOptions<M, P>];

export class VigilClient {
  constructor(readonly config: ClientConfig) {}

  /** One API operation, chosen by method and path template (`'get', '/scan/{id}/results', {path: {id}}`). */
  async call<M extends Method, P extends ApiPath<M>>(method: M, path: P, ...[options]: CallArgs<M, P>): Promise<CallResult<M, P>> {
    const { path: params, query, json, form, headers } = (options ?? {}) as CallOptions<M, P>;
    const answer = await this.request(method.toUpperCase(), fillPath(path, params as Record<string, string> | undefined), {
      query: query as Record<string, string | number | undefined>,
      json,
      form,
      headers,
    });
    // A 2xx body is the operation's answer as the API's description gives it (the server's answers are checked against it).
    return answer as CallResult<M, P>;
  }

  /** The transport under `call`: a concrete path, any JSON body. */
  private async request(
    method: string,
    path: string,
    init: { json?: unknown; form?: FormData; query?: Record<string, string | number | undefined>; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
    const url = new URL(this.config.url + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...init.headers, 'X-API-Key': this.config.apiKey, 'user-agent': 'vigil-cli' };
    let body: string | FormData | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) body = init.form;
    const timeoutMs = (this.config.timeoutMs ?? 30_000) * (init.form ? 4 : 1);
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method, headers, body, signal });
      text = await res.text();
    } catch (error) {
      if (signal.aborted)
        throw new ApiFailure(0, 'TIMEOUT', `${method} ${this.config.url}${path}: no answer within ${Math.round(timeoutMs / 1000)} s`, null, null);
      const cause = (error as Error).cause as (Error & { code?: string }) | undefined;
      throw new ApiFailure(
        0,
        'CONNECTION_FAILED',
        `cannot reach ${this.config.url}: ${cause?.message ?? (error as Error).message}`,
        { cause: cause?.code ?? null },
        null,
      );
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const error = isObject(parsed) ? parsed : {};
      const ra = Number(res.headers.get('retry-after') ?? error.retry_after);
      // Vigil answers every error in its shape ({error, message}); anything else is another server.
      if (typeof error.error !== 'string' && !GATEWAY_STATUSES.includes(res.status))
        throw notVigil(this.config.url, `${method} ${path}`, `HTTP ${res.status} ${res.statusText}`.trim(), res.status);
      throw new ApiFailure(
        res.status,
        String(error.error ?? `HTTP_${res.status}`),
        String(error.message ?? (text.slice(0, 200) || res.statusText)),
        parsed,
        Number.isFinite(ra) ? ra : null,
      );
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
}

/** Exit code 4 for refusals (auth, quota, plan, concurrency), 2 for anything else the server refused. */
export function exitCodeFor(error: ApiFailure): number {
  if (error.code === 'NOT_VIGIL') return 3;
  if ([401, 402, 403].includes(error.status)) return 4;
  if (error.status === 429) return 4;
  if (error.status === 400 || error.status === 404 || error.status === 422) return 3;
  return 2;
}
