/**
 * The verdict rule (docs/security-checks.md, "Verdicts"): a check's `passed` stands only when its
 * requests reached the code it tests. Reached means one of the check's own requests to the
 * operation answered 2xx (or the check's documented evidence of execution, `executedBy`), or the
 * check's requests were refused by the operation's own defences (4xx) while the operation answered
 * 2xx to some identity during the scan. Everything else is `not_tested`, with the reason here.
 */
import type { NotRunReason } from '../../domain/scan.js';
import type { Operation } from './types.js';

/** One answer the check got from its operation (0: no answer). */
export interface Attempt {
  status: number;
  /** The scan did not send it (identities.ts, ceiling.ts): why. */
  withheld?: NotRunReason;
}

/** Reasons a check's `passed` turns into `not_tested`: stable codes and texts, grouped in the coverage. */
export const NOT_REACHED = {
  noAnswer: { code: 'no_answer', text: 'no answer: every attempt timed out or the connection failed' },
  serverError: { code: 'server_error', text: "every attempt answered 5xx: the check's requests never reached the code it tests" },
  neverAuthorised: { code: 'never_authorised', text: 'never authorised: every attempt answered 401/403 and no identity reached the operation' },
  invalid: (status: number): NotRunReason => ({ code: 'validation_refused', text: `every attempt answered ${status}: the body could not be made valid` }),
  notFound: { code: 'not_found', text: 'every attempt answered 404: no resource to test with was found' },
  otherErrors: (statuses: number[]): NotRunReason => ({
    code: 'not_reached',
    text: `no attempt answered 2xx (answers: ${statuses.join(', ')}) and no identity reached the operation`,
  }),
  nothingSent: { code: 'not_reached', text: 'no request reached the operation and no identity reached it during the scan' },
} as const satisfies Record<string, NotRunReason | ((...args: never[]) => NotRunReason)>;

export const ok2xx = (status: number) => status >= 200 && status < 300;

/**
 * True when the check's attempts reached the code it tests, else the reason they did not.
 * `opReached`: the operation answered 2xx to some identity during the scan (its coverage).
 */
export function reachedVerdict(all: Attempt[], opReached: boolean, executedBy?: (status: number) => boolean): true | NotRunReason {
  const attempts = all.filter((a) => a.withheld === undefined);
  // Nothing sent at all: the reason the scan withheld it.
  if (attempts.length === 0 && all.length > 0) return all[0]!.withheld!;
  const statuses = attempts.map((a) => a.status);
  if (statuses.some((s) => ok2xx(s) || (executedBy?.(s) ?? false))) return true;
  if (statuses.length > 0 && statuses.every((s) => s === 0)) return NOT_REACHED.noAnswer;
  // A 5xx is never a pass: the request failed before (or inside) the code under test, unproven either way.
  if (statuses.some((s) => s >= 500)) return NOT_REACHED.serverError;
  // Refusals by the operation's own validation or authorisation, where a valid request does get through: the defence answered.
  if (opReached) return true;
  if (statuses.length === 0) return NOT_REACHED.nothingSent;
  const answered = statuses.filter((s) => s !== 0);
  const distinct = [...new Set(answered)].sort((a, b) => a - b);
  if (distinct.every((s) => s === 401 || s === 403)) return NOT_REACHED.neverAuthorised;
  if (distinct.length === 1 && (distinct[0] === 400 || distinct[0] === 422)) return NOT_REACHED.invalid(distinct[0]!);
  if (distinct.length === 1 && distinct[0] === 404) return NOT_REACHED.notFound;
  return NOT_REACHED.otherErrors(distinct);
}

/** Operations that authenticate: a 401/403 to a login is its code answering (wrong credentials), not a refusal before it. */
export function loginExecuted(op: Operation | undefined, isAuth: (op: Operation) => boolean): ((status: number) => boolean) | undefined {
  return op && isAuth(op) ? (s) => s === 401 || s === 403 : undefined;
}

/** A 3xx the operation declares as its answer (a redirecting login, say) is its code answering. */
export function declaredRedirect(op: Operation, status: number): boolean {
  return status >= 300 && status < 400 && Object.hasOwn(op.responses, String(status));
}
