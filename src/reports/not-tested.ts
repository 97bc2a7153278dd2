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
import { NOT_RUN_CODES, type NotRunCode, type SecurityOutcome } from '../domain/scan.js';

/**
 * Each not-run code in words: the reason of a group whose entries do not share one text
 * (docs/security-checks.md, "What not tested means", lists the same).
 */
export const NOT_RUN_LABELS: Record<NotRunCode, string> = {
  not_applicable: 'does not apply: the operation offers nothing the check tests',
  excluded: 'excluded (options.exclude)',
  safe_mode: 'safe mode: destructive or global operations are not run',
  prerequisite_missing: 'what the check needs was not there (a second identity, a JWT, a resource of the first identity, an operation that reads it back...)',
  never_authorised: 'never authorised: answered only 401/403',
  validation_refused: 'every attempt was refused as invalid (400/422): the request could not be made valid',
  not_found: 'every attempt answered 404: no resource to test with was found',
  server_error: 'answered only 5xx: the requests never reached the code under test',
  no_answer: 'no answer: every request timed out or the connection failed',
  not_reached: 'never answered 2xx, and no identity reached the operation',
  inconclusive: 'the answers could not be judged (throttled, or they changed between identical requests)',
  target_down: 'the target stopped answering and did not recover',
  identity_lost: 'the identity it needed was lost (refused, or its login failed)',
  own_account: 'not sent: it would change or delete the account of an identity the user gave',
  time_ceiling: 'the scan reached its time ceiling on the target (VIGIL_SCAN_MAX_SECONDS) first',
  check_error: 'the check failed to run (an error in Vigil)',
};

/**
 * Results stored before the engine set `reason_code` carry only the text: the texts of that time that
 * meant "does not apply" (the operation has no body, no object id, is public by design...). Everything
 * else of that time is `unclassified`. Scans stored since are grouped by their code alone.
 */
const LEGACY_NOT_APPLICABLE = [
  /^not applicable$/,
  /^nothing to test$/,
  /^not an? /,
  /^no (json or form body|object id in the path|username, email or phone field)/i,
  /^public by design/,
  /^privileged operation \(judged by /,
  /^no [^:]*\b(parameter|field|body)\b/i,
  /^declares no security$/,
  /^the spec declares no response$/,
  /^a login$/,
  /^HTTPS is not expected /,
  /^https target on a non-default port /,
];

/** A not-run entry's code: the engine's, or for results stored before codes, `not_applicable` or `unclassified`. */
export function notRunCode(entry: { reason: string; reason_code?: string | null }): NotRunCode | 'unclassified' {
  if (entry.reason_code && (NOT_RUN_CODES as readonly string[]).includes(entry.reason_code)) return entry.reason_code as NotRunCode;
  return LEGACY_NOT_APPLICABLE.some((r) => r.test(entry.reason)) ? 'not_applicable' : 'unclassified';
}

/** Codes of operations that never answered 2xx, or were skipped whole. */
export type OperationNotTestedCode = 'not_reached' | 'no_answer' | 'never_authorised' | 'server_error' | 'excluded' | 'safe_mode';

/** Operations that share a reason code; `reason` is their shared text, or the code's label when their texts differ. */
export interface NotTestedOperations {
  reason_code: OperationNotTestedCode;
  reason: string;
  count: number;
  endpoints: string[];
}

/**
 * Check runs not tested for one reason code, per check and reason text: on how many operations (1 for a
 * check of the whole target), and which. `reason` is the texts' shared one, or the code's label.
 */
export interface NotTestedChecks {
  reason_code: NotRunCode | 'unclassified';
  reason: string;
  count: number;
  checks: { check: string; title: string; reason: string; count: number; endpoints: string[] }[];
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

/** Why an operation that was tested never answered 2xx, from the statuses it did answer (the engine's coverage). */
function unreachedReason(statuses: readonly number[], requests: number): [OperationNotTestedCode, string] {
  if (requests === 0 || statuses.length === 0) return ['not_reached', 'no request was sent to it'];
  const answered = statuses.filter((s) => s !== 0);
  if (answered.length === 0) return ['no_answer', 'no answer: every request timed out or the connection failed'];
  if (answered.every((s) => s === 401 || s === 403)) return ['never_authorised', 'never authorised: answered only 401/403'];
  if (answered.every((s) => s >= 500)) return ['server_error', `answered only 5xx (${answered.join(', ')})`];
  return ['not_reached', `never answered 2xx (answers: ${statuses.map((s) => (s === 0 ? 'no answer' : String(s))).join(', ')})`];
}

/** The reason of a group: the text its entries share, else the code's label. */
function groupReason(code: string, texts: readonly string[]): string {
  const distinct = [...new Set(texts)];
  return distinct.length === 1 ? distinct[0]! : (NOT_RUN_LABELS[code as NotRunCode] ?? 'not classified (results stored before reason codes)');
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
      out.push({
        kind: 'identity_lost',
        at: identity.lost_at,
        text: `${who} was lost at ${identity.lost_at}${identity.lost_reason ? ` (${identity.lost_reason})` : ''}: nothing was sent as it after that, and what needed it was not tested.`,
      });
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
  const operationGroups = (entries: { code: OperationNotTestedCode; text: string; endpoint: string }[]): NotTestedOperations[] => {
    const groups = new Map<OperationNotTestedCode, { texts: string[]; endpoints: string[] }>();
    for (const e of entries) {
      const g = groups.get(e.code) ?? { texts: [], endpoints: [] };
      g.texts.push(e.text);
      g.endpoints.push(e.endpoint);
      groups.set(e.code, g);
    }
    return [...groups]
      .map(([code, g]) => ({ reason_code: code, reason: groupReason(code, g.texts), count: g.endpoints.length, endpoints: g.endpoints }))
      .sort((a, b) => b.count - a.count);
  };
  const operationReasons = [
    ...operationGroups(
      unreached.map((o) => {
        const [code, text] = unreachedReason(o.statuses, o.requests);
        return { code, text, endpoint: o.endpoint };
      }),
    ),
    // The engine skips an operation whole for two reasons only: options.exclude ("excluded") and safe mode.
    ...operationGroups(
      skipped.map((o) => ({ code: o.skipped === 'excluded' ? 'excluded' : 'safe_mode', text: `skipped: ${o.skipped}`, endpoint: o.endpoint })),
    ),
  ];
  const total = coverage.operations_total;
  const reached = Math.min(coverage.operations_2xx, total);

  let ran = 0;
  let notApplicableRuns = 0;
  const byCode = new Map<NotTestedChecks['reason_code'], NotTestedChecks['checks']>();
  for (const c of coverage.checks) {
    ran += c.ran;
    for (const n of c.not_run) {
      const code = notRunCode(n);
      if (code === 'not_applicable') {
        notApplicableRuns += n.count;
        continue;
      }
      byCode.set(code, [...(byCode.get(code) ?? []), { check: c.check, title: c.title || c.check, reason: n.reason, count: n.count, endpoints: n.endpoints }]);
    }
  }
  const checkReasons: NotTestedChecks[] = [...byCode]
    .map(([code, checks]) => ({
      reason_code: code,
      reason: groupReason(
        code,
        checks.map((c) => c.reason),
      ),
      count: checks.reduce((sum, c) => sum + c.count, 0),
      checks: checks.sort((a, b) => b.count - a.count),
    }))
    .sort((a, b) => b.count - a.count || a.reason_code.localeCompare(b.reason_code));
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
export function some(items: readonly string[], limit = 10): string {
  return items.length <= limit ? items.join(', ') : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

/**
 * The summary as lines of text, headline first, then the causes, the operations and the checks by
 * reason code (in brackets): the same lines in SARIF notifications and JUnit's system-out. Empty when
 * everything was tested.
 */
export function notTestedLines(summary: NotTestedSummary | null): string[] {
  if (!summary || summary.everything_tested) return [];
  return [
    `Not tested: ${summary.headline}`,
    ...summary.causes.map((c) => c.text),
    ...summary.operations.reasons.map((r) => `${count(r.count, 'operation')} [${r.reason_code}]: ${r.reason}: ${some(r.endpoints)}`),
    ...summary.checks.reasons.map(
      (r) => `${count(r.count, 'check run')} not tested [${r.reason_code}]: ${r.reason} (${some(r.checks.map((c) => `${c.check} ${c.count}`))})`,
    ),
  ];
}
