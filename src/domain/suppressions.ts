/**
 * Server-side suppressions (triage made in the dashboard or the API): pure rules, no I/O. A suppression
 * names one finding by its full fingerprint (domain/fingerprint.ts), optionally only on one target, and
 * holds until it is removed or its `expires_at` passes. The report model (reports/model.ts) marks the
 * findings they cover, so every format and the CLI's gate see the same triage.
 */
import { findingFingerprint } from './fingerprint.js';
import type { Task } from './scan.js';

/** A fingerprint given to the API may be any unique prefix of at least this many characters (as the CLI's ignore file). */
export const MIN_FINGERPRINT_PREFIX = 8;
export const REASON_MAX_LENGTH = 500;

export interface StoredSuppression {
  id: string;
  tenant_id: string;
  /** The finding's full fingerprint (32 hex characters). */
  fingerprint: string;
  /** Only scans of this target URL; null: every target. */
  target: string | null;
  reason: string;
  /** Who made it, as the audit log names the actor (a member's email, an API key's prefix). */
  author: string;
  created_at: string;
  /** ISO timestamp after which it no longer applies; null: until removed. */
  expires_at: string | null;
}

/** How a finding carries its triage in every report (the results body's `tasks[].suppressed`). */
export interface SuppressionMark {
  reason: string;
  author: string | null;
  expires_at: string | null;
  source: 'server' | 'file';
}

/** A mark as one line of text: "reason, by author, until YYYY-MM-DD" (what text reports show). */
export function suppressionText(mark: SuppressionMark): string {
  return [mark.reason, mark.author && `by ${mark.author}`, mark.expires_at && `until ${mark.expires_at.slice(0, 10)}`].filter(Boolean).join(', ');
}

/** A suppression still applies at `now` (an expiry in the past ends it). */
export function suppressionActive(s: Pick<StoredSuppression, 'expires_at'>, now: Date): boolean {
  return s.expires_at === null || Date.parse(s.expires_at) > now.getTime();
}

/** Scheme and host in lower case, no trailing slash: `https://API.test/` and `https://api.test` are one target. */
export function targetKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url.trim().replace(/\/+$/, '');
  }
}

/** The suppressions that apply to a scan of `url` at `now`. */
export function applicableSuppressions<S extends Pick<StoredSuppression, 'target' | 'expires_at'>>(suppressions: readonly S[], url: string, now: Date): S[] {
  const key = targetKey(url);
  return suppressions.filter((s) => suppressionActive(s, now) && (s.target === null || targetKey(s.target) === key));
}

/** The fingerprint of a failed task (what a suppression names), or undefined for a task that found nothing. */
export function taskFingerprint(task: Task): string | undefined {
  if (task.status !== 'failed') return undefined;
  return findingFingerprint({
    name: task.name,
    check: task.check,
    endpoint: task.endpoint,
    parameter: task.parameter,
    ...(Array.isArray(task.endpoints) ? { endpoints: task.endpoints } : {}),
  });
}

/** The path and query of a page address (the page part of a functional finding's identity). */
export function pagePath(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * The fingerprint of a functional finding: `visual` (a visual diff), `a11y/<rule>` (an accessibility
 * violation), `budget/<metric>` (a performance budget) or `page-load`, on one page. The CLI prints it with
 * each such item and the server marks the same one in its results, so a suppression made in either place
 * names the same finding.
 */
export function functionalFingerprint(check: string, pageUrl: string): string {
  return findingFingerprint({ name: check, check, endpoint: `GET ${pagePath(pageUrl)}` });
}

/** The check of a performance budget breach on a page (`budget/lcp`), as the CLI's gate names it. */
export const budgetCheck = (metric: string) => `budget/${metric}`;

/**
 * The functional findings of stored functional results, each with its fingerprint: visual diffs,
 * accessibility violations and performance budget breaches (a budget line that did not pass, at either level).
 */
export function functionalFindingFingerprints(functional: {
  visual?: ReadonlyArray<{ page_url: string; diff_detected: boolean }>;
  accessibility?: { violations?: ReadonlyArray<{ rule: string; page_url: string }> };
  performance?: { pages?: ReadonlyArray<{ page_url: string; budgets?: ReadonlyArray<{ metric: string; passed: boolean }> }> };
}): string[] {
  return [
    ...(functional.visual ?? []).filter((p) => p.diff_detected).map((p) => functionalFingerprint('visual', p.page_url)),
    ...(functional.accessibility?.violations ?? []).map((v) => functionalFingerprint(`a11y/${v.rule}`, v.page_url)),
    ...(functional.performance?.pages ?? []).flatMap((p) =>
      (p.budgets ?? []).filter((b) => !b.passed).map((b) => functionalFingerprint(budgetCheck(b.metric), p.page_url)),
    ),
  ];
}

/**
 * One mark for a finding made of several suppressed ones (an accessibility task over its page's
 * violations): every distinct reason and author, and the earliest expiry (the mark lapses with the first).
 */
export function combinedMark(marks: readonly SuppressionMark[]): SuppressionMark {
  const distinct = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => v !== null))];
  const expiries = distinct(marks.map((m) => m.expires_at)).sort();
  const authors = distinct(marks.map((m) => m.author));
  return {
    reason: distinct(marks.map((m) => m.reason)).join('; '),
    author: authors.length ? authors.join(', ') : null,
    expires_at: expiries[0] ?? null,
    source: marks.every((m) => m.source === 'file') ? 'file' : 'server',
  };
}

export type PrefixResolution = { fingerprint: string } | { error: 'unknown' | 'ambiguous'; candidates: string[] };

/** The one fingerprint among `known` that starts with `prefix` (case-insensitive). */
export function resolveFingerprintPrefix(prefix: string, known: Iterable<string>): PrefixResolution {
  const p = prefix.toLowerCase();
  const candidates = [...new Set([...known].filter((k) => k.startsWith(p)))].sort();
  if (candidates.length === 1) return { fingerprint: candidates[0]! };
  return { error: candidates.length ? 'ambiguous' : 'unknown', candidates };
}
