/**
 * Open pages whose scripts are paused while another page's metric load holds the CPU lock. The
 * lock keeps other pages' gatherers (load, axe, screenshot) out of a metric load, but an open page
 * waiting for its next turn still runs its own timers and animations (a carousel, a polling app);
 * with the JavaScript debugger paused in it, its renderer's main thread does nothing until resumed.
 */
import type { CDPSession, Page } from 'playwright-core';

/** A page that does not answer within this is left alone (a renderer that hangs must not stall the measured page). */
const ANSWER_MS = 1000;

/** `send`, or undefined after ANSWER_MS or on an error. */
function within<T>(send: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ANSWER_MS);
  });
  return Promise.race([send.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

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
   * next one); the returned function resumes them.
   */
  async pauseAllBut(except: Page | undefined): Promise<() => Promise<void>> {
    const paused: CDPSession[] = [];
    await Promise.all(
      [...this.sessions].map(async ([page, session]) => {
        if (page === except) return;
        const cdp = await within(session);
        if (!cdp) return;
        // Pages closing meanwhile do not answer: skipped.
        if ((await within(cdp.send('Debugger.enable'))) === undefined) return;
        paused.push(cdp);
        await within(cdp.send('Debugger.pause'));
      }),
    );
    return async () => {
      await Promise.all(
        paused.map(async (cdp) => {
          // Not paused when no script ran meanwhile: disabling the debugger drops the pending pause.
          await within(cdp.send('Debugger.resume'));
          await within(cdp.send('Debugger.disable'));
        }),
      );
    };
  }
}
