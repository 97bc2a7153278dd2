/**
 * Running pages: `PageRunner.visit` runs one page in a fresh browser context, bounded by the page's
 * timeout (time spent waiting for the CPU lock not counted), raced against cancellation, and once
 * more in a new browser after a crash; `PageQueue` runs visits over the crawl frontier with a fixed
 * number of workers, pages found while crawling joining the queue.
 */
import type { Logger } from 'pino';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { BrowserPool } from './browser.js';
import type { CpuLock, LockHold } from './cpu-lock.js';
import type { PagePauser } from './page-pauser.js';

export interface PageRunnerOptions {
  pool: BrowserPool;
  lock: CpuLock;
  /** Open pages, paused while another page holds the lock exclusively (one per engine, as the lock). */
  pauser: PagePauser;
  /** The scan's signal: aborting it closes every page at once. */
  signal: AbortSignal;
  logger: Logger;
  /** A page's budget: its visit fails once it has worked this long... */
  limitMs: number;
  /** ...with this reason (which names the option that sets the limit). */
  limitReason: string;
  /** Options of each page's fresh context (fetched per page: an OAuth2 token may have been renewed). */
  contextOptions(): Promise<BrowserContextOptions>;
}

/** What a page's work may ask of its visit. */
export interface Visit {
  /**
   * Runs `fn` holding the engine's CPU lock; the wait for it does not count against the timeout.
   * Exclusively, the scripts of every other open page are paused meanwhile. `background`: work
   * `fn`'s result left running (e.g. a computation on another thread); the lock is kept, shared,
   * until it settles, so no other page's metric load competes with it.
   */
  withLock<T>(exclusive: boolean, fn: () => Promise<T>, background?: (result: T) => Promise<unknown> | undefined): Promise<T>;
}

/** How a visit ended (undefined from `visit` when the scan was cancelled). */
export interface VisitEnd {
  /** Why the page could not finish, if it did not. */
  failure?: string;
  /** The browser crashed under the page (after the retry, when it crashed again). */
  crashed: boolean;
}

/** A timer that can be paused while the page waits for something that is not its own work. */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private endsAt: number;
  private left: number | undefined;
  constructor(
    ms: number,
    private readonly onExpired: () => void,
  ) {
    this.endsAt = Date.now() + ms;
    this.timer = setTimeout(onExpired, ms);
  }
  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.left = Math.max(0, this.endsAt - Date.now());
  }
  resume(): void {
    if (this.timer || this.left === undefined) return;
    this.endsAt = Date.now() + this.left;
    this.timer = setTimeout(this.onExpired, this.left);
    this.left = undefined;
  }
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.left = undefined;
  }
}

export class PageRunner {
  constructor(private readonly opts: PageRunnerOptions) {}

  /**
   * One page in a fresh context: `work` gets the page, is stopped at the timeout or on
   * cancellation (its context closed under it), and is run again from the start, once, in a new
   * browser when the browser crashed. A browser that cannot be started throws (the scan fails).
   */
  async visit(url: string, work: (page: Page, visit: Visit) => Promise<void>, attempt = 0): Promise<VisitEnd | undefined> {
    const { pool, lock, pauser, signal, logger, limitMs, limitReason } = this.opts;
    const contextOptions = await this.opts.contextOptions();
    const lease = await pool.acquire(); // BROWSER_UNAVAILABLE fails the scan
    let context: BrowserContext | undefined;
    let timedOut = false;
    // Playwright calls can hang when their context is closed under them (newPage does), so the
    // page's work is raced against this: cancellation and timeout end the visit at once.
    let stop: (err: Error) => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    const halt = new AbortController();
    const kill = () => {
      stop(new Error('stopped'));
      halt.abort(new Error('stopped'));
      void context?.close().catch(() => undefined);
    };
    const deadline = new Deadline(limitMs, () => {
      timedOut = true;
      kill();
    });
    signal.addEventListener('abort', kill, { once: true });
    const onCrash = () => stop(new Error('the browser process exited'));
    lease.browser.on('disconnected', onCrash);
    // Locks held by this page, given back when the visit ends even if its work is still hanging.
    const holds = new Set<LockHold>();
    let page: Page | undefined;
    const visit: Visit = {
      async withLock(exclusive, fn, background) {
        deadline.pause();
        let hold: LockHold;
        try {
          hold = await lock.acquire(exclusive, halt.signal);
        } finally {
          deadline.resume();
        }
        holds.add(hold);
        const resume = exclusive ? await pauser.pauseAllBut(page) : undefined;
        let running: Promise<unknown> | undefined;
        try {
          const result = await fn();
          running = background?.(result);
          return result;
        } finally {
          await resume?.();
          holds.delete(hold);
          if (!running) hold.release();
          else {
            const kept = hold.downgrade();
            holds.add(kept);
            const done = () => {
              holds.delete(kept);
              kept.release();
            };
            running.then(done, done);
          }
        }
      },
    };
    let failure: string | undefined;
    let crashed = false;
    try {
      if (signal.aborted) return undefined;
      context = await lease.browser.newContext(contextOptions);
      // Cancelled or timed out while the context was being created: nobody else will close it.
      if (signal.aborted || timedOut) throw new Error('stopped');
      const ctx = context;
      const running = (async () => {
        page = await ctx.newPage();
        pauser.add(page);
        await work(page, visit);
      })();
      running.catch(() => undefined);
      await Promise.race([running, stopped]);
    } catch (err) {
      crashed = !lease.browser.isConnected();
      failure = timedOut ? limitReason : (err as Error).message.split('\n')[0];
    } finally {
      deadline.clear();
      halt.abort(new Error('stopped'));
      for (const h of holds) h.release();
      if (page) pauser.remove(page);
      signal.removeEventListener('abort', kill);
      lease.browser.off('disconnected', onCrash);
      await Promise.race([context?.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
      lease.release();
    }
    if (signal.aborted) return undefined;
    if (failure !== undefined && crashed && attempt === 0) {
      logger.warn({ page: url }, 'browser crashed during the page; retrying it in a new browser');
      return this.visit(url, work, 1);
    }
    return { failure, crashed };
  }
}

/** Where the queue takes its pages from (the crawl frontier). */
export interface PageSource {
  next(): string | undefined;
  /** Pages accepted so far (progress is counted against it). */
  readonly accepted: number;
}

/** Visits pages with `concurrency` workers until the source is empty and no page is in flight. */
export class PageQueue {
  private inFlight = 0;
  private done = 0;
  private sleepers: Array<() => void> = [];

  constructor(
    private readonly source: PageSource,
    private readonly opts: { concurrency: number; signal: AbortSignal; progress(percent: number): void },
  ) {}

  /** Wakes idle workers: pages were added to the source. */
  wake(): void {
    const s = this.sleepers;
    this.sleepers = [];
    for (const f of s) f();
  }

  /** Runs `visit` on every page; the first error a visit throws stops the workers and is thrown. */
  async run(visit: (url: string) => Promise<void>): Promise<void> {
    const { signal } = this.opts;
    const onAbort = () => this.wake();
    signal.addEventListener('abort', onAbort, { once: true });
    let fatal: { error: unknown } | undefined;
    const worker = async () => {
      for (;;) {
        if (signal.aborted || fatal) return;
        const url = this.source.next();
        if (!url) {
          if (this.inFlight === 0) return;
          await new Promise<void>((r) => this.sleepers.push(r));
          continue;
        }
        this.inFlight++;
        try {
          await visit(url);
        } catch (error) {
          fatal ??= { error }; // e.g. the browser could not be started: the scan fails, other workers stop
        } finally {
          this.inFlight--;
          this.done++;
          this.opts.progress(Math.min(99, Math.round((this.done / Math.max(this.done, this.source.accepted)) * 100)));
          this.wake();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: this.opts.concurrency }, worker));
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (fatal) throw fatal.error;
  }
}
