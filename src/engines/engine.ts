import type { Logger } from 'pino';
import type { Redactor } from '../domain/redaction.js';
import type { EngineOutcome, ScanInput } from '../domain/scan.js';
import type { ArtifactStore, BaselineStore } from '../domain/artifacts.js';

/** The stores an engine writes screenshots and baselines to (their contract lives in domain/). */
export type { ArtifactStore, BaselineStore };

export type Deployment = 'self-hosted' | 'hosted';

/** What a running engine is doing: shown while the scan runs (GET /scan/{id}, the CLI's progress line). */
export interface ProgressDetail {
  phase?: string;
  findings?: number;
}

export interface EngineContext {
  scanId: string;
  tenantId: string;
  input: ScanInput;
  /** Aborted when the scan is cancelled, times out, or the worker shuts down. */
  signal: AbortSignal;
  /**
   * Report progress of this engine, 0-100, and optionally what it is doing (`phase`, e.g. `discovery`)
   * and how many failed tasks it has found so far (`findings`). Cheap to call often.
   */
  progress(percent: number, detail?: ProgressDetail): void;
  deployment: Deployment;
  artifacts: ArtifactStore;
  baselines: BaselineStore;
  logger: Logger;
  /**
   * The scan's credentials (input.auth) and any an engine learns while running (OAuth2 access
   * tokens: register them with `add`). The worker redacts the engine's outcome and failure reason
   * and its log lines with it.
   */
  redactor?: Redactor;
}

/** An engine runs one kind of testing. A `full` scan runs both engines and merges outcomes. */
export interface ScanEngine {
  readonly kind: 'security' | 'functional';
  run(ctx: EngineContext): Promise<EngineOutcome>;
}

/** Thrown by an engine for an expected failure; `reason` is shown to the user as the scan's failure reason. */
export class EngineFailure extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'EngineFailure';
  }
}

/**
 * The failure of a hosted scan whose target (or spec or token URL) resolves to a non-public address.
 * `subject` names it as the reason starts, e.g. "The target api.example.com".
 */
export function targetBlocked(subject: string): EngineFailure {
  return new EngineFailure('TARGET_BLOCKED', `${subject} resolves to a non-public address, which hosted scans may not reach.`);
}
