/** HTTP client for the `vigil` CLI: configuration (flags > env > config file) and API calls. */
import { loadProjectConfig, type ProjectConfig } from './config-file.js';
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
export function resolveClientConfig(flags: { url?: string; 'api-key'?: string }, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), loaded?: ProjectConfig): ClientConfig & { file: Record<string, unknown> } {
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
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`VIGIL_HTTP_TIMEOUT must be a positive number of seconds, got "${env.VIGIL_HTTP_TIMEOUT}"`);
  return { url: base, apiKey, timeoutMs: timeout * 1000, file };
}

export class VigilClient {
  constructor(readonly config: ClientConfig) {}

  async request(method: string, path: string, init: { json?: unknown; form?: FormData; query?: Record<string, string | number | undefined> } = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
    const url = new URL(this.config.url + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'X-API-Key': this.config.apiKey, 'user-agent': 'vigil-cli' };
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
      if (signal.aborted) throw new ApiFailure(0, 'TIMEOUT', `${method} ${this.config.url}${path}: no answer within ${Math.round(timeoutMs / 1000)} s`, null, null);
      const cause = (error as Error).cause as (Error & { code?: string }) | undefined;
      throw new ApiFailure(0, 'CONNECTION_FAILED', `cannot reach ${this.config.url}: ${cause?.message ?? (error as Error).message}`, { cause: cause?.code ?? null }, null);
    }
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const ra = Number(res.headers.get('retry-after') ?? parsed?.retry_after);
      throw new ApiFailure(res.status, String(parsed?.error ?? `HTTP_${res.status}`), String(parsed?.message ?? (text.slice(0, 200) || res.statusText)), parsed, Number.isFinite(ra) ? ra : null);
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
}

/** Exit code 4 for refusals (auth, quota, plan, concurrency), 2 for anything else the server refused. */
export function exitCodeFor(error: ApiFailure): number {
  if ([401, 402, 403].includes(error.status)) return 4;
  if (error.status === 429) return 4;
  if (error.status === 400 || error.status === 404 || error.status === 422) return 3;
  return 2;
}
