/**
 * Talking to the server patiently, as a CI job must:
 * - starting a scan waits while the tenant is at its CONCURRENT_LIMIT (retried after 2 s doubling to
 *   30 s, for --queue-wait seconds at most, default 600) and while it is rate limited (Retry-After honoured), instead of exiting 4;
 *   a start the server never received (connection refused, 502/503/504) is tried again;
 * - following a scan survives a restarted server or a network blip: connection errors, timeouts and
 *   5xx answers are retried with exponential backoff (1 s doubling to 30 s) for --reconnect-timeout
 *   seconds (default 300) since the last good answer, then the command gives up (exit 2); a 429 waits
 *   for Retry-After (30 times in a row at most, then exit 4).
 */
import { fillPath, type ApiPath, type ResponseBody } from '../api-client/calls.js';
import { ApiFailure, type CallArgs, type CallResult, type VigilClient } from './client.js';

export type ScanResults = ResponseBody<'get', '/scan/{id}/results'>;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Patience {
  /** Longest wait for a concurrency slot or the rate limit at start (ms). */
  queueWaitMs: number;
  /** Longest time without a good answer while following (ms). */
  reconnectMs: number;
  log: (line: string) => void;
}

const transient = (e: ApiFailure) => e.status === 0 || e.status === 502 || e.status === 503 || e.status === 504 || e.status === 500;
/** A start that certainly did not reach the server (so trying again cannot start it twice). */
const notDelivered = (e: ApiFailure) =>
  (e.status === 0 && (e.body as { cause?: string } | null)?.cause === 'ECONNREFUSED') || e.status === 502 || e.status === 503;

/**
 * How long a server that has not answered once in this command is retried before the command gives up:
 * a wrong VIGIL_URL (or a server that is not up) fails in seconds instead of waiting --queue-wait. A
 * server that answered once and then went away is waited for as long as --queue-wait allows.
 */
export const NEVER_REACHED_WAIT_MS = 15_000;

/**
 * With an Idempotency-Key the server answers a repeat with the first answer and never admits twice, so
 * any failure that may or may not have reached it (no answer, timeout, 5xx) and a key still in use (409)
 * are safe to retry with the same key.
 */
const retryableWithKey = (e: ApiFailure) => e.status === 0 || e.status >= 500 || (e.status === 409 && e.code === 'IDEMPOTENCY_KEY_IN_USE');

/**
 * Runs `start` until it is accepted; waits on CONCURRENT_LIMIT, rate limits and an unreachable server
 * (bounded). `idempotent`: `start` sends the same Idempotency-Key each time (retrying is always safe).
 */
export async function startPatiently<T>(start: () => Promise<T>, p: Patience, idempotent = false, neverReachedMs = NEVER_REACHED_WAIT_MS): Promise<T> {
  const began = Date.now();
  const deadline = began + p.queueWaitMs;
  let answered = false;
  let backoff = 1;
  let concurrentBackoff = 2;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      if (error.status !== 0) answered = true;
      const unreachable = error.status === 0;
      if (unreachable && !answered && Date.now() - began >= neverReachedMs) {
        throw new ApiFailure(
          0,
          error.code,
          `${error.message} (never reached in ${Math.round((Date.now() - began) / 1000)} s: is VIGIL_URL right, and the server up?)`,
          error.body,
          null,
        );
      }
      // DNS gave no address: no wait makes the name right.
      if ((error.body as { cause?: string } | null)?.cause === 'ENOTFOUND')
        throw new ApiFailure(0, error.code, `${error.message} (is VIGIL_URL right?)`, error.body, null);
      const left = (unreachable && !answered ? Math.min(deadline, began + neverReachedMs) : deadline) - Date.now();
      let waitS: number | undefined;
      if (error.status === 429) {
        // CONCURRENT_LIMIT carries no Retry-After: back off 2 s doubling to 30 s.
        waitS = Math.max(1, error.retryAfter ?? (error.code === 'CONCURRENT_LIMIT' ? concurrentBackoff : 5));
        if (error.code === 'CONCURRENT_LIMIT') concurrentBackoff = Math.min(30, concurrentBackoff * 2);
        if (left > 0)
          p.log(
            error.code === 'CONCURRENT_LIMIT'
              ? `the tenant's scans at once are all in use (CONCURRENT_LIMIT); waiting ${waitS} s for a slot\n`
              : `rate limited (${error.code}); retrying in ${waitS} s\n`,
          );
      } else if (idempotent ? retryableWithKey(error) : notDelivered(error)) {
        waitS = backoff;
        backoff = Math.min(30, backoff * 2);
        if (left > 0) p.log(`server unavailable (${error.message}); retrying in ${waitS} s\n`);
      }
      if (waitS === undefined || left <= 0) throw error;
      await sleep(Math.min(waitS * 1000, Math.max(left, 1000)));
    }
  }
}

/** A GET that outlives blips: transient failures retried with backoff until `reconnectMs` without a good answer; 429 waits. */
export async function getPatiently<P extends ApiPath<'get'>>(
  client: VigilClient,
  path: P,
  p: Patience,
  ...args: CallArgs<'get', P>
): Promise<CallResult<'get', P>> {
  const where = fillPath(path, args[0]?.path as Record<string, string> | undefined);
  let lastGood = Date.now();
  let backoff = 1;
  let announced = false;
  let limited = 0;
  for (;;) {
    try {
      const res = await client.call('get', path, ...args);
      limited = 0;
      if (announced) p.log('connection to the server restored; following again\n');
      return res;
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      if (error.status === 429 && error.code !== 'CONCURRENT_LIMIT' && limited < 30) {
        limited += 1;
        await sleep(Math.max(1, error.retryAfter ?? 5) * 1000);
        lastGood = Date.now();
        continue;
      }
      if (!transient(error) || Date.now() - lastGood > p.reconnectMs) throw error;
      p.log(`${announced ? 'still ' : ''}cannot get ${where} (${error.code}: ${error.message}); retrying in ${backoff} s\n`);
      announced = true;
      await sleep(backoff * 1000);
      backoff = Math.min(30, backoff * 2);
    }
  }
}

/** Polls GET /scan/{id}/results until the scan ends; `onProgress` sees every in-progress body. */
export async function followScan(
  client: VigilClient,
  scanId: string,
  pollMs: number,
  p: Patience,
  onProgress: (body: ScanResults) => void,
): Promise<ScanResults> {
  for (;;) {
    const body = (await getPatiently(client, '/scan/{id}/results', p, { path: { id: scanId } })).body;
    onProgress(body);
    if (['completed', 'failed', 'cancelled'].includes(body?.status)) return body;
    await sleep(pollMs);
  }
}
