/**
 * The security section of a stored scan as readers get it (results body, exports): the engine's
 * SecurityOutcome with every list and count present, so a renderer never meets a hole (target_down,
 * identities and resources_left only when the engine reported them). Results
 * stored before the engine reported coverage, and functional scans, have none (null).
 */
import { NOT_RUN_CODES, type CheckCoverage, type NotRunCode, type OperationCoverage, type SecurityCheckInfo, type SecurityOutcome } from '../domain/scan.js';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const texts = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string');

function link(value: unknown): { id: string; url: string } {
  const v = isObject(value) ? value : {};
  return { id: text(v.id), url: text(v.url) };
}

function operation(value: Loose): OperationCoverage {
  const reached = isObject(value.reached_2xx) ? value.reached_2xx : {};
  return {
    endpoint: text(value.endpoint),
    statuses: list(value.statuses).filter((s): s is number => typeof s === 'number' && Number.isInteger(s)),
    reached_2xx: {
      primary: reached.primary === true,
      secondary: typeof reached.secondary === 'boolean' ? reached.secondary : null,
      anonymous: reached.anonymous === true,
    },
    requests: count(value.requests),
    ...(typeof value.skipped === 'string' ? { skipped: value.skipped } : {}),
    ...(value.invented_values === true ? { invented_values: true } : {}),
  };
}

function checkCoverage(value: Loose): CheckCoverage {
  return {
    check: text(value.check),
    title: text(value.title),
    ran: count(value.ran),
    not_run: list(value.not_run)
      .filter(isObject)
      .map((n) => ({
        reason: text(n.reason),
        // Absent in results stored before the engine set codes (not-tested.ts classifies those by their text).
        ...((NOT_RUN_CODES as readonly unknown[]).includes(n.reason_code) ? { reason_code: n.reason_code as NotRunCode } : {}),
        count: count(n.count),
        endpoints: texts(n.endpoints),
      })),
  };
}

function checkInfo(value: Loose): SecurityCheckInfo {
  return {
    id: text(value.id),
    title: text(value.title),
    description: text(value.description),
    risk: text(value.risk),
    remediation: text(value.remediation),
    owasp: link(value.owasp),
    cwe: link(value.cwe),
    references: list(value.references)
      .filter(isObject)
      .map((r) => ({ title: text(r.title), url: text(r.url) })),
  };
}

type Coverage = SecurityOutcome['coverage'];

/** When the target went down for good (absent when it did not). */
function targetDown(value: unknown): Pick<SecurityOutcome, 'target_down'> {
  if (!isObject(value) || typeof value.at !== 'string') return {};
  return {
    target_down: {
      at: value.at,
      check: text(value.check),
      ...(typeof value.endpoint === 'string' ? { endpoint: value.endpoint } : {}),
      waited_seconds: count(value.waited_seconds),
    },
  };
}

/** Each identity's verification, loss and logins (absent when the scan had no identity). */
function identities(value: unknown): Pick<Coverage, 'identities'> {
  if (!Array.isArray(value)) return {};
  const optionalText = (v: Loose, key: 'verified_on' | 'unverified' | 'lost_at' | 'lost_reason') =>
    typeof v[key] === 'string' ? { [key]: v[key] as string } : {};
  const optionalCount = (v: Loose, key: 'logins' | 'refreshes') => (typeof v[key] === 'number' ? { [key]: count(v[key]) } : {});
  return {
    identities: value.filter(isObject).map((v) => ({
      identity: text(v.identity),
      verified: v.verified === true,
      ...optionalText(v, 'verified_on'),
      ...optionalText(v, 'unverified'),
      ...optionalText(v, 'lost_at'),
      ...optionalText(v, 'lost_reason'),
      ...optionalCount(v, 'logins'),
      ...optionalCount(v, 'refreshes'),
    })),
  };
}

/** What the scan created and could not delete (absent when it deleted everything). */
function resourcesLeft(value: unknown): Pick<Coverage, 'resources_left'> {
  if (!Array.isArray(value)) return {};
  return {
    resources_left: value.filter(isObject).map((v) => ({
      created_by: text(v.created_by),
      identity: text(v.identity),
      ...(typeof v.id === 'string' ? { id: v.id } : {}),
      ...(typeof v.path === 'string' ? { path: v.path } : {}),
    })),
  };
}

/** The stored `security` value, completed; null when there is none. */
export function securitySection(stored: unknown): SecurityOutcome | null {
  if (!isObject(stored)) return null;
  const coverage = isObject(stored.coverage) ? stored.coverage : {};
  const operations = list(coverage.operations).filter(isObject).map(operation);
  return {
    warnings: texts(stored.warnings),
    ...targetDown(stored.target_down),
    coverage: {
      operations,
      checks: list(coverage.checks).filter(isObject).map(checkCoverage),
      operations_2xx:
        typeof coverage.operations_2xx === 'number'
          ? count(coverage.operations_2xx)
          : operations.filter((o) => o.reached_2xx.primary || o.reached_2xx.secondary || o.reached_2xx.anonymous).length,
      operations_total: typeof coverage.operations_total === 'number' ? count(coverage.operations_total) : operations.length,
      resources_created: count(coverage.resources_created),
      resources_deleted: count(coverage.resources_deleted),
      ...resourcesLeft(coverage.resources_left),
      ...identities(coverage.identities),
    },
    checks: list(stored.checks).filter(isObject).map(checkInfo),
  };
}
