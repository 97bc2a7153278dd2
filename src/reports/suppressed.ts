/**
 * The suppressed findings of a results body: what the report model marked (server-side suppressions) on
 * tasks (`tasks[].suppressed`) and on the functional findings (accessibility violations, visual diffs,
 * missed budgets, each with its `fingerprint`), plus those a caller adds (the CLI's ignore file, judged by
 * its gate). SARIF and JUnit read this one list, so a finding is suppressed the same way in every format.
 */
import { findingFingerprint } from '../domain/fingerprint.js';
import type { SuppressedFinding } from './format.js';

type Json = Record<string, any>;

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]).filter((x) => x && typeof x === 'object') : []);

/** The functional findings of a results body that carry a fingerprint (and may carry a mark). */
export function functionalFindingsOf(results: Json): Json[] {
  return [
    ...list(results.accessibility?.violations),
    ...list(results.visual_regression?.comparisons),
    ...list(results.performance?.metrics).flatMap((p) => list(p.budgets)),
  ].filter((f) => typeof f.fingerprint === 'string');
}

export function suppressedFindings(results: Json, extra: readonly SuppressedFinding[] = []): SuppressedFinding[] {
  const out = new Map<string, SuppressedFinding>();
  for (const t of [...list(results.tasks), ...functionalFindingsOf(results)]) {
    const mark = t.suppressed;
    if (!mark || typeof mark !== 'object' || typeof mark.reason !== 'string') continue;
    const key =
      typeof t.fingerprint === 'string'
        ? t.fingerprint
        : findingFingerprint({
            name: String(t.name ?? ''),
            check: t.check,
            endpoint: t.endpoint,
            parameter: t.parameter,
            ...(Array.isArray(t.endpoints) ? { endpoints: t.endpoints } : {}),
          });
    out.set(key, {
      key,
      reason: mark.reason,
      ...(typeof mark.expires_at === 'string' ? { until: mark.expires_at.slice(0, 10) } : {}),
      ...(typeof mark.author === 'string' ? { author: mark.author } : {}),
      source: mark.source === 'file' ? 'file' : 'server',
    });
  }
  for (const s of extra) if (!out.has(s.key)) out.set(s.key, s);
  return [...out.values()];
}
