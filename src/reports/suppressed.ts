/**
 * The suppressed findings of a results body: the tasks the report model marked (`tasks[].suppressed`,
 * server-side suppressions), plus those a caller adds (the CLI's ignore file, judged by its gate). SARIF
 * and JUnit read this one list, so a finding is suppressed the same way in every format.
 */
import { findingFingerprint } from '../domain/fingerprint.js';
import type { SuppressedFinding } from './format.js';

type Json = Record<string, any>;

export function suppressedFindings(results: Json, extra: readonly SuppressedFinding[] = []): SuppressedFinding[] {
  const out = new Map<string, SuppressedFinding>();
  for (const t of Array.isArray(results.tasks) ? (results.tasks as Json[]) : []) {
    const mark = t?.suppressed;
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
