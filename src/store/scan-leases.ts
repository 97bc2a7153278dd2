import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { sqliteFileIn, type StoreOptions } from './database.js';
import { SCAN_LEASE_THREAD_SOURCE } from './scan-lease-thread.js';

/** Why a lease was lost: another party changed the scan (cancel, reaper, another worker), or it went unrenewed past its end. */
export type LeaseLoss = 'taken' | 'expired';

/** A running scan's lease, renewed by the heartbeat thread until released. */
export interface HeldLease {
  /**
   * Whether the lease is still this worker's, checked before a write of the run's state or results:
   * answered at once while the thread's last renewal has a third of the lease or more to run, else by
   * renewing it now. False once it was lost.
   */
  confirm(): Promise<boolean>;
  /**
   * The run is writing its final state: renewals go on until `release`, but a loss found from now on is
   * not reported to `onLost` (the final write changes the scan's status, which the next renewal would
   * take for a loss; and the write is guarded by the lease itself).
   */
  finishing(): void;
  /** Stops renewing it (the run ended, or put the scan back in the queue). */
  release(): void;
}

export interface ScanLeasesOptions {
  store: StoreOptions;
  workerId: string;
  leaseSeconds: number;
  /** The application clock lease times are written in (the reaper compares them with it). */
  clock?: () => Date;
  logger: Logger;
}

type FromThread =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { type: 'answer'; ask: number; held: boolean }
  | { type: 'lost'; scanId: string; why: LeaseLoss };

interface Holding {
  state: BigInt64Array;
  onLost: (why: LeaseLoss) => void;
  /** The first renewal succeeded (before it, a loss is `hold`'s answer, not `onLost`'s). */
  confirmed: boolean;
  finishing: boolean;
}

/**
 * A worker's scan leases, renewed every third of the lease by a thread with its own database
 * connection (scan-lease-thread.ts), so that no amount of synchronous work on the event loop lets them
 * lapse. A lease the thread finds lost is reported to `hold`'s `onLost` and its shared state says so at
 * once; a thread that dies is started again with the leases it held.
 */
export class ScanLeases {
  private thread?: Worker;
  private readonly held = new Map<string, Holding>();
  private readonly asks = new Map<number, { scanId: string; resolve: (held: boolean) => void }>();
  private nextAsk = 0;
  private stopping = false;
  private clockSync?: NodeJS.Timeout;
  private readonly leaseMs: number;

  constructor(private readonly options: ScanLeasesOptions) {
    this.leaseMs = options.leaseSeconds * 1000;
  }

  /** Starts the thread; resolves once it can renew. */
  start(): Promise<void> {
    this.stopping = false;
    // An injected clock (tests) may move: the thread learns its offset with every message, and from this
    // timer between them. The real clock needs no sync, so production renewals never wait for the event loop.
    if (this.options.clock) {
      this.clockSync = setInterval(() => this.post({ type: 'clock' }), this.leaseMs / 3);
      this.clockSync.unref();
    }
    return this.spawn();
  }

  /**
   * Starts renewing the lease of a scan this worker just claimed, renewing it at once: resolves with
   * the lease, or undefined when the scan is no longer this worker's (it must not run). `claimedUntil`
   * is the lease the claim wrote (application clock): a first renewal that fails (the database away for
   * a moment) inside it keeps the scan, as any later renewal's failure would, instead of giving up a
   * lease nobody else can have yet and costing the scan an attempt when the reaper re-queues it.
   */
  async hold(scanId: string, claimedUntil: string | null, onLost: (why: LeaseLoss) => void): Promise<HeldLease | undefined> {
    const state = new BigInt64Array(new SharedArrayBuffer(16));
    const until = claimedUntil ? Date.parse(claimedUntil) - this.offsetMs() : NaN;
    if (Number.isFinite(until)) Atomics.store(state, 1, BigInt(Math.trunc(until)));
    const holding: Holding = { state, onLost, confirmed: false, finishing: false };
    this.held.set(scanId, holding);
    const release = () => {
      if (this.held.get(scanId) !== holding) return;
      this.held.delete(scanId);
      this.thread?.postMessage({ type: 'drop', scanId });
    };
    if (!(await this.ask({ type: 'hold', scanId, state: state.buffer }))) {
      release();
      return undefined;
    }
    holding.confirmed = true;
    return {
      confirm: async () => {
        if (Atomics.load(state, 0) === 1n || this.held.get(scanId) !== holding) return false;
        if (Number(Atomics.load(state, 1)) - Date.now() >= this.leaseMs / 3) return true;
        return this.ask({ type: 'renew', scanId });
      },
      finishing: () => {
        holding.finishing = true;
      },
      release,
    };
  }

  /** Stops the thread (after the worker's runs ended). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.clockSync);
    const thread = this.thread;
    this.thread = undefined;
    if (!thread) return;
    const exited = new Promise((resolve) => thread.once('exit', resolve));
    thread.postMessage({ type: 'stop' });
    const timer = setTimeout(() => void thread.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }

  private ask(message: { type: 'hold' | 'renew'; scanId: string; state?: ArrayBufferLike }): Promise<boolean> {
    const ask = this.nextAsk++;
    return new Promise<boolean>((resolve) => {
      if (!this.thread) return resolve(this.knownHeld(message.scanId));
      this.asks.set(ask, { scanId: message.scanId, resolve });
      this.post({ ...message, ask });
    });
  }

  /** What the shared state says without asking: not lost, and the last renewal's lease still runs. */
  private knownHeld(scanId: string): boolean {
    const holding = this.held.get(scanId);
    return Boolean(holding) && Atomics.load(holding!.state, 0) === 0n && Number(Atomics.load(holding!.state, 1)) > Date.now();
  }

  private post(message: Record<string, unknown>): void {
    this.thread?.postMessage({ ...message, offsetMs: this.offsetMs() });
  }

  private offsetMs(): number {
    return this.options.clock ? this.options.clock().getTime() - Date.now() : 0;
  }

  private spawn(): Promise<void> {
    const { store, workerId, logger } = this.options;
    const thread = new Worker(SCAN_LEASE_THREAD_SOURCE, {
      eval: true,
      workerData: {
        dialect: store.databaseUrl ? 'postgres' : 'sqlite',
        driverUrl: import.meta.resolve(store.databaseUrl ? 'pg' : 'better-sqlite3'),
        databaseUrl: store.databaseUrl,
        sqliteFile: sqliteFileIn(store.dataDir),
        workerId,
        leaseMs: this.leaseMs,
        intervalMs: Math.max(250, this.leaseMs / 3),
      },
    });
    // The worker's poll timer keeps a worker process alive, not this thread.
    thread.unref();
    this.thread = thread;
    let ready = false;
    return new Promise<void>((resolve, reject) => {
      thread.on('message', (m: FromThread) => {
        if (m.type === 'ready') {
          ready = true;
          return resolve();
        }
        if (m.type === 'failed') return reject(new Error(`the lease heartbeat thread could not open the database: ${m.error}`));
        if (m.type === 'answer') {
          const ask = this.asks.get(m.ask);
          this.asks.delete(m.ask);
          return ask?.resolve(m.held);
        }
        const holding = this.held.get(m.scanId);
        if (!holding?.confirmed || Atomics.load(holding.state, 0) !== 1n) return;
        this.held.delete(m.scanId);
        if (!holding.finishing) holding.onLost(m.why);
      });
      thread.on('error', (err) => logger.error({ err }, 'lease heartbeat thread failed'));
      thread.on('exit', (code) => {
        if (this.thread !== thread) return;
        this.thread = undefined;
        reject(new Error(`the lease heartbeat thread exited with code ${code} before it was ready`));
        if (this.stopping || !ready) return;
        logger.error({ code }, 'lease heartbeat thread exited; starting it again');
        void this.respawn();
      });
    });
  }

  /** A new thread takes over every lease held; questions the dead one left unanswered are answered by what is known. */
  private async respawn(): Promise<void> {
    for (const [ask, { scanId, resolve }] of this.asks) {
      this.asks.delete(ask);
      resolve(this.knownHeld(scanId));
    }
    try {
      await this.spawn();
    } catch (err) {
      this.options.logger.error({ err }, 'lease heartbeat thread could not start again');
      return;
    }
    for (const [scanId, { state }] of this.held) this.post({ type: 'hold', scanId, state: state.buffer, ask: -1 });
  }
}
