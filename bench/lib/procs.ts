/**
 * Helpers for benchmarks whose targets and baselines each run in their own process: start a process,
 * read its CPU time from /proc, and summarise rounds as a median and a spread.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU time (user + system) a process and its reaped children have used so far, in microseconds. */
export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14-17 of stat (utime, stime, cutime, cstime); f starts at field 3.
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return (ticks * 1_000_000) / TICKS;
}

/** CPU time of this process's children that have ended and been waited for, in microseconds. */
export function childrenCpuUs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[13]) + Number(f[14])) * 1_000_000) / TICKS;
}

/** CPU time of this process (user + system), in microseconds. */
export function selfCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `command args` with `env` added to this process's environment; stdout and stderr go to `logFile`
 * (a file, as an operator's log collector would take them, so this process pays nothing for them).
 */
export function startProcess(command: string, args: string[], env: Record<string, string | undefined>, logFile: string): Child {
  const out = openSync(logFile, 'a');
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  return {
    proc,
    pid: proc.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}

/** Runs a command to its end; resolves with its stdout (rejects on a non-zero exit, with stderr). */
export function runToEnd(command: string, args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`))));
  });
}

/** Polls `url` until it answers (any status under 500) or `timeoutMs` passes. */
export async function waitForUrl(url: string, timeoutMs = 60_000, child?: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.proc.exitCode !== null) throw new Error(`process ${child.pid} exited (${child.proc.exitCode}) before ${url} answered`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** "median (min-max)" with `digits` decimals. */
export function spread(values: number[], digits = 0, unit = ''): string {
  const f = (x: number) => `${x.toFixed(digits)}${unit}`;
  return `${f(median(values))} (${f(Math.min(...values))}-${f(Math.max(...values))})`;
}

/** The 1, 5 and 15 minute load averages and the core count, for the header of every table. */
export function loadLine(): string {
  const [a, b, c] = loadavg();
  return `load average ${a!.toFixed(2)} ${b!.toFixed(2)} ${c!.toFixed(2)} on ${cpus().length} cores`;
}

/** A free TCP port on 127.0.0.1 (taken by a throwaway listener, then released). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
