/**
 * Security engine against a plain undici loop, each in its own process, and the target in a third: the
 * engine (dist/, checks server-errors, misconfiguration, data-exposure, auth-enforcement, sql-injection)
 * scans the target with the OpenAPI document of a real API (Vigil's own, read from a `vigil serve` started
 * for the purpose); the target records every request it gets during the scan, and the loop replays exactly
 * those (methods, paths, headers, bodies) with the same connection count. Concurrency 5 and 50; WARMUP
 * passes discarded (the engine has far more code for the JIT to warm), then ROUNDS rounds. Printed: req/s
 * of each, the ratio, the CPU time per request of the engine's, the loop's and the target's processes,
 * medians (min-max), the load average. Then the engine process is run once more under --cpu-prof at
 * concurrency 50 and the profile is summarised: self time by file and inclusive time by engine function.
 *
 * Not measured: checks outside the list above (time-delay, rate-limit and the crawler's work), spec
 * loading from a URL, storing results, and targets slower than a loopback JSON server (against a real
 * target the target's own latency dominates and the engine's CPU matters less).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, loadLine, median, processCpuUs, spread, startProcess, waitForUrl } from './lib/procs.js';
import { summarise } from './lib/profile-summary.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROOT = new URL('..', import.meta.url).pathname;

interface Worker {
  proc: ChildProcess;
  ask<T>(message: object): Promise<T>;
  stop(): Promise<void>;
}

/** Forks an IPC-driven bench process and waits for its first message. */
async function worker(script: string, execArgv: string[] = []): Promise<{ w: Worker; first: any }> {
  const proc = fork(join(ROOT, 'bench/lib', script), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<any>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited ${code}`));
      proc.once('exit', onExit);
      proc.once('message', (m) => {
        proc.off('exit', onExit);
        resolve(m);
      });
    });
  const first = await next();
  const w: Worker = {
    proc,
    ask: async (message) => {
      const answer = next();
      proc.send(message);
      return answer;
    },
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.send({ stop: true });
      }),
  };
  return { w, first };
}

/** Vigil's own OpenAPI document: the spec of a real API with some 50 operations. */
async function realSpec(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-spec-'));
  const port = await freePort();
  const child = startProcess(
    'node',
    [join(ROOT, 'dist/operator/main.js'), 'serve'],
    {
      VIGIL_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      VIGIL_LOG_LEVEL: 'silent',
      VIGIL_ROLE: 'api',
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
    },
    join(dataDir, 'log'),
  );
  try {
    const url = `http://127.0.0.1:${port}/api/v1/openapi.json`;
    await waitForUrl(url, 60_000, child);
    const spec = (await (await fetch(url)).json()) as { servers?: unknown };
    delete spec.servers;
    return JSON.stringify(spec);
  } finally {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Pass {
  requests: number;
  engineRps: number;
  loopRps: number;
  engineCpu: number;
  loopCpu: number;
  targetCpuEngine: number;
  targetCpuLoop: number;
}

export async function run(): Promise<void> {
  const spec = await realSpec();
  const operations = Object.values((JSON.parse(spec) as { paths: Record<string, object> }).paths).reduce((n, p) => n + Object.keys(p).length, 0);
  const { w: target, first } = await worker('security-target.mjs');
  const url = `http://127.0.0.1:${(first as { port: number }).port}`;
  const { w: loop } = await worker('plain-loop.mjs');
  const results: Record<number, Pass[]> = {};
  try {
    for (const concurrency of [5, 50]) {
      const { w: engine } = await worker('security-engine.mjs');
      try {
        results[concurrency] = [];
        for (let pass = 0; pass < WARMUP + ROUNDS; pass++) {
          await target.ask({ record: true });
          const t0 = processCpuUs(target.proc.pid!);
          const e = await engine.ask<{ ms: number; cpuUs: number }>({ run: { url, spec, concurrency } });
          const t1 = processCpuUs(target.proc.pid!);
          const { requests } = await target.ask<{ requests: unknown[] }>({ dump: true });
          const l = await loop.ask<{ ms: number; cpuUs: number }>({ run: { url, requests, concurrency } });
          const t2 = processCpuUs(target.proc.pid!);
          const n = requests.length;
          process.stderr.write(
            `  concurrency ${concurrency} pass ${pass + 1}/${WARMUP + ROUNDS}: ${n} requests, engine ${(e.ms / 1000).toFixed(1)} s, loop ${(l.ms / 1000).toFixed(1)} s\n`,
          );
          if (pass < WARMUP) continue;
          results[concurrency]!.push({
            requests: n,
            engineRps: n / (e.ms / 1000),
            loopRps: n / (l.ms / 1000),
            engineCpu: e.cpuUs / n,
            loopCpu: l.cpuUs / n,
            targetCpuEngine: (t1 - t0) / n,
            targetCpuLoop: (t2 - t1) / n,
          });
        }
      } finally {
        await engine.stop();
      }
    }
  } finally {
    await loop.stop();
    await target.stop();
  }
  process.stdout.write(
    `\nSecurity engine vs plain undici loop replaying its requests; engine, loop and target each in its own process; spec: Vigil's own OpenAPI (${operations} operations); ` +
      `${WARMUP} warm-up passes, then ${ROUNDS} rounds, median (min-max); ${loadLine()}\n`,
  );
  process.stdout.write(
    `${'concurrency'.padEnd(12)} ${'requests'.padStart(8)} ${'engine req/s'.padStart(18)} ${'loop req/s'.padStart(18)} ${'engine/loop'.padStart(16)} ${'engine CPU us/req'.padStart(18)} ${'loop CPU us/req'.padStart(16)} ${'target CPU us/req (engine, loop)'.padStart(34)}\n`,
  );
  for (const [c, passes] of Object.entries(results)) {
    process.stdout.write(
      `${c.padEnd(12)} ${String(median(passes.map((p) => p.requests))).padStart(8)} ${spread(passes.map((p) => p.engineRps)).padStart(18)} ${spread(passes.map((p) => p.loopRps)).padStart(18)} ` +
        `${spread(
          passes.map((p) => (p.engineRps / p.loopRps) * 100),
          0,
          '%',
        ).padStart(16)} ${spread(passes.map((p) => p.engineCpu)).padStart(18)} ${spread(passes.map((p) => p.loopCpu)).padStart(16)} ` +
        `${`${median(passes.map((p) => p.targetCpuEngine)).toFixed(0)}, ${median(passes.map((p) => p.targetCpuLoop)).toFixed(0)}`.padStart(34)}\n`,
    );
  }
  process.stdout.write('target: engine at least 80% of the loop at both concurrencies\n');
  await profile(spec);
}

/** One more engine process, profiled (V8's sampling profiler) over ROUNDS scans at concurrency 50 after the warm-up, summarised. */
async function profile(spec: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-prof-'));
  const file = join(dir, 'engine.cpuprofile');
  const { w: target, first } = await worker('security-target.mjs');
  const url = `http://127.0.0.1:${(first as { port: number }).port}`;
  const { w: engine } = await worker('security-engine.mjs');
  try {
    for (let pass = 0; pass < WARMUP; pass++) await engine.ask({ run: { url, spec, concurrency: 50 } });
    await engine.ask({ profile: 'start' });
    for (let pass = 0; pass < ROUNDS; pass++) await engine.ask({ run: { url, spec, concurrency: 50 } });
    await engine.ask({ profile: 'stop', file });
  } finally {
    await engine.stop();
    await target.stop();
  }
  const s = summarise(file, ROOT, /^dist\/engines\/security\//, 20);
  process.stdout.write(
    `\nEngine process CPU profile (concurrency 50, ${ROUNDS} scans after ${WARMUP} warm-up scans, busy ${(s.busyMs / 1000).toFixed(1)} s): self time by file (native callees charged to their caller)\n`,
  );
  for (const r of s.byFile) process.stdout.write(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
  process.stdout.write('self time by function (native callees charged to their caller)\n');
  for (const r of s.bySelf) process.stdout.write(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
  process.stdout.write('inclusive time by engine function (a share counts everything called beneath it)\n');
  for (const r of s.byFunction) process.stdout.write(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}\n`);
  if (process.env.BENCH_KEEP_PROFILE) process.stdout.write(`profile kept: ${file}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
