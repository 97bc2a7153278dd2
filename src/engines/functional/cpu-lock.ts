/**
 * The engine's CPU lock: a page's metric load holds it exclusively, so no other page's work (its
 * load, axe, screenshot, diff) competes with it for the CPU and the figures are those of one page
 * at a time; everything else holds it shared and overlaps freely. Granted first come, first served
 * (a shared request behind a waiting exclusive one waits for it), so neither kind starves.
 */
export interface LockHold {
  /** Gives the lock back; safe to call more than once. */
  release(): void;
  /**
   * Turns an exclusive hold into a shared one without letting go (no exclusive waiter gets in
   * between): this hold is released and the shared one returned. A shared hold returns itself.
   */
  downgrade(): LockHold;
}

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

export class CpuLock {
  private shared = 0;
  private exclusive = false;
  private readonly queue: Waiter[] = [];

  /** Waits for the lock (rejects with the signal's reason when it aborts first). */
  acquire(exclusive: boolean, signal?: AbortSignal): Promise<LockHold> {
    signal?.throwIfAborted();
    return new Promise<LockHold>((resolve, reject) => {
      const waiter: Waiter = {
        exclusive,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.hold(exclusive));
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        this.dispatch();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.dispatch();
    });
  }

  private hold(exclusive: boolean): LockHold {
    let held = true;
    const hold: LockHold = {
      release: () => {
        if (!held) return;
        held = false;
        if (exclusive) this.exclusive = false;
        else this.shared--;
        this.dispatch();
      },
      downgrade: () => {
        if (!exclusive || !held) return hold;
        held = false;
        this.exclusive = false;
        this.shared++;
        this.dispatch();
        return this.hold(false);
      },
    };
    return hold;
  }

  private dispatch(): void {
    while (this.queue.length) {
      const head = this.queue[0];
      if (this.exclusive) return;
      if (head.exclusive) {
        if (this.shared > 0) return;
        this.exclusive = true;
      } else this.shared++;
      this.queue.shift();
      head.grant();
    }
  }
}
