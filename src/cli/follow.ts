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
import { ApiFailure, type VigilClient } from './client.js';

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
const notDelivered = (e: ApiFailure) => (e.status === 0 && (e.body as any)?.cause === 'ECONNREFUSED') || e.status === 502 || e.status === 503;

/** Runs `start` until it is accepted; waits on CONCURRENT_LIMIT, rate limits and an unreachable server (bounded). */
export async function startPatiently<T>(start: () => Promise<T>, p: Patience): Promise<T> {
  const deadline = Date.now() + p.queueWaitMs;
  let backoff = 1;
  let concurrentBackoff = 2;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      const left = deadline - Date.now();
      let waitS: number | undefined;
      if (error.status === 429) {
        // CONCURRENT_LIMIT carries no Retry-After: back off 2 s doubling to 30 s.
        waitS = Math.max(1, error.retryAfter ?? (error.code === 'CONCURRENT_LIMIT' ? concurrentBackoff : 5));
        if (error.code === 'CONCURRENT_LIMIT') concurrentBackoff = Math.min(30, concurrentBackoff * 2);
        if (left > 0) p.log(error.code === 'CONCURRENT_LIMIT' ? `the tenant's scans at once are all in use (CONCURRENT_LIMIT); waiting ${waitS} s for a slot\n` : `rate limited (${error.code}); retrying in ${waitS} s\n`);
      } else if (notDelivered(error)) {
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
export async function getPatiently(client: VigilClient, path: string, p: Patience, query?: Record<string, string>) {
  let lastGood = Date.now();
  let backoff = 1;
  let announced = false;
  let limited = 0;
  for (;;) {
    try {
      const res = await client.request('GET', path, { query });
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
      p.log(`${announced ? 'still ' : ''}cannot get ${path} (${error.code}: ${error.message}); retrying in ${backoff} s\n`);
      announced = true;
      await sleep(backoff * 1000);
      backoff = Math.min(30, backoff * 2);
    }
  }
}

/** Polls GET /scan/{id}/results until the scan ends; `onProgress` sees every in-progress body. */
export async function followScan(client: VigilClient, scanId: string, pollMs: number, p: Patience, onProgress: (body: any) => void): Promise<any> {
  for (;;) {
    const body = (await getPatiently(client, `/scan/${encodeURIComponent(scanId)}/results`, p)).body;
    onProgress(body);
    if (['completed', 'failed', 'cancelled'].includes(body?.status)) return body;
    await sleep(pollMs);
  }
}
