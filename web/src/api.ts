/** The dashboard's only way to the server: the public API under /api/v1, with the signed-in key in X-API-Key. */
import type { ErrorBody } from './types.js';
import { session } from './session.js';

export const API_BASE = '/api/v1';

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

export interface CallOptions {
  method?: string;
  json?: unknown;
  form?: FormData;
  key?: string;
  signal?: AbortSignal;
}

async function request(path: string, options: CallOptions = {}): Promise<Response> {
  const key = options.key ?? session.key();
  const headers: Record<string, string> = {};
  if (key) headers['X-API-Key'] = key;
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) body = options.form;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body, signal: options.signal, credentials: 'omit', cache: 'no-store' });
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
    // A key that stopped working (rotated elsewhere, tenant removed) signs the tab out.
    if (response.status === 401 && !options.key) session.expire(failure.message);
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

export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const response = await request(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A file answer (exports): saved through a temporary blob link, so the key never appears in a URL. */
export async function download(path: string, filename: string): Promise<void> {
  const response = await request(path);
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

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
