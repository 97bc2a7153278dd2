/** A scan as the store keeps it: its input and results decoded, its target credentials still sealed. */
import type { ScanCi } from './ci.js';
import type { EngineOutcome, ScanInput, ScanMode, ScanStatus } from './scan.js';

/** The scan input without target credentials (those are sealed apart, in `secret`) and CI metadata (its own column, `ci`). */
export type StoredScanInput = Omit<ScanInput, 'auth' | 'ci'>;

/** What the worker stores as a finished scan's results (the API renders it). */
export interface StoredResults extends EngineOutcome {
  elapsed_seconds: number;
}

/** A scan that reached a final state: what the after-scan hooks (notifications, usage updates) are told. */
export interface FinishedScan {
  id: string;
  tenant_id: string;
  status: 'completed' | 'failed' | 'cancelled';
}

export interface StoredScan {
  id: string;
  tenant_id: string;
  mode: ScanMode;
  status: ScanStatus;
  url: string;
  spec_url: string | null;
  input: StoredScanInput;
  /** Target credentials, sealed (see secret-box); null once the scan ended. */
  secret: string | null;
  progress: number;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_progress_at: string | null;
  /** What a running scan is doing, as its engine last reported (e.g. `discovery`, `read`, `pages`); null when not reported. */
  phase?: string | null;
  /** Failed tasks found so far by a running scan, as its engine last reported; null when not reported. */
  findings_so_far?: number | null;
  failure_reason: string | null;
  passed: number | null;
  failed: number | null;
  total: number | null;
  elapsed_seconds: number | null;
  agent_count: number | null;
  /** Null until the scan completed (failed and cancelled scans have none). */
  results: StoredResults | null;
  /** The usage period the scan was counted in. */
  period_start: string;
  created_at: string;
  updated_at: string;
  /** When the scan last entered the queue (admitted, or put back after a shutdown or a lapsed lease); null for scans older than migration 015 that were never re-queued. */
  queued_at?: string | null;
  started_at: string | null;
  completed_at: string | null;
  announced_at: string | null;
  /** What a CI run scanned (migration 017); null or absent for scans started without it. */
  ci?: ScanCi | null;
}
