/**
 * The benchmark's own processes: the corpus server (serve.ts) and the baselines (baselines.ts),
 * each started with `node --import tsx`, talked to over one JSON line per request and answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CorpusEdit } from './server.js';

interface JsonChild {
  proc: ChildProcess;
  /** Next stdout line, parsed. */
  next(): Promise<unknown>;
  stop(): Promise<void>;
}

function startJsonChild(script: string): JsonChild {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting: Array<(line: string) => void> = [];
  const queued: string[] = [];
  let ended = false;
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  });
  proc.on('exit', () => {
    ended = true;
    for (const w of waiting.splice(0)) w('{"ok":false,"error":"process ended"}');
  });
  return {
    proc,
    next: () =>
      new Promise((resolve) => {
        const line = queued.shift();
        if (line !== undefined) return resolve(JSON.parse(line));
        if (ended) return resolve({ ok: false, error: 'process ended' });
        waiting.push((l) => resolve(JSON.parse(l)));
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.stdin?.end();
        proc.kill('SIGTERM');
      }),
  };
}

export interface CorpusServerProcess {
  url: string;
  setEdit(edit: CorpusEdit | null): Promise<void>;
  externalRequests(): Promise<number>;
  stop(): Promise<void>;
}

/** The corpus server in its own process (the cache prepared first, from the mirrors). */
export async function startCorpusProcess(): Promise<CorpusServerProcess> {
  const child = startJsonChild('./serve.ts');
  const { url } = (await child.next()) as { url?: string };
  if (!url) throw new Error('the corpus server did not start');
  return {
    url,
    async setEdit(edit) {
      await fetch(`${url}/__corpus/edit?kind=${edit ?? ''}`, { method: 'POST' });
    },
    async externalRequests() {
      return Number(await (await fetch(`${url}/__corpus/external`)).text());
    },
    stop: child.stop,
  };
}

export interface BaselinesProcess {
  request<T>(req: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/** Lighthouse, axe and the screenshot tool in their own process; requests are answered in order. */
export async function startBaselines(): Promise<BaselinesProcess> {
  const child = startJsonChild('./baselines.ts');
  await child.next();
  let chain: Promise<unknown> = Promise.resolve();
  return {
    request<T>(req: Record<string, unknown>): Promise<T> {
      const answer = chain.then(async () => {
        child.proc.stdin!.write(`${JSON.stringify(req)}\n`);
        const res = (await child.next()) as { ok: boolean; value?: T; error?: string };
        if (!res.ok) throw new Error(`${String(req.op)} ${String(req.url)}: ${res.error}`);
        return res.value as T;
      });
      chain = answer.catch(() => undefined);
      return answer;
    },
    stop: child.stop,
  };
}
