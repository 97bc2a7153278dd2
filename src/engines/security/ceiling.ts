/**
 * The per-scan ceiling on the time a security scan spends on its target (VIGIL_SCAN_MAX_SECONDS): a
 * tarpit that answers every request slowly, but within the per-request timeout, would otherwise hold a
 * worker slot for as long as the spec has requests. Once the ceiling is reached no request is sent
 * (each is withheld with the reason), a request in flight is cut at the ceiling, and every check not
 * finished by then is not tested with the reason; the scan ends with what it measured.
 */
import type { NotRunReason } from '../../domain/scan.js';

export class ScanCeiling {
  private readonly deadline: number;
  /** When the ceiling was reached (ISO time), once a request or a check ran into it. */
  reachedAt?: string;

  constructor(
    readonly seconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.deadline = this.now() + seconds * 1000;
  }

  /** Milliseconds left before the ceiling (0 once reached). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.now());
  }

  /** True once the ceiling is reached (and records when, the first time). */
  reached(): boolean {
    if (this.reachedAt) return true;
    if (this.now() < this.deadline) return false;
    this.reachedAt = new Date(this.deadline).toISOString();
    return true;
  }

  /** The not-tested reason of everything the ceiling stopped (and of a withheld request). */
  get reason(): NotRunReason {
    return {
      code: 'time_ceiling',
      text: `the target was too slow: the scan reached its ceiling of ${formatSeconds(this.seconds)} spent on the target (VIGIL_SCAN_MAX_SECONDS) before this was tested`,
    };
  }
}

function formatSeconds(seconds: number): string {
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} s`;
}
