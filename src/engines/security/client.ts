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
  body?: string | Buffer;
  followRedirects?: boolean;
  timeoutMs?: number;
}

/** Counting semaphore whose waiters leave when the scan is cancelled. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  peak = 0;
  constructor(readonly size: number) {}

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

export class TargetClient {
  readonly agent: Agent;
  readonly slots: Semaphore;
  requests = 0;
  private readonly opts: TargetClientOptions;

  constructor(opts: TargetClientOptions) {
    this.opts = opts;
    this.slots = new Semaphore(opts.concurrency);
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
    await this.slots.acquire(scanSignal);
    const timeoutMs = Math.max(1, Math.ceil(Math.min(req.timeoutMs ?? this.opts.timeoutMs, this.opts.timeoutMs)));
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([scanSignal, timeout]);
    const sent: SentRequest = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : `<${req.body.length} bytes>`,
    };
    const started = performance.now();
    this.requests++;
    try {
      const res = await request(req.url, {
        method: req.method as never,
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (kept < this.opts.maxBodyBytes) {
          const part = chunk.subarray(0, this.opts.maxBodyBytes - kept);
          chunks.push(part);
          kept += part.length;
        }
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      return {
        status: res.statusCode,
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        size,
        elapsedMs: performance.now() - started,
        request: sent,
      };
    } catch (err) {
      if (scanSignal.aborted) throw scanSignal.reason;
      const e = err as Error & { code?: string; cause?: Error & { code?: string } };
      const code = e.code ?? e.cause?.code;
      const kind =
        code === 'EADDRBLOCKED' || e instanceof BlockedAddressError || e.cause instanceof BlockedAddressError
          ? 'blocked'
          : timeout.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT'
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
        errorMessage: (e.cause?.message ?? e.message) || String(err),
      };
    } finally {
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
