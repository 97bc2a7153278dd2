/**
 * The security section of a stored scan as readers get it (results body, exports): the engine's
 * SecurityOutcome with every list and count present, so a renderer never meets a hole. Results
 * stored before the engine reported coverage, and functional scans, have none (null).
 */
import type { CheckCoverage, OperationCoverage, SecurityCheckInfo, SecurityOutcome } from '../domain/scan.js';

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
      .map((n) => ({ reason: text(n.reason), count: count(n.count), endpoints: texts(n.endpoints) })),
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

/** The stored `security` value, completed; null when there is none. */
export function securitySection(stored: unknown): SecurityOutcome | null {
  if (!isObject(stored)) return null;
  const coverage = isObject(stored.coverage) ? stored.coverage : {};
  const operations = list(coverage.operations).filter(isObject).map(operation);
  return {
    warnings: texts(stored.warnings),
    coverage: {
      operations,
      checks: list(coverage.checks).filter(isObject).map(checkCoverage),
      operations_2xx: typeof coverage.operations_2xx === 'number' ? count(coverage.operations_2xx) : operations.filter((o) => o.reached_2xx.primary || o.reached_2xx.secondary || o.reached_2xx.anonymous).length,
      operations_total: typeof coverage.operations_total === 'number' ? count(coverage.operations_total) : operations.length,
      resources_created: count(coverage.resources_created),
      resources_deleted: count(coverage.resources_deleted),
    },
    checks: list(stored.checks).filter(isObject).map(checkInfo),
  };
}
