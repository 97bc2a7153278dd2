/**
 * What a security scan did not test, and why, derived from its security section (coverage, target_down,
 * identities) so that every reader leads with it: the results body (`not_tested`), the HTML report's
 * "Not tested" section, SARIF notifications, JUnit properties and system-out, and the dashboard.
 * Nothing here is measured anew: every number and reason is the engine's coverage, grouped.
 *
 * - Operations: of those tested (not skipped), the ones that never answered 2xx to any identity,
 *   grouped by what they answered (never authorised, 5xx only, no answer, other errors), and the
 *   operations skipped whole (excluded, safe mode).
 * - Checks: per check and operation where a check did not run (coverage `not_run`), grouped by
 *   reason; reasons that mean the check does not apply there (no body, public by design...) are only
 *   counted, as in JUnit, where they are no testcase either.
 * - Causes: the scan-level events behind most of it: the target went down, an identity was lost or
 *   refused before discovery.
 */
import type { SecurityOutcome } from '../domain/scan.js';

/**
 * Reasons a check did not run on an operation because it does not apply there (the operation has no
 * body, no object id, is public by design...). Reasons that something could have been tested and was not
 * (excluded, safe mode, no second identity, no JWT seen...) are not tested.
 */
const NOT_APPLICABLE = [
  /^not applicable$/,
  /^nothing to test$/,
  /^not an? /,
  /^no (json or form body|object id in the path|username, email or phone field)/i,
  /^public by design/,
  /^privileged operation \(judged by /,
  // The operation's shape offers nothing to the check: "no string parameter or body field", "no redirect-like parameter"...
  /^no [^:]*\b(parameter|field|body)\b/i,
  /^declares no security$/,
  /^the spec declares no response$/,
  /^a login$/,
  /^HTTPS is not expected /,
  /^https target on a non-default port /,
];
export const notApplicable = (reason: string): boolean => NOT_APPLICABLE.some((r) => r.test(reason));

/** Operations that share a reason. */
export interface NotTestedOperations {
  reason: string;
  count: number;
  endpoints: string[];
}

/** Checks not tested for one reason, per check: on how many operations (1 for a check of the whole target), and which. */
export interface NotTestedChecks {
  reason: string;
  count: number;
  checks: { check: string; title: string; count: number; endpoints: string[] }[];
}

export interface NotTestedCause {
  kind: 'target_down' | 'identity_lost' | 'identity_refused';
  /** When it happened (ISO 8601), when the coverage says. */
  at: string | null;
  text: string;
}

export interface NotTestedSummary {
  /** True when every operation answered 2xx and every check that applies ran: readers then show nothing. */
  everything_tested: boolean;
  /** One sentence in numbers, e.g. "12 of 40 operations never answered 2xx to any identity; 85 of 310 check runs were not tested." */
  headline: string;
  causes: NotTestedCause[];
  operations: { total: number; reached: number; never_reached: number; skipped: number; reasons: NotTestedOperations[] };
  /** A check run is one check on one operation (or once for a check of the whole target). */
  checks: { runs: number; not_tested: number; not_applicable: number; reasons: NotTestedChecks[] };
}

const IDENTITY_NAME: Record<string, string> = { primary: 'The first identity (auth)', secondary: 'The second identity (auth.secondary)' };
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Why an operation that was tested never answered 2xx, from the statuses it did answer. */
function unreachedReason(statuses: readonly number[], requests: number): string {
  if (requests === 0 || statuses.length === 0) return 'no request was sent to it';
  const answered = statuses.filter((s) => s !== 0);
  if (answered.length === 0) return 'no answer: every request timed out or the connection failed';
  if (answered.every((s) => s === 401 || s === 403)) return 'never authorised: answered only 401/403';
  if (answered.every((s) => s >= 500)) return `answered only 5xx (${answered.join(', ')})`;
  return `never answered 2xx (answers: ${statuses.map((s) => (s === 0 ? 'no answer' : String(s))).join(', ')})`;
}

function grouped<T>(items: Iterable<[string, T]>): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const [key, item] of items) groups.set(key, [...(groups.get(key) ?? []), item]);
  return groups;
}

function causes(security: SecurityOutcome): NotTestedCause[] {
  const out: NotTestedCause[] = [];
  const down = security.target_down;
  if (down) {
    out.push({
      kind: 'target_down',
      at: down.at,
      text: `The target stopped answering at ${down.at}, after the ${down.check} check's probe${down.endpoint ? ` on ${down.endpoint}` : ''}, and did not answer again within ${down.waited_seconds} s: the scan stopped there and nothing after it was tested.`,
    });
  }
  for (const identity of security.coverage.identities ?? []) {
    const who = IDENTITY_NAME[identity.identity] ?? `The identity ${identity.identity}`;
    if (identity.lost_at) {
      out.push({ kind: 'identity_lost', at: identity.lost_at, text: `${who} was lost at ${identity.lost_at}${identity.lost_reason ? ` (${identity.lost_reason})` : ''}: nothing was sent as it after that, and what needed it was not tested.` });
    } else if (!identity.verified && identity.unverified?.startsWith('refused')) {
      // The engine's own rule for its warning: refused where authentication is needed, not merely unverifiable.
      out.push({ kind: 'identity_refused', at: null, text: `${who} could not be verified before discovery: ${identity.unverified}.` });
    }
  }
  return out;
}

/** What the scan did not test; null without a security section (functional scans, scans stored before coverage). */
export function notTestedSummary(report: { security: SecurityOutcome | null | undefined }): NotTestedSummary | null {
  const security = report.security;
  if (!security) return null;
  const { coverage } = security;

  const unreached = coverage.operations.filter((o) => !o.skipped && !o.reached_2xx.primary && !o.reached_2xx.secondary && !o.reached_2xx.anonymous);
  const skipped = coverage.operations.filter((o) => o.skipped);
  const operationGroups = (entries: Map<string, string[]>) => [...entries].map(([reason, endpoints]) => ({ reason, count: endpoints.length, endpoints })).sort((a, b) => b.count - a.count);
  const operationReasons = [
    ...operationGroups(grouped(unreached.map((o) => [unreachedReason(o.statuses, o.requests), o.endpoint]))),
    ...operationGroups(grouped(skipped.map((o) => [`skipped: ${o.skipped}`, o.endpoint]))),
  ];
  const total = coverage.operations_total;
  const reached = Math.min(coverage.operations_2xx, total);

  let ran = 0;
  let notApplicableRuns = 0;
  const byReason = new Map<string, NotTestedChecks['checks']>();
  for (const c of coverage.checks) {
    ran += c.ran;
    for (const n of c.not_run) {
      if (notApplicable(n.reason)) {
        notApplicableRuns += n.count;
        continue;
      }
      byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), { check: c.check, title: c.title || c.check, count: n.count, endpoints: n.endpoints }]);
    }
  }
  const checkReasons = [...byReason]
    .map(([reason, checks]) => ({ reason, count: checks.reduce((sum, c) => sum + c.count, 0), checks: checks.sort((a, b) => b.count - a.count) }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const notTested = checkReasons.reduce((sum, r) => sum + r.count, 0);
  const runs = ran + notTested;

  const found = causes(security);
  const neverReached = total - reached;
  const everything = neverReached === 0 && skipped.length === 0 && notTested === 0 && found.length === 0;
  const parts = [
    neverReached > 0 ? `${neverReached} of ${count(total, 'operation')} never answered 2xx to any identity` : '',
    skipped.length > 0 ? `${count(skipped.length, 'operation was', 'operations were')} skipped` : '',
    notTested > 0 ? `${notTested} of ${count(runs, 'check run')} ${notTested === 1 ? 'was' : 'were'} not tested` : '',
  ].filter(Boolean);
  const headline = everything
    ? `Everything was tested: all ${count(total, 'operation')} answered 2xx and every check that applies ran.`
    : parts.length
      ? `${parts.join('; ')}.`.replace(/^./, (c) => c.toUpperCase())
      : 'Part of the scan was not tested (see the causes).';

  return {
    everything_tested: everything,
    headline,
    causes: found,
    operations: { total, reached, never_reached: neverReached, skipped: skipped.length, reasons: operationReasons },
    checks: { runs, not_tested: notTested, not_applicable: notApplicableRuns, reasons: checkReasons },
  };
}

/** At most `limit` items, then "and N more". */
function some(items: readonly string[], limit = 10): string {
  return items.length <= limit ? items.join(', ') : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

/**
 * The summary as lines of text, headline first, then the causes, the operations and the checks by
 * reason: the same lines in SARIF notifications and JUnit's system-out. Empty when everything was tested.
 */
export function notTestedLines(summary: NotTestedSummary | null): string[] {
  if (!summary || summary.everything_tested) return [];
  return [
    `Not tested: ${summary.headline}`,
    ...summary.causes.map((c) => c.text),
    ...summary.operations.reasons.map((r) => `${count(r.count, 'operation')}: ${r.reason}: ${some(r.endpoints)}`),
    ...summary.checks.reasons.map((r) => `${count(r.count, 'check run')} not tested: ${r.reason} (${some(r.checks.map((c) => `${c.check} ${c.count}`))})`),
  ];
}
