/**
 * The agreement rule of issue 15 and the table printing: each metric within 10% or 100 ms of the
 * reference (CLS, which has no unit: within 10% or 0.01), each score within 5 points.
 */
import type { Figures } from './lighthouse-run.js';

export const METRICS: Array<{ key: keyof Figures; label: string }> = [
  { key: 'fcp', label: 'FCP' },
  { key: 'lcp', label: 'LCP' },
  { key: 'tbt', label: 'TBT' },
  { key: 'cls', label: 'CLS' },
  { key: 'si', label: 'SI' },
  { key: 'perf', label: 'perf' },
  { key: 'a11y', label: 'a11y' },
];

/** Whether `value` agrees with `reference`; undefined when either is missing (not counted). */
export function agrees(key: keyof Figures, value: number | null, reference: number | null): boolean | undefined {
  if (value === null || reference === null || !Number.isFinite(value) || !Number.isFinite(reference)) return undefined;
  const diff = Math.abs(value - reference);
  if (key === 'perf' || key === 'a11y') return diff <= 5;
  if (key === 'cls') return diff <= Math.max(0.1 * Math.abs(reference), 0.01);
  return diff <= Math.max(0.1 * Math.abs(reference), 100);
}

export const fmt = (key: keyof Figures, v: number | null) => (v === null ? '-' : key === 'cls' ? v.toFixed(3) : v.toFixed(0));

/** Counts agreements over the cells compared. */
export class Tally {
  agree = 0;
  total = 0;
  add(ok: boolean | undefined): string {
    if (ok === undefined) return '  ';
    this.total++;
    if (ok) this.agree++;
    return ok ? 'ok' : 'NO';
  }
  get line(): string {
    return `${this.agree} of ${this.total} metrics agree`;
  }
}

/** One cell: "reference/value ok" (e.g. Lighthouse/Vigil), padded; counted in `tally`. */
export function cell(key: keyof Figures, reference: number | null, value: number | null, tally: Tally, width = 17): string {
  const mark = tally.add(agrees(key, value, reference));
  return `${fmt(key, reference)}/${fmt(key, value)} ${mark}`.padStart(width);
}
