import type { Logger } from 'pino';
import type { Redactor } from '../domain/redaction.js';
import type { EngineOutcome, ScanInput } from '../domain/scan.js';

export type Deployment = 'self-hosted' | 'hosted';

/** Binary artifacts (screenshots, diff images) readable by every api instance. */
export interface ArtifactStore {
  put(tenantId: string, bytes: Buffer, contentType: string): Promise<string>;
  get(tenantId: string, artifactId: string): Promise<{ bytes: Buffer; contentType: string } | undefined>;
}

/** Visual baselines, keyed by tenant + page URL + viewport. Values are artifact ids. */
export interface BaselineStore {
  get(tenantId: string, pageUrl: string, viewport: string): Promise<string | undefined>;
  set(tenantId: string, pageUrl: string, viewport: string, artifactId: string): Promise<void>;
}

export interface EngineContext {
  scanId: string;
  tenantId: string;
  input: ScanInput;
  /** Aborted when the scan is cancelled, times out, or the worker shuts down. */
  signal: AbortSignal;
  /** Report progress of this engine, 0-100. Cheap to call often. */
  progress(percent: number): void;
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
