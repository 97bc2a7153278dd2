/**
 * HTTP client for scan targets: undici with a connect-time address guard, an exact concurrency
 * limit, a per-request timeout, manual (guarded) redirects and a body cap.
 */
import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, buildConnector, request } from 'undici';
import { BlockedAddressError, guardedLookup, isPublicAddress } from '../../net/address-guard.js';
import type { SentRequest, TargetResponse } from './types.js';

export type LookupFn = ReturnType<typeof guardedLookup>;

export interface TargetClientOptions {
  /** Self-hosted: true; hosted: false (no loopback, private, link-local or metadata addresses). */
  allowPrivate: boolean;
  concurrency: number;
  timeoutMs: number;
  signal: AbortSignal;
  maxBodyBytes: number;
  /** Test hook: replaces the guarded DNS lookup (IP literals are still checked). */
  lookup?: LookupFn;
}

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A list of buffers is sent as is, in order (large probe bodies share one padding buffer). */
  body?: string | Buffer | Buffer[];
  followRedirects?: boolean;
  timeoutMs?: number;
  /** Body cap of this request's answer, instead of the client's (a specification document is larger). */
  maxBodyBytes?: number;
}

/** Counting semaphore whose waiters leave when the scan is cancelled. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  peak = 0;
  constructor(readonly size: number) {}

  /** Takes a slot when one is free, synchronously (the hot path: no promise, no microtask). */
  tryAcquire(): boolean {
    if (this.active >= this.size || this.waiters.length > 0) return false;
    this.active++;
    if (this.active > this.peak) this.peak = this.active;
    return true;
  }

  async acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.active < this.size) {
      this.active++;
      this.peak = Math.max(this.peak, this.active);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason);
      };
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.active++;
    this.peak = Math.max(this.peak, this.active);
  }

  release(): void {
    this.active--;
    const next = this.waiters.shift();
    if (next) next();
  }
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const TIMED_OUT = new Error('request timed out');

/**
 * Per-request abort handle given to undici as its `signal` (undici accepts an EventEmitter-style
 * object with on/once/removeListener). One listener, no EventTarget: an AbortController per
 * request showed up in profiles of the hot path.
 */
class RequestAbort {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | undefined;
  on(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }
  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }
  removeListener(): this {
    this.listener = undefined;
    return this;
  }
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const l = this.listener;
    this.listener = undefined;
    l?.();
  }
}

export class TargetClient {
  readonly agent: Agent;
  readonly slots: Semaphore;
  requests = 0;
  private readonly opts: TargetClientOptions;
  /** Per-request controllers in flight: cancelling the scan aborts them all (one listener, not one per request). */
  private readonly inFlight = new Set<RequestAbort>();

  constructor(opts: TargetClientOptions) {
    this.opts = opts;
    this.slots = new Semaphore(opts.concurrency);
    opts.signal.addEventListener(
      'abort',
      () => {
        for (const c of this.inFlight) c.abort(opts.signal.reason);
      },
      { once: true },
    );
    const lookup = opts.lookup ?? guardedLookup(opts.allowPrivate);
    const connector = buildConnector({ lookup: lookup as never, timeout: Math.min(opts.timeoutMs, 10_000) });
    const allowPrivate = opts.allowPrivate;
    this.agent = new Agent({
      connections: Math.max(opts.concurrency, 1),
      pipelining: 1,
      keepAliveTimeout: 4_000,
      // The DNS guard never sees IP-literal hosts (net.connect skips lookup for them), so
      // literals are checked here, at connect time, for every request and every redirect hop.
      connect: (options, callback) => {
        const host = stripBrackets(options.hostname);
        if (!allowPrivate && isIP(host) && !isPublicAddress(host)) {
          callback(new BlockedAddressError(host, host), null);
          return;
        }
        connector(options, callback);
      },
    });
  }

  get peakConcurrency(): number {
    return this.slots.peak;
  }

  /** Sends one request (following redirects when asked), holding one concurrency slot per hop. */
  async send(req: RawRequest): Promise<TargetResponse> {
    let current = req;
    for (let hop = 0; ; hop++) {
      const res = await this.sendOnce(current);
      const location = res.headers['location'];
      if (!req.followRedirects || !location || res.status < 300 || res.status > 399 || hop >= 5) return res;
      let next: URL;
      try {
        next = new URL(location, current.url);
      } catch {
        return res;
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') return res;
      const keepBody = res.status === 307 || res.status === 308;
      const sameOrigin = next.origin === new URL(current.url).origin;
      const headers = { ...current.headers };
      if (!sameOrigin) {
        // Credentials never follow a redirect to another origin.
        for (const h of Object.keys(headers)) if (/^(authorization|cookie|x-api-key)$/i.test(h)) delete headers[h];
      }
      current = {
        ...current,
        url: next.href,
        method: keepBody ? current.method : current.method === 'HEAD' ? 'HEAD' : 'GET',
        body: keepBody ? current.body : undefined,
        headers,
      };
    }
  }

  private async sendOnce(req: RawRequest): Promise<TargetResponse> {
    const scanSignal = this.opts.signal;
    if (scanSignal.aborted) throw scanSignal.reason;
    if (!this.slots.tryAcquire()) await this.slots.acquire(scanSignal);
    const timeoutMs = Math.max(1, Math.ceil(Math.min(req.timeoutMs ?? this.opts.timeoutMs, this.opts.timeoutMs)));
    // One abort handle and one timer per request (AbortSignal.any/timeout cost more on the hot path).
    const ac = new RequestAbort();
    const timer = setTimeout(() => ac.abort(TIMED_OUT), timeoutMs);
    this.inFlight.add(ac);
    const sent: SentRequest = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      body:
        req.body === undefined
          ? undefined
          : typeof req.body === 'string'
            ? req.body
            : `<${Array.isArray(req.body) ? req.body.reduce((n, b) => n + b.length, 0) : req.body.length} bytes>`,
    };
    const started = performance.now();
    let uploadedAt: number | undefined;
    // A chunked body (Buffer[]) is sent chunk by chunk; the moment undici asks past the last chunk,
    // it has all been written, so the server's own time can be told apart from the upload's.
    const payload = Array.isArray(req.body)
      ? (function* (chunks: Buffer[]) {
          yield* chunks;
          uploadedAt = performance.now();
        })(req.body)
      : req.body;
    this.requests++;
    try {
      if (scanSignal.aborted) throw scanSignal.reason;
      const res = await request(req.url, {
        method: req.method as never,
        headers: req.headers,
        body: payload as string | Buffer | undefined,
        dispatcher: this.agent,
        signal: ac as never,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const answeredAt = performance.now();
      const max = req.maxBodyBytes ?? this.opts.maxBodyBytes;
      let body: string;
      let size: number;
      const declared = Number(res.headers['content-length']);
      if (Number.isInteger(declared) && declared <= max) {
        // Fits under the cap: let undici collect it in one go.
        const buf = Buffer.from(await res.body.arrayBuffer());
        body = buf.toString('utf8');
        size = buf.length;
      } else {
        // Unknown or large size: keep up to the cap, count the rest (events, not an async iterator).
        const chunks: Buffer[] = [];
        let kept = 0;
        let total = 0;
        await new Promise<void>((resolve, reject) => {
          res.body
            .on('data', (chunk: Buffer) => {
              total += chunk.length;
              if (kept < max) {
                const part = chunk.length <= max - kept ? chunk : chunk.subarray(0, max - kept);
                chunks.push(part);
                kept += part.length;
              }
            })
            .on('end', resolve)
            .on('error', reject);
        });
        size = total;
        body = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      }
      // undici already lowercases header names; repeated headers come as arrays: joined in place
      // (the object is ours, no copy per response).
      const headers = res.headers as Record<string, string | string[] | undefined>;
      for (const k in headers) {
        const v = headers[k];
        if (v === undefined) delete headers[k];
        else if (typeof v !== 'string') headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      return {
        status: res.statusCode,
        headers: headers as Record<string, string>,
        body,
        size,
        elapsedMs: performance.now() - started,
        ...(uploadedAt === undefined ? {} : { afterUploadMs: answeredAt - uploadedAt }),
        request: sent,
      };
    } catch (err) {
      if (scanSignal.aborted) throw scanSignal.reason;
      const e = err as Error & { code?: string; cause?: Error & { code?: string } };
      const code = e.code ?? e.cause?.code;
      const kind =
        code === 'EADDRBLOCKED' || e instanceof BlockedAddressError || e.cause instanceof BlockedAddressError
          ? 'blocked'
          : ac.reason === TIMED_OUT || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT'
            ? 'timeout'
            : 'network';
      return {
        status: 0,
        headers: {},
        body: '',
        size: 0,
        elapsedMs: performance.now() - started,
        request: sent,
        error: kind,
        errorMessage:
          kind === 'timeout' && ac.reason === TIMED_OUT ? `no complete response within ${timeoutMs} ms` : (e.cause?.message ?? e.message) || String(err),
      };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(ac);
      this.slots.release();
    }
  }

  /** Waits `ms` unless the scan is cancelled first. */
  async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.opts.signal });
  }

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}
