/** The report's markup helpers: escaping, the `html` tagged template, and number, date and duration formats. */
import type { ScanReport } from '../../domain/results.js';
import type { AccessibilityViolation, Severity } from '../../domain/scan.js';

export const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escape text for HTML element content and quoted attribute values. C0 control characters other than
 * tab, LF and CR (and DEL) are not allowed in HTML text and become U+FFFD.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD');
}

/** Tagged template: interpolated values are escaped unless they are `Html` (already rendered). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Part = Html | string | number | null | undefined | false | readonly Part[];

export function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

// ---------------------------------------------------------------------------------------------------
// Formatting

export const SEVERITY_LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };
export const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
export const IMPACT_RANK: Record<AccessibilityViolation['impact'], number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };
export const MODE_LABEL: Record<ScanReport['mode'], string> = { security: 'Security', functional: 'Functional', full: 'Full (security and functional)' };

export function formatDate(iso: string | null): Html | string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h} h ${m} min ${s} s` : `${m} min ${s} s`;
}

export function formatNumber(value: number | null, digits = 0): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatMs(value: number): string {
  return Number.isFinite(value) ? `${formatNumber(value)} ms` : '—';
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}
