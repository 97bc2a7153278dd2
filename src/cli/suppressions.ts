/**
 * Triage: findings a team has looked at and accepted, each with a reason and optionally an expiry.
 * From `.vigil/ignore.yml` (or `--ignore-file`), and `suppressions` in the config file.
 *
 *   suppressions:
 *     - check: bola                      # matchers: every one given must match
 *       operation: GET /users/{id}
 *       parameter: id
 *       reason: "Public profiles by design (SEC-142)"   # required
 *       until: 2026-12-31                # optional; from the next day the finding fails again
 *     - fingerprint: 3f2a9c0d41b7        # the fingerprint printed with each finding, or any prefix of
 *                                        # it of 8+ characters that no other finding of the scan shares
 *       reason: "False positive, see SEC-150"
 *     - check: a11y/color-contrast       # functional items: visual, a11y/<rule>, page-load, budget/<metric>
 *       page: /legacy/*
 *       reason: "Legacy pages, redesign in Q3"
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compileExclude } from '../domain/exclude.js';
import { operationKey } from '../domain/fingerprint.js';
import { MIN_FINGERPRINT_PREFIX } from '../domain/suppressions.js';
import { functionalFindingsOf } from '../reports/suppressed.js';
import { UsageError } from './usage-error.js';
import { isObject, listOf } from './unchecked.js';

export interface Suppression {
  fingerprint?: string;
  check?: string;
  operation?: string;
  parameter?: string;
  page?: string;
  reason: string;
  /** YYYY-MM-DD: the last day the suppression holds. */
  until?: string;
  /** Where it was read ("\.vigil/ignore.yml #2", or "server" for a server-side suppression). */
  source: string;
  /** Server-side suppressions (the results' `tasks[].suppressed`): who made it. */
  author?: string;
  /** `server`: made in the dashboard or the API, carried by the results; `file`: the ignore file or the config (default). */
  origin?: 'server' | 'file';
}

/** What a suppression is matched against (a gate item). */
export interface Suppressible {
  key: string;
  check: string;
  operation?: string;
  parameter?: string;
  page?: string;
}

const MATCHERS = ['fingerprint', 'check', 'operation', 'parameter', 'page'] as const;
/** A fingerprint in a suppression may be any prefix of the finding's of at least this many characters (the CLI prints 12). */
export { MIN_FINGERPRINT_PREFIX } from '../domain/suppressions.js';
const FIELDS = new Set<string>([...MATCHERS, 'reason', 'until']);

/** Checks raw entries (from YAML or JSON); errors name the entry and the field. */
export function checkSuppressions(raw: unknown, source: string): Suppression[] {
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.suppressions) ? raw.suppressions : raw == null ? [] : undefined;
  if (!list) throw new UsageError(`${source}: expected a list of suppressions (or "suppressions:" with a list)`);
  return list.map((entry: unknown, i: number) => {
    const where = `${source} suppression #${i + 1}`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new UsageError(`${where}: expected an object`);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!FIELDS.has(k)) throw new UsageError(`${where}: unknown field "${k}" (${[...FIELDS].join(', ')})`);
    for (const k of Object.keys(e)) {
      if (k === 'until' && e.until instanceof Date) continue;
      if (typeof e[k] !== 'string' || !(e[k] as string).trim()) throw new UsageError(`${where}: "${k}" must be a non-empty string`);
    }
    if (!e.reason) throw new UsageError(`${where}: "reason" is required (why is this finding accepted?)`);
    if (!MATCHERS.some((k) => e[k] !== undefined)) throw new UsageError(`${where}: give at least one of ${MATCHERS.join(', ')}`);
    let until: string | undefined;
    if (e.until !== undefined) {
      until = e.until instanceof Date ? e.until.toISOString().slice(0, 10) : String(e.until);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(until) || Number.isNaN(Date.parse(until)))
        throw new UsageError(`${where}: "until" must be a date YYYY-MM-DD, got "${String(e.until)}"`);
    }
    if (typeof e.fingerprint === 'string' && !new RegExp(`^[0-9a-f]{${MIN_FINGERPRINT_PREFIX},}$`, 'i').test(e.fingerprint.trim())) {
      throw new UsageError(
        `${where}: "fingerprint" must be at least ${MIN_FINGERPRINT_PREFIX} hex characters of a finding's fingerprint (as printed), got "${e.fingerprint}"`,
      );
    }
    const s: Suppression = { reason: String(e.reason), source: `${source} #${i + 1}` };
    for (const k of MATCHERS) if (typeof e[k] === 'string') s[k] = (e[k] as string).trim();
    if (until) s.until = until;
    return s;
  });
}

/** `.vigil/ignore.yml` (or .yaml / .json) in `cwd`, or the given file; none: []. */
export function loadSuppressionFile(cwd: string, file?: string): Suppression[] {
  const candidates = file ? [file] : ['.vigil/ignore.yml', '.vigil/ignore.yaml', '.vigil/ignore.json'].map((f) => join(cwd, f));
  for (const path of candidates) {
    if (!existsSync(path)) {
      if (file) throw new UsageError(`--ignore-file: "${file}" does not exist`);
      continue;
    }
    let raw: unknown;
    try {
      raw = parseYaml(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new UsageError(`${path}: ${(error as Error).message.split('\n')[0]}`);
    }
    return checkSuppressions(raw, file ?? path.slice(cwd.length + 1));
  }
  return [];
}

/**
 * The server-side suppressions a results body carries: the server's report model marks each finding an
 * active suppression covers (`tasks[].suppressed`, and the functional findings: `accessibility.violations[]`,
 * `visual_regression.comparisons[]`, `performance.metrics[].budgets[]`, each with its `fingerprint`), so
 * the gate counts them as the reports show them.
 */
export function serverSuppressions(results: Record<string, unknown>): Suppression[] {
  const out: Suppression[] = [];
  // A functional task is no gate item (its page's findings are, and carry their own marks).
  const tasks = listOf(results.tasks).filter((t) => isObject(t) && t.kind !== 'functional');
  for (const t of [...tasks, ...functionalFindingsOf(results)]) {
    const mark = isObject(t) ? t.suppressed : undefined;
    if (!isObject(t) || !isObject(mark) || mark.source === 'file' || typeof mark.reason !== 'string' || typeof t.fingerprint !== 'string') continue;
    out.push({
      fingerprint: t.fingerprint,
      reason: mark.reason,
      ...(typeof mark.expires_at === 'string' ? { until: mark.expires_at.slice(0, 10) } : {}),
      source: typeof mark.author === 'string' ? `server (${mark.author})` : 'server',
      ...(typeof mark.author === 'string' ? { author: mark.author } : {}),
      origin: 'server',
    });
  }
  return out;
}

export function matches(s: Suppression, item: Suppressible): boolean {
  if (s.fingerprint !== undefined && !item.key.startsWith(s.fingerprint.toLowerCase())) return false;
  if (s.check !== undefined && s.check !== item.check) return false;
  if (s.operation !== undefined && (!item.operation || operationKey(s.operation) !== operationKey(item.operation))) return false;
  if (s.parameter !== undefined && s.parameter !== item.parameter) return false;
  if (s.page !== undefined && (!item.page || !compileExclude([s.page])(item.page))) return false;
  return true;
}

/** True when the suppression no longer holds on `today` (YYYY-MM-DD, UTC). */
export const expired = (s: Suppression, today: string) => s.until !== undefined && s.until < today;
