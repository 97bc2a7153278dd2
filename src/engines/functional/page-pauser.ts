/**
 * Open pages whose scripts are paused while another page's metric load holds the CPU lock. The
 * lock keeps other pages' gatherers (load, axe, screenshot) out of a metric load, but an open page
 * waiting for its next turn still runs its own timers and animations (a carousel, a polling app);
 * with the JavaScript debugger paused in it, its renderer's main thread does nothing until resumed.
 */
import type { CDPSession, Page } from 'playwright-core';

export class PagePauser {
  private readonly sessions = new Map<Page, Promise<CDPSession | undefined>>();

  /** Starts tracking an open page (until `remove`). */
  add(page: Page): void {
    const session = page
      .context()
      .newCDPSession(page)
      .catch(() => undefined);
    this.sessions.set(page, session);
  }

  remove(page: Page): void {
    this.sessions.delete(page);
  }

  /**
   * Pauses the scripts of every tracked page but `except` (a page that runs no script pauses at its
   * next one); the returned function resumes them. Pages closing meanwhile are skipped.
   */
  async pauseAllBut(except: Page | undefined): Promise<() => Promise<void>> {
    const paused: CDPSession[] = [];
    await Promise.all(
      [...this.sessions].map(async ([page, session]) => {
        if (page === except) return;
        const cdp = await session;
        if (!cdp) return;
        try {
          await cdp.send('Debugger.enable');
          await cdp.send('Debugger.pause');
          paused.push(cdp);
        } catch {
          /* the page is closing */
        }
      }),
    );
    return async () => {
      await Promise.all(
        paused.map(async (cdp) => {
          // Not paused when no script ran meanwhile: disabling the debugger drops the pending pause.
          await cdp.send('Debugger.resume').catch(() => undefined);
          await cdp.send('Debugger.disable').catch(() => undefined);
        }),
      );
    };
  }
}
