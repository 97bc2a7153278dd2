import type { Channel } from '../../notifications/index.js';
import type { Budget } from '../budgets.js';
import type { VigilClient } from '../client.js';
import type { Patience } from '../follow.js';
import type { FailOn, FailOnA11y } from '../gate.js';
import type { Suppression } from '../suppressions.js';
import type { ReportFormat } from './report-formats.js';

/** Everything `vigil scan` and `vigil scans wait` share once the scan has an id: follow, judge, report, exit. */
export interface RunSettings {
  client: VigilClient;
  json: boolean;
  color: boolean;
  pollMs: number;
  patience: Patience;
  failOn: FailOn;
  failOnA11y: FailOnA11y;
  failOnVisual: boolean;
  /** --fail-on-coverage: least share (percent) of operations that answered 2xx, else the gate fails. */
  failOnCoverage?: number;
  budgets: Budget[];
  suppressions: Suppression[];
  baseline: { kind: 'new-only' } | { kind: 'scan'; id: string } | { kind: 'file'; path: string } | null;
  outputs: Array<{ path: string; format: ReportFormat }>;
  channels: Channel[];
  notifyTimeoutMs: number;
  specFile?: string;
  specLabel?: string | null;
  target?: string;
}
