import type { Logger } from 'pino';
import { Redactor, scanCredentials } from '../domain/redaction.js';
import type { EngineOutcome, ScanInput, Task } from '../domain/scan.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { FinishedScan, StoredResults, StoredScan } from '../domain/stored-scan.js';
import { isDiskFull } from '../store/database.js';
import { EngineFailure, type ArtifactStore, type BaselineStore, type Deployment, type ProgressDetail, type ScanEngine } from '../engines/engine.js';
import type { ScanFinishedPublisher } from '../scans/finished.js';
import type { HeldLease } from '../store/scan-leases.js';
import type { ScanStates } from '../store/scan-states.js';

export type EngineKind = ScanEngine['kind'];
export type EngineRegistry = Partial<Record<EngineKind, ScanEngine>>;

export interface ExecutionOptions {
  states: ScanStates;
  engines: EngineRegistry;
  finished: ScanFinishedPublisher;
  secretBox: SecretBox;
  artifacts: ArtifactStore;
  baselines: BaselineStore;
  deployment: Deployment;
  logger: Logger;
  /** Masks a running scan's credentials in the logger's output (app/logger.ts logRedaction). */
  logRedaction?: { add(redactor: Redactor): () => void };
}

/**
 * How an execution ended: its final state written (completed, failed), lost (the final write found the scan
 * no longer this worker's: cancelled, reaped, taken by another worker), or stopped by its signal or a lost lease (aborted).
 */
export type ExecutionEnd = 'completed' | 'failed' | 'lost' | 'aborted';

const ENGINES_FOR_MODE: Record<StoredScan['mode'], EngineKind[]> = {
  security: ['security'],
  functional: ['functional'],
  full: ['security', 'functional'],
};

/** One scan's run: its engines in turn, progress, the merged and redacted outcome, the final state and its announcement. */
export class ScanExecution {
  constructor(private readonly options: ExecutionOptions) {}

  /**
   * Runs `scan`, claimed by `workerId` under `lease`. Every write is guarded by the lease: the final state
   * and the engines' artifacts and baselines are written only after `lease.confirm()`, and the scan's
   * row only while `workerId` holds it, so a run that lost the scan (cancelled, reaped, taken by another
   * worker) writes nothing and its results are discarded ('aborted'). Resolves 'aborted' as soon as
   * `signal` aborts, whatever the engine does.
   */
  async run(scan: StoredScan, workerId: string, signal: AbortSignal, lease: HeldLease): Promise<ExecutionEnd> {
    const { states, logger } = this.options;
    const log = logger.child({ scan_id: scan.id, tenant_id: scan.tenant_id, mode: scan.mode });
    let lost = false;
    const held = async () => {
      if (!lost && !signal.aborted && !(await lease.confirm())) {
        lost = true;
        log.warn('scan lease lost; the run stops and its results are discarded');
      }
      return !lost && !signal.aborted;
    };
    const { artifacts, baselines } = leaseGuarded(this.options.artifacts, this.options.baselines, held);
    const started = Date.now();
    const kinds = ENGINES_FOR_MODE[scan.mode];
    const progress = throttledProgress(kinds.length, (percent, detail) => {
      void states.progress(scan.id, workerId, percent, detail).catch((err) => log.warn({ err }, 'progress write failed'));
    });

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
            progress: (percent, detail) => progress(index, percent, detail),
            deployment: this.options.deployment,
            artifacts,
            baselines,
            logger: log,
            redactor,
          }),
          signal,
        );
        outcomes.push({ ...outcome, kind });
        if (signal.aborted) break;
      }
      if (!(await held())) return 'aborted';
      lease.finishing();
      const merged = redactor.redactValue(mergeOutcomes(outcomes), { keys: false });
      const elapsed = round((Date.now() - started) / 1000);
      const failed = merged.tasks.filter((t) => t.status === 'failed').length;
      const results: StoredResults = { ...merged, elapsed_seconds: elapsed };
      const written = await states.complete(scan.id, workerId, {
        passed: merged.tasks.length - failed,
        failed,
        total: merged.tasks.length,
        elapsedSeconds: elapsed,
        agentCount: merged.agent_count,
        results,
      });
      if (!written) {
        log.warn('scan lease lost before its final state was written; its results are discarded');
        return 'lost';
      }
      log.info({ passed: merged.tasks.length - failed, failed, elapsed_seconds: elapsed }, 'scan completed');
      await this.announce({ id: scan.id, tenant_id: scan.tenant_id, status: 'completed' }, log);
      return 'completed';
    } catch (error) {
      if (!(await held())) return 'aborted';
      lease.finishing();
      // Masked by token boundaries: a short client secret must not mangle (and so reveal itself in) the reason.
      const reason = redactor.redactTokens(
        error instanceof EngineFailure
          ? error.reason
          : isDiskFull(error)
            ? "The server's disk is full: the scan's results and images could not be written (the operator has to free space); retry the scan later"
            : `The ${kinds.join(' and ')} engine stopped on an unexpected error; the scan could not finish`,
      );
      if (error instanceof EngineFailure) log.info({ code: error.code, reason }, 'scan failed');
      else log.error({ err: error }, 'engine crashed');
      if (!(await states.fail(scan.id, workerId, reason, round((Date.now() - started) / 1000)))) {
        log.warn('scan lease lost before its final state was written; its failure is discarded');
        return 'lost';
      }
      await this.announce({ id: scan.id, tenant_id: scan.tenant_id, status: 'failed' }, log);
      return 'failed';
    } finally {
      unlog?.();
    }
  }

  /** The final state is written: an announcement that fails is left to the maintenance job, never read as the engine's failure. */
  private async announce(scan: FinishedScan, log: Logger): Promise<void> {
    try {
      await this.options.finished.publish(scan);
    } catch (error) {
      log.warn({ err: error }, 'announcing the finished scan failed; the maintenance job announces it late');
    }
  }

  private inputOf(scan: StoredScan): ScanInput {
    const input: ScanInput = { ...scan.input };
    if (scan.secret) input.auth = JSON.parse(this.options.secretBox.open(scan.secret)) as ScanInput['auth'];
    return input;
  }
}

/**
 * Overall progress of engine `index` of `engines` at `percent`, with the engine's detail (phase, findings so far):
 * written at most every 500 ms, and only when the whole percent or the phase moved (findings ride along with them;
 * for a full scan they add up over its engines).
 * A phase change that arrives within the 500 ms is kept and written with the next report after them.
 */
function throttledProgress(
  engines: number,
  write: (percent: number, detail: ProgressDetail) => void,
): (index: number, percent: number, detail?: ProgressDetail) => void {
  let lastWrite = 0;
  let lastPercent = -1;
  let lastPhase: string | undefined;
  let phase: string | undefined;
  // Failed tasks so far per engine: a full scan's count adds the functional engine's to the security engine's.
  const findingsOf: Array<number | undefined> = [];
  return (index, percent, detail) => {
    if (detail?.phase !== undefined) phase = detail.phase;
    if (detail?.findings !== undefined) findingsOf[index] = detail.findings;
    const known = findingsOf.filter((n): n is number => n !== undefined);
    const findings = known.length > 0 ? known.reduce((a, b) => a + b, 0) : undefined;
    const overall = ((index + Math.max(0, Math.min(100, percent)) / 100) / engines) * 100;
    const now = Date.now();
    if ((Math.floor(overall) === lastPercent && phase === lastPhase) || now - lastWrite < 500) return;
    lastWrite = now;
    lastPercent = Math.floor(overall);
    lastPhase = phase;
    write(overall, { ...(phase !== undefined ? { phase } : {}), ...(findings !== undefined ? { findings } : {}) });
  };
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

/** The run's stores, whose writes fail once its lease is lost: a run that lost its scan leaves no baseline or artifact behind. */
function leaseGuarded(
  artifacts: ArtifactStore,
  baselines: BaselineStore,
  held: () => Promise<boolean>,
): { artifacts: ArtifactStore; baselines: BaselineStore } {
  const guard = async () => {
    if (!(await held())) throw new Error('the scan lease was lost; nothing more is written');
  };
  return {
    artifacts: { put: async (...args) => (await guard(), artifacts.put(...args)), get: (...args) => artifacts.get(...args) },
    baselines: { get: (...args) => baselines.get(...args), set: async (...args) => (await guard(), baselines.set(...args)) },
  };
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

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
