/** Browser lifecycle: cancellation, close(), crash restart and recycling, counted in real processes. */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContext } from '../../../src/engines/engine.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startSite } from '../../fixtures/site/server.js';
import { functionalContext } from '../../helpers/functional-engine.js';
import { until } from '../../helpers/until.js';

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmd: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(d), ppid: Number(rest[1]), state: rest[0], cmd });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Every process below this test process (Chromium and its helpers), zombies included. */
function descendants(): Proc[] {
  const all = processes();
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all)
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
  }
  return all.filter((p) => p.pid !== process.pid && mine.has(p.pid));
}

const chromiums = () => descendants().filter((p) => /chrom/i.test(p.cmd) || p.state === 'Z');
/** Page renderers (Chromium's own WebUI renderers excluded). */
const renderers = () => chromiums().filter((p) => p.cmd.includes('--type=renderer') && !p.cmd.includes('--top-chrome-webui') && p.state !== 'Z');
const browserMain = () => chromiums().find((p) => !p.cmd.includes('--type=') && p.state !== 'Z');

/** pids of the killed browsers' process trees, checked to be gone afterwards. */
const killedTrees: number[] = [];
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
function killBrowser(): void {
  const main = browserMain()!;
  const all = chromiums();
  const tree = new Set([main.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all)
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
  }
  killedTrees.push(...tree);
  process.kill(main.pid, 'SIGKILL');
}

const engine = createFunctionalEngine({ recycleAfterPages: 3 });
let site: Awaited<ReturnType<typeof startSite>>;

function ctx(pages: string[], signal = new AbortController().signal, concurrency = 2): EngineContext {
  return functionalContext({ url: site.url, options: { pages, concurrency } }, { signal });
}

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await engine.close();
  site.server.close();
});

describe('functional engine lifecycle', () => {
  it('a cancelled scan rejects with the abort reason, closes its pages, and close() leaves no Chromium process', async () => {
    const ac = new AbortController();
    const run = engine.run(ctx(['/hang', '/hang?2', '/hang?3'], ac.signal));
    await until(() => renderers().length >= 2, 'two renderers', 30_000);
    const reason = new Error('scan cancelled');
    const t0 = Date.now();
    ac.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The contexts are closed: their renderers go away while the browser stays for the next scan.
    await until(() => renderers().length === 0, 'no renderer left', 10_000);
    expect(browserMain()).toBeDefined();
    await engine.close();
    await until(() => chromiums().length === 0, 'no Chromium process left', 10_000);
  }, 60_000);

  it('a browser killed between scans is relaunched; one killed during a scan has its pages retried', async () => {
    const first = await engine.run(ctx(['/clean']));
    expect(first.tasks.every((t) => t.status === 'passed')).toBe(true);
    const before = engine.browserLaunches();
    killBrowser();
    const second = await engine.run(ctx(['/clean']));
    expect(second.tasks.every((t) => t.status === 'passed')).toBe(true);
    expect(engine.browserLaunches()).toBe(before + 1);

    // Kill it while /slow (400 ms server delay, then a long task) is loading.
    const launches = engine.browserLaunches();
    const run = engine.run(ctx(['/slow']));
    await until(() => renderers().length >= 1, 'a renderer', 30_000);
    killBrowser();
    const out = await run;
    expect(out.functional!.performance.pages.map((p) => new URL(p.page_url).pathname)).toEqual(['/slow']);
    // /slow's 300 ms task is at the poor line of FID: its performance task may fail on the rating, never on the crash.
    expect(out.tasks.every((t) => t.status === 'passed' || t.error?.startsWith('rated poor:'))).toBe(true);
    expect(out.tasks.filter((t) => !t.name.startsWith('Performance')).every((t) => t.status === 'passed')).toBe(true);
    expect(engine.browserLaunches()).toBeGreaterThan(launches);
    // Nothing of the killed browsers is left: no zombies, no orphaned helpers.
    await until(() => chromiums().every((p) => p.state !== 'Z'), 'no zombie Chromium process', 10_000);
    await until(() => killedTrees.every((pid) => !alive(pid)), 'the killed process trees gone', 10_000);
  }, 90_000);

  it('recycles the browser after N pages (3 here) without failing pages or leaving processes', async () => {
    await engine.close();
    const before = engine.browserLaunches();
    const out = await engine.run(ctx(['/clean', '/clean?2', '/clean?3', '/clean?4', '/clean?5'], undefined, 1));
    expect(out.tasks).toHaveLength(15);
    // Recycling must fail no page; a speed verdict on a loaded machine is not what is tested here.
    const failed = out.tasks.filter((t) => t.status !== 'passed').map((t) => `${t.name}: ${t.error}`);
    expect(
      failed.every((f) => /^Performance: .*: rated poor:/.test(f)),
      failed.join('\n'),
    ).toBe(true);
    expect(
      out.tasks.filter((t) => !t.name.startsWith('Performance')).every((t) => t.status === 'passed'),
      failed.join('\n'),
    ).toBe(true);
    expect(engine.browserLaunches() - before).toBe(2);
    await until(() => chromiums().filter((p) => !p.cmd.includes('--type=')).length <= 1, 'at most one browser process', 10_000);
    await engine.close();
    await until(() => chromiums().length === 0, 'no Chromium process left', 10_000);
  }, 90_000);

  it('closes the browser once it has served no page for a while after a scan, and the next scan launches one (peak memory of a 10-page scan logged)', async () => {
    await engine.close();
    await until(() => chromiums().length === 0, 'no Chromium process left', 10_000);
    const idle = createFunctionalEngine({ browserIdleCloseMs: 1000 });
    try {
      const rss = () =>
        chromiums().reduce((sum, p) => {
          try {
            return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1] ?? 0);
          } catch {
            return sum;
          }
        }, 0);
      let peakKb = 0;
      const sampler = setInterval(() => (peakKb = Math.max(peakKb, rss())), 200);
      const pages = Array.from({ length: 10 }, (_, i) => `/clean?${i}`);
      const out = await idle.run(ctx(pages));
      clearInterval(sampler);
      expect(out.functional!.visual).toHaveLength(10);
      console.log(`10-page scan (concurrency 2): Chromium peak RSS ${Math.round(peakKb / 1024)} MB (summed over its processes)`);
      expect(idle.browserRunning()).toBe(true);
      await until(() => !idle.browserRunning() && chromiums().length === 0, 'the idle browser closed', 15_000);
      const launches = idle.browserLaunches();
      const again = await idle.run(ctx(['/clean']));
      expect(again.functional!.visual).toHaveLength(1);
      expect(idle.browserLaunches()).toBe(launches + 1);
    } finally {
      await idle.close();
    }
  }, 180_000);
});
