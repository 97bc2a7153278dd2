import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Redactor, scanCredentials } from '../domain/redaction.js';
import type { EngineOutcome, ScanInput, Task } from '../domain/scan.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { FinishedScan, StoredResults, StoredScan } from '../domain/stored-scan.js';
import { EngineFailure, type ArtifactStore, type BaselineStore, type Deployment, type ScanEngine } from '../engines/engine.js';
import type { EventBus } from '../events/bus.js';
import type { UsageUpdates } from '../events/usage-updates.js';
import type { UsageRepository } from '../store/usage.js';
import type { ScanQueue } from './scan-queue.js';

export type EngineKind = ScanEngine['kind'];
export type EngineRegistry = Partial<Record<EngineKind, ScanEngine>>;

export interface RunnerOptions {
  queue: ScanQueue;
  engines: EngineRegistry;
  bus: EventBus;
  usageUpdates: UsageUpdates;
  usage: UsageRepository;
  secretBox: SecretBox;
  artifacts: ArtifactStore;
  baselines: BaselineStore;
  logger: Logger;
  deployment: Deployment;
  concurrency: number;
  leaseSeconds: number;
  stallSeconds: number;
  /** How often an idle worker looks for queued scans it was not told about. */
  pollMs?: number;
  /** Called after this worker wrote a scan's final state (notifications, reports). Errors are logged, never change the scan. */
  onFinished?: (scan: FinishedScan) => Promise<void>;
  /** Masks a running scan's credentials in the logger's output (app/logger.ts logRedaction). */
  logRedaction?: { add(redactor: Redactor): () => void };
}

type StopReason = 'cancelled' | 'shutdown' | 'lost';

interface ActiveScan {
  controller: AbortController;
  reason?: StopReason;
  done: Promise<void>;
}

const ENGINES_FOR_MODE: Record<StoredScan['mode'], EngineKind[]> = {
  security: ['security'],
  functional: ['functional'],
  full: ['security', 'functional'],
};

/** The worker role: claims scans, runs their engines, keeps leases alive, reaps lost scans. */
export class ScanRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly active = new Map<string, ActiveScan>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: Array<() => void> = [];
  private stopping = false;
  private filling = false;
  private refill = false;

  constructor(private readonly options: RunnerOptions) {}

  get runningScans(): string[] {
    return [...this.active.keys()];
  }

  start(): void {
    const { bus, leaseSeconds } = this.options;
    this.unsubscribe.push(bus.subscribe('scan-queued', () => void this.fill()));
    this.unsubscribe.push(bus.subscribe('scan-cancelled', ({ scan_id }) => this.abort(scan_id, 'cancelled')));
    // The poll timer stays referenced: it is what keeps a worker-only process alive until stop().
    const poll = setInterval(() => void this.fill(), this.options.pollMs ?? 1000);
    this.timers.push(setInterval(() => void this.reap(), Math.max(1000, Math.min(5000, (leaseSeconds * 1000) / 2))));
    this.timers.push(setInterval(() => void this.options.usage.sweep().catch((err) => this.options.logger.warn({ err }, 'usage sweep failed')), 10 * 60 * 1000));
    for (const timer of this.timers) timer.unref();
    this.timers.push(poll);
    void this.reap();
    void this.options.usage.sweep().catch((err) => this.options.logger.warn({ err }, 'usage sweep failed'));
    void this.fill();
  }

  /**
   * Stops claiming, gives running scans `graceMs` to finish, then stops their engines and puts them back
   * in the queue for another worker.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const off of this.unsubscribe) off();
    const all = () => Promise.allSettled([...this.active.values()].map((a) => a.done));
    await Promise.race([all(), delay(graceMs)]);
    for (const id of this.active.keys()) this.abort(id, 'shutdown');
    await Promise.race([all(), delay(5000)]);
  }

  private abort(scanId: string, reason: StopReason): void {
    const entry = this.active.get(scanId);
    if (!entry || entry.controller.signal.aborted) return;
    entry.reason = reason;
    entry.controller.abort(new Error(`scan ${reason}`));
  }

  private async fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = true;
    try {
      do {
        this.refill = false;
        while (!this.stopping && this.active.size < this.options.concurrency) {
          const scan = await this.options.queue.claim(this.workerId, this.options.leaseSeconds);
          if (!scan) break;
          this.launch(scan);
        }
      } while (this.refill && !this.stopping);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'claiming a scan failed; retrying at the next poll');
    } finally {
      this.filling = false;
    }
  }

  private launch(scan: StoredScan): void {
    const controller = new AbortController();
    const entry: ActiveScan = { controller, done: Promise.resolve() };
    this.active.set(scan.id, entry);
    entry.done = this.execute(scan, entry)
      .catch((error) => this.options.logger.error({ err: error, scan_id: scan.id }, 'scan runner error'))
      .finally(() => {
        this.active.delete(scan.id);
        void this.fill();
      });
  }

  private async execute(scan: StoredScan, entry: ActiveScan): Promise<void> {
    const { queue, logger, leaseSeconds } = this.options;
    const log = logger.child({ scan_id: scan.id, tenant_id: scan.tenant_id, mode: scan.mode });
    const started = Date.now();
    const signal = entry.controller.signal;
    const heartbeat = setInterval(() => {
      queue
        .heartbeat(scan.id, this.workerId, leaseSeconds)
        .then((held) => {
          if (!held) this.abort(scan.id, 'lost');
        })
        .catch((err) => log.warn({ err }, 'lease renewal failed'));
    }, Math.max(250, (leaseSeconds * 1000) / 3));
    heartbeat.unref();

    const kinds = ENGINES_FOR_MODE[scan.mode];
    let lastWrite = 0;
    let lastPercent = -1;
    const reportProgress = (index: number, percent: number) => {
      const overall = ((index + Math.max(0, Math.min(100, percent)) / 100) / kinds.length) * 100;
      const now = Date.now();
      if (Math.floor(overall) === lastPercent || now - lastWrite < 500) return;
      lastWrite = now;
      lastPercent = Math.floor(overall);
      void queue.progress(scan.id, this.workerId, overall).catch((err) => log.warn({ err }, 'progress write failed'));
    };

    // Every credential of the scan, and those its engines learn (OAuth2 tokens), masked in
    // everything stored from here (results, failure reason) and in every log line meanwhile.
    const redactor = new Redactor();
    const unlog = this.options.logRedaction?.add(redactor);
    try {
      const input = this.inputOf(scan);
      for (const secret of scanCredentials(input.auth)) redactor.add(secret);
      const outcomes: Array<EngineOutcome & { kind: EngineKind }> = [];
      for (const [index, kind] of kinds.entries()) {
        const engine = this.options.engines[kind];
        if (!engine) throw new EngineFailure('ENGINE_UNAVAILABLE', `The ${kind} engine is not available on this worker, so the scan could not run`);
        const outcome = await abortable(
            engine.run({
              scanId: scan.id,
              tenantId: scan.tenant_id,
              input,
              signal,
              progress: (percent) => reportProgress(index, percent),
              deployment: this.options.deployment,
              artifacts: this.options.artifacts,
              baselines: this.options.baselines,
              logger: log,
              redactor,
            }),
            signal,
          );
        outcomes.push({ ...outcome, kind });
        if (signal.aborted) break;
      }
      if (signal.aborted) return await this.afterAbort(scan, entry);
      const merged = redactor.redactValue(mergeOutcomes(outcomes), { keys: false });
      const elapsed = round((Date.now() - started) / 1000);
      const failed = merged.tasks.filter((t) => t.status === 'failed').length;
      const results: StoredResults = { ...merged, elapsed_seconds: elapsed };
      const written = await queue.complete(scan.id, this.workerId, {
        passed: merged.tasks.length - failed,
        failed,
        total: merged.tasks.length,
        elapsedSeconds: elapsed,
        agentCount: merged.agent_count,
        results: JSON.stringify(results),
      });
      if (written) {
        log.info({ passed: merged.tasks.length - failed, failed, elapsed_seconds: elapsed }, 'scan completed');
        await this.options.usageUpdates.scanFinished(scan.tenant_id, scan.id, 'completed');
        await this.finished({ id: scan.id, tenant_id: scan.tenant_id, status: 'completed' });
      }
    } catch (error) {
      if (signal.aborted) return await this.afterAbort(scan, entry);
      const reason = redactor.redact(
        error instanceof EngineFailure ? error.reason : `The ${kinds.join(' and ')} engine stopped on an unexpected error; the scan could not finish`,
      );
      if (error instanceof EngineFailure) log.info({ code: error.code, reason }, 'scan failed');
      else log.error({ err: error }, 'engine crashed');
      if (await queue.fail(scan.id, this.workerId, reason, round((Date.now() - started) / 1000))) {
        await this.options.usageUpdates.scanFinished(scan.tenant_id, scan.id, 'failed');
        await this.finished({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' });
      }
    } finally {
      clearInterval(heartbeat);
      unlog?.();
    }
  }

  /** Cancelled or lost scans were finished by whoever took them; a shutdown puts the scan back in the queue. */
  private async afterAbort(scan: StoredScan, entry: ActiveScan): Promise<void> {
    if (entry.reason !== 'shutdown') return;
    if (await this.options.queue.release(scan.id, this.workerId)) {
      this.options.logger.info({ scan_id: scan.id }, 'scan re-queued at shutdown');
      await this.options.bus.publish('scan-queued', { scan_id: scan.id });
    }
  }

  private async finished(scan: FinishedScan): Promise<void> {
    try {
      await this.options.onFinished?.(scan);
    } catch (error) {
      this.options.logger.warn({ err: error, scan_id: scan.id }, 'after-scan hook failed');
    }
  }

  private inputOf(scan: StoredScan): ScanInput {
    const input: ScanInput = { ...scan.input };
    if (scan.secret) input.auth = JSON.parse(this.options.secretBox.open(scan.secret)) as ScanInput['auth'];
    return input;
  }

  private async reap(): Promise<void> {
    try {
      const { requeued, finished, unannounced } = await this.options.queue.reap(this.options.stallSeconds, this.options.leaseSeconds);
      for (const id of requeued) {
        this.options.logger.warn({ scan_id: id }, 'scan lease lapsed; re-queued');
        await this.options.bus.publish('scan-queued', { scan_id: id });
      }
      for (const scan of finished) {
        this.options.logger.warn({ scan_id: scan.id }, 'scan failed by the reaper');
        this.abort(scan.id, 'lost');
        await this.options.usageUpdates.scanFinished(scan.tenant_id, scan.id, scan.status);
        await this.finished(scan);
      }
      // Whoever finished these died before announcing them; the live socket drops a repeat.
      for (const scan of unannounced) {
        this.options.logger.warn({ scan_id: scan.id }, 'scan finish announced late');
        await this.options.usageUpdates.scanFinished(scan.tenant_id, scan.id, scan.status);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'reaping failed; retrying');
    }
  }
}

function mergeOutcomes(outcomes: Array<EngineOutcome & { kind: EngineKind }>): EngineOutcome {
  const tasks: Task[] = [];
  const seen = new Set<string>();
  for (const outcome of outcomes) {
    for (const task of outcome.tasks) {
      let id = task.task_id;
      for (let n = 2; seen.has(id); n += 1) id = `${task.task_id}-${n}`;
      seen.add(id);
      tasks.push({ ...task, task_id: id, kind: outcome.kind });
    }
  }
  const functional = outcomes.find((o) => o.functional)?.functional;
  const security = outcomes.find((o) => o.security)?.security;
  return { tasks, agent_count: Math.max(1, ...outcomes.map((o) => o.agent_count)), ...(functional ? { functional } : {}), ...(security ? { security } : {}) };
}

/** Settles with the work, or rejects as soon as the signal aborts, so an engine slow to stop cannot hold a slot. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
