/**
 * Full-page image diff: a generated text-rich 3000x10000 screenshot pair (bench/lib/text-page.ts: content
 * on every row, a reworded paragraph, a recoloured banner, a block moved by one pixel), each contender in
 * its own process, reading both PNGs from disk and writing its diff PNG: Vigil (dist/, what the functional
 * engine runs: decode, compare with its noise and region rules, diff image and thumbnail), pixelmatch +
 * pngjs, and odiff (the native binary of odiff-bin's @odiff/linux-x64 package, --antialiasing, a dev dependency used only
 * here). ROUNDS rounds in turn; printed: the time each reports for its own work (odiff: its process's
 * wall time), its process's wall time (start-up included) and CPU time, medians and spreads, the ratios of
 * Vigil to odiff, and the load average.
 *
 * Not measured: capture (the browser's screenshot), storing artifacts, pages of other sizes (see
 * bench/visual.bench.ts for a 1280-wide page), and whether the contenders agree on what changed (they
 * do not: odiff and pixelmatch count text-rendering noise as change, Vigil does not; their counts are
 * printed for reference).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeScreenshotPng, textPage } from './lib/text-page.js';
import { childrenCpuUs, loadLine, median, spread } from './lib/procs.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WIDTH = 3000;
const HEIGHT = 10000;
const ROOT = new URL('..', import.meta.url).pathname;
const ODIFF = join(ROOT, 'node_modules/@odiff/linux-x64/odiff');

interface Outcome {
  ms: number;
  /** The process's wall time, start-up included (for odiff the same as ms). */
  wallMs: number;
  cpuMs: number;
  detail: Record<string, unknown>;
}

function timed(command: string, args: string[], okCodes: number[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuUs();
    const t0 = performance.now();
    const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    let wall = 0;
    proc.on('exit', () => (wall = performance.now() - t0));
    proc.on('close', (code) => {
      const cpuMs = (childrenCpuUs() - cpu0) / 1000;
      if (!okCodes.includes(code ?? -1)) return reject(new Error(`${command} exited ${code}: ${err.slice(-1000)}`));
      const last = out.trim().split('\n').pop() ?? '';
      let detail: Record<string, unknown> = {};
      try {
        detail = JSON.parse(last) as Record<string, unknown>;
      } catch {
        detail = { output: last.slice(0, 200) };
      }
      resolve({ ms: typeof detail.ms === 'number' ? detail.ms : wall, wallMs: wall, cpuMs, detail });
    });
  });
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-diff-bench-'));
  try {
    const a = join(dir, 'baseline.png');
    const b = join(dir, 'current.png');
    writeFileSync(a, encodeScreenshotPng(textPage(WIDTH, HEIGHT, 'baseline')));
    writeFileSync(b, encodeScreenshotPng(textPage(WIDTH, HEIGHT, 'changed')));
    const contenders = [
      {
        name: 'Vigil (decode + compare + noise/regions + diff image + thumbnail)',
        run: () => timed('node', [join(ROOT, 'bench/lib/diff-vigil.mjs'), a, b, join(dir, 'vigil.png')], [0]),
      },
      { name: 'pixelmatch + pngjs', run: () => timed('node', [join(ROOT, 'bench/lib/diff-pixelmatch.mjs'), a, b, join(dir, 'pixelmatch.png')], [0]) },
      {
        name: 'odiff (native binary, --antialiasing)',
        run: () => timed(ODIFF, [a, b, join(dir, 'odiff.png'), '--antialiasing', '--parsable-stdout'], [0, 22]),
      },
    ];
    const results: Outcome[][] = contenders.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of contenders.entries()) results[i]!.push(await c.run());
    }
    const mb = (f: string) => (statSync(f).size / 1048576).toFixed(1);
    process.stdout.write(
      `\nImage diff ${WIDTH}x${HEIGHT}, text on every row (PNGs ${mb(a)} + ${mb(b)} MB), read + decode + compare + encode + write, ` +
        `each in its own process; ${ROUNDS} rounds, median (min-max); ${loadLine()}\n`,
    );
    process.stdout.write(
      `${'contender'.padEnd(68)} ${'ms'.padStart(20)} ${'process wall ms'.padStart(20)} ${'process CPU ms'.padStart(20)}  what it reported\n`,
    );
    contenders.forEach((c, i) => {
      const r = results[i]!;
      const { ms: _ms, ...detail } = r[r.length - 1]!.detail;
      process.stdout.write(
        `${c.name.padEnd(68)} ${spread(r.map((x) => x.ms)).padStart(20)} ${spread(r.map((x) => x.wallMs)).padStart(20)} ${spread(r.map((x) => x.cpuMs)).padStart(20)}  ${JSON.stringify(detail)}\n`,
      );
    });
    const ratio = (f: (o: Outcome) => number) => (median(results[0]!.map(f)) / median(results[2]!.map(f))).toFixed(2);
    process.stdout.write(
      `Vigil / odiff (target: under 1.00x): ${ratio((x) => x.ms)}x the time each reports, ` +
        `${ratio((x) => x.wallMs)}x the process wall time (Node's start-up included), ${ratio((x) => x.cpuMs)}x the process CPU\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
