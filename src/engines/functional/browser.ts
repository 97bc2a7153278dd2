import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { chromiumMemory, chromiumPagesOpen } from '../../observability/metrics.js';
import { EngineFailure } from '../engine.js';
import { chromiumMemoryBytes } from './browser-memory.js';

/**
 * Finding Chromium (never downloaded) and the browser pool: one Chromium shared by every page a
 * pool serves, each page in a fresh context; relaunched after a crash and recycled after
 * `recycleAfterPages` pages (once its in-flight pages are done) to bound memory growth, and held to
 * a memory budget: while the browser's memory is at or over it, a new page waits for a page of the
 * pool to end, and a browser over it with no page open is replaced.
 */

export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--no-default-browser-check',
  '--mute-audio',
  '--font-render-hinting=none',
  '--force-color-profile=srgb',
  // WebRTC must not open UDP sockets around the (hosted-mode) proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const INSTALL_HINT = 'install with apt-get install chromium or set CHROMIUM_PATH';

/** Default; workers pass VIGIL_BROWSER_RECYCLE_PAGES through the engine options. */
export const RECYCLE_AFTER_PAGES = 200;

/**
 * A browser with no page for this long is closed (the next page launches one, about a second):
 * between scans a worker holds no Chromium memory.
 */
export const IDLE_CLOSE_MS = 15_000;

/**
 * Readiness launches Chromium only when no launch has been tried yet, or when the last one failed this
 * long ago; every other probe reads the last launch's outcome (scans launch it too, and refresh it).
 */
export const LAUNCH_RECHECK_MS = 10 * 60_000;

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own (extensions,
 * GPU rasterisation); when it is that wrapper, launch the real binary next to it instead.
 */
function unwrap(path: string): string {
  try {
    const head = readFileSync(path, { encoding: 'latin1' }).slice(0, 4096);
    if (!head.startsWith('#!')) return path;
    const m = /LIBDIR=(\/\S+)/.exec(head);
    const app = /APPNAME=(\S+)/.exec(head);
    if (m && app) {
      const real = `${m[1].replace('$APPNAME', app[1])}/${app[1]}`;
      if (isExecutable(real)) return real;
    }
  } catch {
    /* fall through */
  }
  return path;
}

/** The Chromium executable to use, or undefined when none is found (callers log INSTALL_HINT). */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return resolveChromium(env);
  } catch {
    return undefined;
  }
}

export const CHROMIUM_INSTALL_HINT = INSTALL_HINT;

/** The Chromium executable to use, or a BROWSER_UNAVAILABLE failure saying how to get one. */
export function resolveChromium(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.CHROMIUM_PATH?.trim();
  if (override) {
    if (isExecutable(override)) return unwrap(override);
    throw new EngineFailure('BROWSER_UNAVAILABLE', `CHROMIUM_PATH=${override} is not an executable file; ${INSTALL_HINT}`);
  }
  for (const c of CANDIDATES) if (isExecutable(c)) return unwrap(c);
  throw new EngineFailure('BROWSER_UNAVAILABLE', `no Chromium found (looked in ${CANDIDATES.join(', ')}); ${INSTALL_HINT}`);
}

/** Pages one scan may run at once: the requested concurrency, capped for the machine. */
export function pageConcurrency(requested: number, cap = Math.max(2, Math.min(8, cpus().length * 2))): number {
  return Math.max(1, Math.min(Math.floor(requested) || 1, cap));
}

interface Slot {
  browser: Browser;
  served: number;
  inFlight: number;
  retired: boolean;
}

export interface BrowserLease {
  browser: Browser;
  /** Call once the page's context is closed. */
  release(): void;
}

export interface BrowserPoolOptions {
  /** The Chromium to launch (else CHROMIUM_PATH or the usual paths, read when a browser is launched). */
  chromiumPath?: string;
  /** Pages a browser serves before it is replaced (default RECYCLE_AFTER_PAGES). */
  recycleAfterPages?: number;
  /** A browser serving no page for this long is closed (default IDLE_CLOSE_MS). */
  idleCloseMs?: number;
  /** Chromium memory (PSS of its processes) at or over which new pages wait (VIGIL_BROWSER_MEMORY_MB); 0 or unset: no budget. */
  memoryBudgetBytes?: number;
}

/** One Chromium at a time for the pages of every scan an engine runs. */
export class BrowserPool {
  private current: Slot | undefined;
  private launching: Promise<Slot> | undefined;
  private readonly retired = new Set<Slot>();
  private readonly recycleAfter: number;
  private readonly idleCloseMs: number;
  private idleTimer: NodeJS.Timeout | undefined;
  private launchCount = 0;
  private readonly memoryBudget: number;
  /** Acquirers waiting for a page to end (the memory budget): woken on every release. */
  private releaseWaiters: Array<() => void> = [];
  /** The last launch's outcome: undefined until one was tried. */
  private lastLaunch: { failure?: string; at: number } | undefined;

  constructor(private readonly opts: BrowserPoolOptions = {}) {
    this.recycleAfter = Math.max(1, Math.floor(opts.recycleAfterPages ?? RECYCLE_AFTER_PAGES));
    this.idleCloseMs = Math.max(0, opts.idleCloseMs ?? IDLE_CLOSE_MS);
    this.memoryBudget = Math.max(0, opts.memoryBudgetBytes ?? 0);
  }

  /** Whether a browser is running now (closed when idle, after a crash, or not launched yet). */
  get running(): boolean {
    return !!this.current?.browser.isConnected() || this.retired.size > 0;
  }

  /** Browsers launched by this pool so far (restarts after a crash or recycling included). */
  get launches(): number {
    return this.launchCount;
  }

  /** The executable this pool launches, or a BROWSER_UNAVAILABLE failure saying how to get one. */
  executable(): string {
    return resolveChromium(this.opts.chromiumPath ? { CHROMIUM_PATH: this.opts.chromiumPath } : process.env);
  }

  /**
   * `ok`, or why this pool cannot serve pages now (GET /health/ready). Cheap enough for every probe: it
   * finds the executable (a stat), looks at the running browser's connection and reads the last launch's
   * outcome. When no launch was tried yet, or the last one failed over LAUNCH_RECHECK_MS ago, it starts
   * one in the background (the browser then closes when idle); a later probe reads its outcome.
   */
  readiness(): string {
    try {
      this.executable();
    } catch (err) {
      return (err as Error).message;
    }
    if (this.current && !this.current.browser.isConnected()) return 'Chromium is not connected';
    const last = this.lastLaunch;
    if (!this.launching && (!last || (last.failure !== undefined && Date.now() - last.at >= LAUNCH_RECHECK_MS))) this.checkLaunch();
    return last?.failure ?? 'ok';
  }

  private checkLaunch(): void {
    this.slot().then(
      (slot) => {
        if (slot === this.current && slot.inFlight === 0) this.closeWhenIdle(slot);
      },
      () => undefined, // recorded in lastLaunch
    );
  }

  /**
   * Borrow the browser for one page; call `release` when the page's context is closed. The
   * browser is retired after `recycleAfterPages` pages.
   */
  async acquire(): Promise<BrowserLease> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const slot = this.memoryBudget > 0 ? await this.slotWithinBudget() : await this.slot();
    slot.inFlight++;
    slot.served++;
    if (slot.served >= this.recycleAfter) this.retire(slot);
    chromiumPagesOpen.inc();
    let released = false;
    return {
      browser: slot.browser,
      release: () => {
        if (released) return;
        released = true;
        chromiumPagesOpen.dec();
        slot.inFlight--;
        if (slot.retired && slot.inFlight === 0) {
          this.retired.delete(slot);
          void slot.browser.close().catch(() => undefined);
        }
        if (slot === this.current && slot.inFlight === 0) this.closeWhenIdle(slot);
        const waiters = this.releaseWaiters;
        this.releaseWaiters = [];
        for (const wake of waiters) wake();
      },
    };
  }

  /**
   * The current browser once its memory is under the budget: measured before each page; over it, wait
   * for a page to end and measure again, or, with no page open, replace the browser (a fresh one holds
   * the least). A page opened under the budget may still take the browser over it: the budget bounds
   * when pages start, not what a page allocates.
   */
  private async slotWithinBudget(): Promise<Slot> {
    for (;;) {
      const slot = await this.slot();
      // A browser that has served no page yet holds the least any browser can: nothing to measure.
      if (slot.served === 0) return slot;
      const used = await chromiumMemoryBytes(slot.browser).catch(() => 0);
      chromiumMemory.set(used);
      if (used < this.memoryBudget) return slot;
      if (slot.inFlight === 0 && !slot.retired) {
        this.retire(slot);
        return this.slot();
      }
      await new Promise<void>((resolve) => this.releaseWaiters.push(resolve));
    }
  }

  /** Closes the browser once it has served no page for idleCloseMs (a page acquired meanwhile keeps it). */
  private closeWhenIdle(slot: Slot): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.current === slot && slot.inFlight === 0) this.retire(slot);
    }, this.idleCloseMs);
    this.idleTimer.unref();
  }

  /** Close every browser of the pool (worker shutdown). Safe to call more than once. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const slots = [this.current, ...this.retired].filter((s): s is Slot => !!s);
    if (this.launching) {
      try {
        slots.push(await this.launching);
      } catch {
        /* launch failed: nothing to close */
      }
    }
    this.current = undefined;
    this.retired.clear();
    await Promise.all(slots.map((s) => s.browser.close().catch(() => undefined)));
  }

  private async launch(): Promise<Slot> {
    const executablePath = this.executable();
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath,
        headless: true,
        args: LAUNCH_ARGS,
        timeout: 30_000,
        // The worker's own shutdown calls close(); Playwright still kills the browser when the
        // process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      const failure = `Chromium at ${executablePath} failed to start (${(err as Error).message.split('\n')[0]}); ${INSTALL_HINT}`;
      this.lastLaunch = { failure, at: Date.now() };
      throw new EngineFailure('BROWSER_UNAVAILABLE', failure);
    }
    this.lastLaunch = { at: Date.now() };
    this.launchCount++;
    const slot: Slot = { browser, served: 0, inFlight: 0, retired: false };
    browser.on('disconnected', () => {
      slot.retired = true;
      this.retired.delete(slot);
      if (this.current === slot) this.current = undefined;
    });
    return slot;
  }

  private async slot(): Promise<Slot> {
    if (this.current && !this.current.retired && this.current.browser.isConnected()) return this.current;
    if (!this.launching) {
      this.launching = this.launch().finally(() => {
        this.launching = undefined;
      });
      this.current = await this.launching;
      return this.current;
    }
    return this.launching;
  }

  private retire(slot: Slot): void {
    slot.retired = true;
    if (this.current === slot) this.current = undefined;
    if (slot.inFlight === 0) void slot.browser.close().catch(() => undefined);
    else this.retired.add(slot);
  }
}
