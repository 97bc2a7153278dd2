/**
 * Weak HMAC secret search: a dictionary, then every short numeric and lowercase secret, in one
 * worker thread (the scan process keeps its event loop free for lease heartbeats), stopped at a
 * time budget or when the scan is cancelled.
 */
import { Worker } from 'node:worker_threads';
import { SECRET_SEARCH_WORKER_SOURCE } from './secret-search-worker.js';
import { hmacDigest, type ParsedJwt } from './token.js';

/** Every key of `length` characters of `alphabet`. */
export interface SearchSpace {
  name: string;
  alphabet: string;
  length: number;
}

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** Numbers of 1-6 digits (leading zeros included) and lowercase words of 1-5 letters, smallest space first. */
export const DEFAULT_SPACES: SearchSpace[] = [
  ...[1, 2, 3, 4, 5, 6].map((length) => ({ name: `${length}-digit numbers`, alphabet: DIGITS, length })),
  ...[1, 2, 3, 4, 5].map((length) => ({ name: `${length}-letter lowercase words`, alphabet: LOWER, length })),
].sort((a, b) => a.alphabet.length ** a.length - b.alphabet.length ** b.length);

export interface SearchPhase {
  name: string;
  tried: number;
  total: number;
}

export interface SecretSearchResult {
  secret?: string;
  /** The phase that found it ("dictionary", "6-digit numbers"...). */
  foundIn?: string;
  /** found | exhausted (everything tried) | budget (time ran out first). */
  stopped: 'found' | 'exhausted' | 'budget';
  tried: number;
  /** Candidates in the dictionary and every space. */
  total: number;
  /** Per phase, in search order, including those never reached. */
  phases: SearchPhase[];
  elapsedMs: number;
}

export interface SecretSearchOptions {
  /** Wall-clock budget of the worker's search (one core at most). */
  budgetMs: number;
  signal: AbortSignal;
  /** One candidate a line (UTF-8). */
  dictionary: Buffer;
  spaces?: SearchSpace[];
}

interface DoneMessage {
  type: 'done';
  secret?: string;
  phase?: string;
  stopped: SecretSearchResult['stopped'];
  tried: number;
  phases: SearchPhase[];
  elapsedMs: number;
}
type WorkerMessage = DoneMessage | { type: 'progress'; tried: number };

/** Time a worker may take past its budget (start-up, a slow last batch) before it is ended. */
const GRACE_MS = 10_000;

function countLines(text: Buffer): number {
  let n = 0;
  let start = 0;
  for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, start)) {
    if (i > start) n++;
    start = i + 1;
  }
  return start < text.length ? n + 1 : n;
}

/** Searches the secret the token's HS256/384/512 signature was made with. Rejects with the signal's reason when cancelled. */
export function searchHmacSecret(jwt: ParsedJwt, opts: SecretSearchOptions): Promise<SecretSearchResult> {
  const digest = hmacDigest(jwt.header.alg);
  if (!digest) return Promise.reject(new Error(`not an HMAC token (alg ${String(jwt.header.alg)})`));
  opts.signal.throwIfAborted();
  const spaces = opts.spaces ?? DEFAULT_SPACES;
  const planned: SearchPhase[] = [
    { name: 'dictionary', tried: 0, total: countLines(opts.dictionary) },
    ...spaces.map((s) => ({ name: s.name, tried: 0, total: s.alphabet.length ** s.length })),
  ];
  const total = planned.reduce((n, p) => n + p.total, 0);
  const started = performance.now();

  return new Promise<SecretSearchResult>((resolve, reject) => {
    const worker = new Worker(SECRET_SEARCH_WORKER_SOURCE, {
      eval: true,
      workerData: {
        digest,
        input: Buffer.from(jwt.signingInput),
        signature: jwt.signature,
        dictionary: opts.dictionary,
        spaces,
        budgetMs: opts.budgetMs,
      },
    });
    let tried = 0;
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(overrun);
      opts.signal.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => finish(() => reject(opts.signal.reason));
    // The worker checks its own clock; this ends one that somehow does not (it never blocks the scan).
    const overrun = setTimeout(() => {
      finish(() => resolve({ stopped: 'budget', tried, total, phases: planned, elapsedMs: performance.now() - started }));
    }, opts.budgetMs + GRACE_MS);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') {
        tried = m.tried;
        return;
      }
      const phases = planned.map((p) => m.phases.find((q) => q.name === p.name) ?? p);
      finish(() => resolve({ secret: m.secret, foundIn: m.phase, stopped: m.stopped, tried: m.tried, total, phases, elapsedMs: m.elapsedMs }));
    });
    worker.on('error', (err) => finish(() => reject(err)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the secret search worker exited with code ${code} before answering`))));
  });
}

/** "dictionary (112,305), 1-6 digit numbers, ... ; 5-letter lowercase words: 42% when the budget ran out". */
export function describeSearch(r: SecretSearchResult): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const done = r.phases
    .filter((p) => p.total > 0 && p.tried >= p.total)
    .map((p) => (p.name === 'dictionary' ? `a dictionary of ${fmt(p.total)} common secrets` : `all ${p.name}`));
  const partial = r.phases.filter((p) => p.tried > 0 && p.tried < p.total);
  const untouched = r.phases.filter((p) => p.tried === 0 && p.total > 0);
  const parts = [`Tried ${fmt(r.tried)} of ${fmt(r.total)} candidate secrets in ${(r.elapsedMs / 1000).toFixed(1)} s`];
  if (done.length) parts.push(`covering ${done.join(', ')}`);
  if (r.stopped !== 'found') {
    for (const p of partial) parts.push(`${p.name}: ${Math.floor((p.tried / p.total) * 100)}% searched`);
    if (r.stopped === 'budget') parts.push(`stopped at the time budget${untouched.length ? `; not reached: ${untouched.map((p) => p.name).join(', ')}` : ''}`);
  }
  return `${parts.join('; ')}.`;
}
