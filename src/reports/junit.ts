/**
 * JUnit XML from a scan's JSON results, in the shape Jenkins' junit-10.xsd, GitLab and GitHub test
 * reporters read (see docs/cli.md#junit):
 *
 * - One testcase per check and operation (and parameter): classname `vigil.security.<check>`, name
 *   "<check title>: METHOD /path [parameter]" (a task of the whole target: its own name), unique in its suite. Tasks of the same check, operation
 *   and parameter are one testcase (failed when one of them failed). A finding that is the same on
 *   every operation is one testcase whose failure lists every operation. Functional tasks are one
 *   testcase each ("Visual regression: /cart"), classname `vigil.functional.<audit>`.
 * - `time`: the tasks' own durations (`duration_ms`) where the results have them (functional tasks);
 *   security tasks carry no per-task timing, so their time is 0, never an invented share. The suites'
 *   time is the scan's elapsed time.
 * - A failure's message is "[severity] finding on METHOD /path (parameter p)"; its text the check,
 *   every affected operation, the evidence, the error and the check's remediation.
 * - What was not tested is `<skipped message="reason">`: each check's operations it did not run on
 *   (coverage `not_run`: "no second identity", "safe mode"...), and operations skipped whole. A check
 *   that does not apply to an operation (no body, no object id, public by design) is no testcase.
 * - With the gate's verdict (options.gate), findings below their threshold are not failures: the
 *   testcase passes and its system-out lists them.
 * - A scan that did not complete is an `<error>` testcase with its failure reason; warnings go to the
 *   suite's system-out.
 * - Suppressed findings (the results' marks, suppressed.ts, and options.suppressed, by the gate's fingerprint) are not
 *   failures: a testcase whose every failure is suppressed is skipped with "suppressed: <reason>". A functional
 *   task's failure is suppressed when every page finding it stands for is (functional-findings.ts).
 */
import { findingFingerprint, operationKey } from '../domain/fingerprint.js';
import { pageFindingsOfBody, taskFindingKeys, type PageFindings } from './functional-findings.js';
import { notRunCode, notTestedLines, notTestedSummary, type NotTestedSummary } from './not-tested.js';
import { securitySection } from './security-section.js';
import { suppressedFindings } from './suppressed.js';

/** A finding the gate did not count (suppressed): the gate item's key and why. */
export interface JunitSuppression {
  key: string;
  reason: string;
  until?: string;
}

/** A finding as the CI gate judged it: its key, kind and page (vigil scan passes its verdict). */
export interface GateRef {
  key: string;
  kind: string;
  page?: string;
  severity?: string;
}

export interface JunitOptions {
  /** Suppressed findings: a testcase whose every failure is suppressed is `<skipped message="suppressed: ...">`. */
  suppressed?: readonly JunitSuppression[];
  /**
   * The gate's verdict: findings found but below their threshold are not failures (their testcase passes
   * and says so in its system-out); without it every finding is a failure.
   */
  gate?: { failing: readonly GateRef[]; below: readonly GateRef[]; threshold?: string };
}

type Json = Record<string, any>;

export function xmlEscape(value: unknown): string {
  // Characters XML 1.0 forbids are dropped; the five specials are escaped.
  // eslint-disable-next-line no-control-regex
  return String(value ?? '')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Seconds with milliseconds, as junit-10.xsd's SUREFIRE_TIME pattern takes them ("2.875"). */
function seconds(ms: number): string {
  return (Math.max(0, Number.isFinite(ms) ? ms : 0) / 1000).toFixed(3);
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

interface Case {
  classname: string;
  name: string;
  timeMs: number;
  /** `keys`: the page findings a functional failure stands for (it is suppressed when every one is). */
  failures: { message: string; type: string; text: string; key?: string; keys?: string[]; kind?: string; page?: string }[];
  /** The testcase's system-out (findings below the gate). */
  notes?: string[];
  skipped?: string;
  error?: { message: string; text: string };
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'check'
  );
}

/** "Visual regression: /cart" -> "Visual regression"; "Accessibility (wcag2aa): /x" -> "Accessibility". */
function auditOf(name: string): string {
  const head = name.includes(': ') ? name.slice(0, name.indexOf(': ')) : name;
  return head.replace(/\s*\(.*\)\s*$/, '').trim() || 'functional';
}

function renderCase(c: Case): string {
  const head = `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}" time="${seconds(c.timeMs)}"`;
  const body = [
    ...c.failures.map((f) => `      <failure message="${xmlEscape(f.message)}" type="${xmlEscape(f.type)}">${xmlEscape(f.text)}</failure>`),
    ...(c.skipped !== undefined ? [`      <skipped message="${xmlEscape(c.skipped)}"/>`] : []),
    ...(c.error ? [`      <error message="${xmlEscape(c.error.message)}" type="scan">${xmlEscape(c.error.text)}</error>`] : []),
    ...(c.notes?.length ? [`      <system-out>${xmlEscape(c.notes.join('\n'))}</system-out>`] : []),
  ];
  return body.length ? `${head}>\n${body.join('\n')}\n    </testcase>` : `${head}/>`;
}

/** Names made unique within a suite: a second "X" becomes "X (2)". */
function uniqueNames(cases: Case[]): void {
  const seen = new Map<string, number>();
  for (const c of cases) {
    const key = `${c.classname}\u0000${c.name}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > 1) c.name = `${c.name} (${n})`;
  }
}

function securityCases(tasks: Json[], checks: Map<string, Json>, coverage: Json | undefined): Case[] {
  const groups = new Map<string, { check: string; operation: string; parameter: string; tasks: Json[] }>();
  for (const t of tasks) {
    const check = String(t.check || slug(auditOf(String(t.name ?? ''))));
    const endpoints: string[] = Array.isArray(t.endpoints) && t.endpoints.length > 1 ? t.endpoints.map(String) : [];
    const operation = endpoints.length > 1 ? `${endpoints.length} operations` : operationKey(t.endpoint ?? t.endpoints?.[0]);
    const parameter = t.parameter ? String(t.parameter) : '';
    // Tasks of the whole target with no operation are told apart by their name.
    const key = [check, operation, parameter, operation ? '' : String(t.name ?? '')].join('\u0000');
    const group = groups.get(key) ?? { check, operation, parameter, tasks: [] };
    group.tasks.push(t);
    groups.set(key, group);
  }
  const cases: Case[] = [];
  const tested = new Set<string>();
  for (const g of groups.values()) {
    const info = checks.get(g.check);
    const title = String(info?.title || g.check);
    tested.add(`${g.check}\u0000${g.operation}`);
    const failed = g.tasks.filter((t) => t.status === 'failed').sort((a, b) => (SEVERITY_RANK[a.severity] ?? 9) - (SEVERITY_RANK[b.severity] ?? 9));
    cases.push({
      classname: `vigil.security.${g.check}`,
      name: g.operation
        ? `${title}: ${g.operation}${g.parameter ? ` [${g.parameter}]` : ''}`
        : `${String(g.tasks[0].name ?? title)}${g.parameter ? ` [${g.parameter}]` : ''}`,
      timeMs: g.tasks.reduce((sum, t) => sum + (typeof t.duration_ms === 'number' ? t.duration_ms : 0), 0),
      failures: failed.map((t) => {
        const endpoints: string[] = Array.isArray(t.endpoints) && t.endpoints.length > 0 ? t.endpoints.map(String) : t.endpoint ? [String(t.endpoint)] : [];
        const where = endpoints.length > 1 ? ` on ${endpoints.length} operations` : endpoints[0] ? ` on ${endpoints[0]}` : '';
        const text = [
          `Finding: ${t.name}`,
          info?.title && `Check: ${info.title} (${g.check})`,
          endpoints.length > 1 ? `Endpoints (${endpoints.length}): ${endpoints.join(', ')}` : endpoints[0] && `Endpoint: ${endpoints[0]}`,
          t.parameter && `Parameter: ${t.parameter}`,
          t.severity && `Severity: ${t.severity}`,
          t.cwe && `CWE: ${t.cwe}`,
          t.owasp && `OWASP: ${t.owasp}`,
          t.invented_values && 'Tested with invented values only: no real resource was found',
          t.evidence && `Evidence:\n${t.evidence}`,
          t.error && `Error: ${t.error}`,
          info?.remediation && `Remediation: ${info.remediation}`,
        ]
          .filter(Boolean)
          .join('\n');
        const key = findingFingerprint({
          name: String(t.name ?? ''),
          check: t.check,
          endpoint: t.endpoint,
          parameter: t.parameter,
          ...(Array.isArray(t.endpoints) ? { endpoints: t.endpoints } : {}),
        });
        return {
          message: `${t.severity ? `[${t.severity}] ` : ''}${t.name}${where}${t.parameter ? ` (parameter ${t.parameter})` : ''}`,
          type: String(t.severity ?? 'failure'),
          text,
          key,
        };
      }),
    });
  }
  // What was not tested, and why.
  for (const c of (coverage?.checks as Json[] | undefined) ?? []) {
    const check = String(c?.check ?? '');
    if (!check) continue;
    const title = String(checks.get(check)?.title || c.title || check);
    for (const n of (c.not_run as Json[] | undefined) ?? []) {
      if (notRunCode({ reason: String(n.reason ?? ''), reason_code: typeof n.reason_code === 'string' ? n.reason_code : undefined }) === 'not_applicable')
        continue;
      const endpoints: string[] = Array.isArray(n.endpoints) ? n.endpoints.map(String) : [];
      if (endpoints.length === 0 && Number(n.count) > 0) {
        cases.push({
          classname: `vigil.security.${check}`,
          name: `${title}: ${n.count} operation${Number(n.count) === 1 ? '' : 's'} not tested (${n.reason})`,
          timeMs: 0,
          failures: [],
          skipped: `not tested: ${n.reason}`,
        });
      }
      for (const e of endpoints) {
        const operation = operationKey(e);
        if (tested.has(`${check}\u0000${operation}`)) continue;
        tested.add(`${check}\u0000${operation}`);
        cases.push({ classname: `vigil.security.${check}`, name: `${title}: ${operation}`, timeMs: 0, failures: [], skipped: `not tested: ${n.reason}` });
      }
    }
  }
  for (const o of (coverage?.operations as Json[] | undefined) ?? []) {
    if (typeof o?.skipped !== 'string') continue;
    cases.push({ classname: 'vigil.security', name: `Every check: ${operationKey(o.endpoint)}`, timeMs: 0, failures: [], skipped: `not tested: ${o.skipped}` });
  }
  return cases;
}

/** The gate's kind and the page of a functional task ("Visual regression: /cart" -> visual, /cart). */
function functionalRef(name: string): { kind?: string; page?: string } {
  const audit = slug(auditOf(name));
  const kind = audit === 'visual-regression' ? 'visual' : audit === 'accessibility' ? 'accessibility' : audit === 'performance' ? 'performance' : undefined;
  return { ...(kind ? { kind } : {}), ...(name.includes(': ') ? { page: name.slice(name.indexOf(': ') + 2) } : {}) };
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * Failures the gate found below their threshold come off (the testcase passes and its system-out says
 * what was found); a security finding by its key, a functional one when the gate fails nothing of its
 * kind on its page and counted something there below the threshold.
 */
function applyGate(cases: Case[], gate: NonNullable<JunitOptions['gate']>): void {
  const failingKeys = new Set(gate.failing.map((g) => g.key));
  const belowKeys = new Set(gate.below.map((g) => g.key));
  const onPage = (f: Case['failures'][number]) => (g: GateRef) =>
    g.page !== undefined && f.page !== undefined && pathOf(g.page) === pathOf(f.page) && (g.kind === f.kind || g.kind === 'page-load');
  const isBelow = (f: Case['failures'][number]) =>
    f.kind === undefined
      ? Boolean(f.key && belowKeys.has(f.key) && !failingKeys.has(f.key))
      : // A finding the task stands for that fails the gate (an accessibility task's budget, whose item is a budget's) keeps it failing.
        !(f.keys ?? []).some((k) => failingKeys.has(k)) && !gate.failing.some(onPage(f)) && gate.below.some(onPage(f));
  for (const c of cases) {
    const below = c.failures.filter(isBelow);
    if (below.length === 0) continue;
    c.failures = c.failures.filter((f) => !below.includes(f));
    c.notes = [...(c.notes ?? []), ...below.map((f) => `below the gate${gate.threshold ? ` (${gate.threshold})` : ''}, not failing: ${f.message}`)];
  }
}

function functionalCases(tasks: Json[], findings: PageFindings): Case[] {
  return tasks.map((t) => ({
    classname: `vigil.functional.${slug(auditOf(String(t.name ?? '')))}`,
    name: String(t.name ?? t.task_id),
    timeMs: typeof t.duration_ms === 'number' ? t.duration_ms : 0,
    failures:
      t.status === 'failed'
        ? [
            {
              message: `${t.name}: ${String(t.error ?? 'failed').split('\n')[0]}`,
              type: 'functional',
              text: [`Finding: ${t.name}`, t.error && `Error: ${t.error}`].filter(Boolean).join('\n'),
              keys: taskFindingKeys(t, findings),
              ...functionalRef(String(t.name ?? '')),
            },
          ]
        : [],
  }));
}

/** Failures the gate did not count come off; a testcase left with none is skipped as suppressed. */
function applySuppressions(cases: Case[], suppressed: readonly JunitSuppression[]): void {
  if (suppressed.length === 0) return;
  const byKey = new Map(suppressed.map((x) => [x.key, x]));
  // A failure's suppressions: its finding's, or every page finding a functional failure stands for (none when one is not suppressed).
  const suppressionsOf = (f: Case['failures'][number]): JunitSuppression[] => {
    const hits = (f.keys ?? (f.key ? [f.key] : [])).map((k) => byKey.get(k));
    return hits.length && hits.every((h) => h !== undefined) ? (hits as JunitSuppression[]) : [];
  };
  for (const c of cases) {
    if (c.failures.length === 0) continue;
    const hits = c.failures.map(suppressionsOf);
    if (hits.every((h) => h.length)) {
      c.skipped = `suppressed: ${[...new Set(hits.flat().map((h) => `${h.reason}${h.until ? ` (until ${h.until})` : ''}`))].join('; ')}`;
      c.failures = [];
    } else {
      c.failures = c.failures.filter((_, i) => !hits[i]!.length);
    }
  }
}

function suite(name: string, cases: Case[], timeSeconds: number, timestamp: string | undefined, extra: string[], head: string[] = []): string {
  uniqueNames(cases);
  const failures = cases.filter((c) => c.failures.length > 0).length;
  const errors = cases.filter((c) => c.error).length;
  const skipped = cases.filter((c) => c.skipped !== undefined).length;
  return [
    `  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${timeSeconds.toFixed(3)}"${timestamp ? ` timestamp="${xmlEscape(timestamp)}"` : ''}>`,
    ...head,
    ...cases.map(renderCase),
    ...extra,
    '  </testsuite>',
  ].join('\n');
}

type Property = [string, string | number];

/** The scan's CI metadata as properties (`vigil.ci.branch`, `vigil.ci.commit`, ...), in a fixed order. */
function ciProperties(ci: unknown): Property[] {
  if (typeof ci !== 'object' || ci === null) return [];
  const fields = ['provider', 'repository', 'repository_url', 'branch', 'base_branch', 'commit', 'pr', 'run_url'];
  return fields.flatMap((f): Property[] => {
    const value = (ci as Record<string, unknown>)[f];
    return typeof value === 'string' || typeof value === 'number' ? [[`vigil.ci.${f}`, value]] : [];
  });
}

function propertiesElement(properties: Property[]): string[] {
  return properties.length
    ? [
        [
          '    <properties>',
          ...properties.map(([name, value]) => `      <property name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`),
          '    </properties>',
        ].join('\n'),
      ]
    : [];
}

/** Properties saying what was not tested: the headline, counts, causes and reasons (names `vigil.not_tested...`). */
function notTestedProperties(summary: NotTestedSummary): Property[] {
  const properties: Property[] = [
    ['vigil.not_tested', summary.headline],
    ['vigil.not_tested.operations_never_reached', summary.operations.never_reached],
    ['vigil.not_tested.operations_total', summary.operations.total],
    ['vigil.not_tested.operations_skipped', summary.operations.skipped],
    ['vigil.not_tested.check_runs', summary.checks.not_tested],
    ['vigil.not_tested.check_runs_total', summary.checks.runs],
    ...summary.causes.map((c, i): [string, string] => [`vigil.not_tested.cause.${i + 1}`, c.text]),
    ...summary.operations.reasons.map((r, i): [string, string] => [`vigil.not_tested.operations.${i + 1}`, `${r.count}: ${r.reason}`]),
    ...summary.checks.reasons.map((r, i): [string, string] => [`vigil.not_tested.checks.${i + 1}`, `${r.count}: ${r.reason}`]),
  ];
  return properties;
}

export function toJunit(results: Json, options: JunitOptions = {}): string {
  const tasks = ((results.tasks as Json[] | undefined) ?? []).filter((t) => t && typeof t === 'object');
  const checks = new Map<string, Json>(((results.security?.checks as Json[] | undefined) ?? []).map((c) => [String(c.id), c]));
  const warnings = ((results.warnings ?? results.security?.warnings ?? []) as unknown[]).filter((w): w is string => typeof w === 'string');
  const time = Math.max(0, Number(results.elapsed_seconds ?? 0) || 0);
  const timestamp =
    typeof results.created_at === 'string'
      ? results.created_at.slice(0, 19)
      : typeof results.completed_at === 'string'
        ? results.completed_at.slice(0, 19)
        : undefined;
  const isSecurity = (t: Json) => t.kind === 'security' || (t.kind === undefined && Boolean(t.check || t.severity));
  const target = `${results.url ?? ''}`;
  const security = securityCases(tasks.filter(isSecurity), checks, results.security?.coverage);
  const functional = functionalCases(
    tasks.filter((t) => !isSecurity(t)),
    pageFindingsOfBody(results),
  );
  applySuppressions([...security, ...functional], suppressedFindings(results, options.suppressed));
  if (options.gate) applyGate([...security, ...functional], options.gate);

  const scanCases: Case[] = [];
  if (results.status !== 'completed') {
    scanCases.push({
      classname: 'vigil.scan',
      name: `Scan ${results.scan_id ?? ''} completes`,
      timeMs: time * 1000,
      failures: [],
      error: {
        message: `scan ${results.status ?? 'unknown'}${results.failure_reason ? `: ${results.failure_reason}` : ''}`,
        text: String(results.failure_reason ?? `The scan ended ${results.status ?? 'without a status'}.`),
      },
    });
  }
  // What was not tested leads: the suite's properties, and the first lines of its system-out (testsuites may hold neither in junit-10.xsd).
  const notTested = notTestedSummary({ security: securitySection(results.security) });
  const untested = notTestedLines(notTested);
  const out =
    untested.length || warnings.length ? [`    <system-out>${xmlEscape([...untested, ...warnings.map((w) => `warning: ${w}`)].join('\n'))}</system-out>`] : [];
  // One <properties> per suite (junit-10.xsd): the CI metadata, then what was not tested.
  const ci = ciProperties(results.ci);
  const head = propertiesElement([...ci, ...(notTested && untested.length ? notTestedProperties(notTested) : [])]);
  const suites: string[] = [];
  const mode = String(results.mode ?? '');
  // The security suite carries the scan's own verdict when the scan is security-only or no task ran.
  const securityFirst = security.length > 0 || mode !== 'functional';
  if (securityFirst)
    suites.push(
      suite(
        `vigil security scan ${results.scan_id ?? ''} (${target})`,
        [...scanCases, ...security],
        mode === 'full' && functional.length ? 0 : time,
        timestamp,
        out,
        head,
      ),
    );
  if (functional.length > 0 || !securityFirst) {
    suites.push(
      suite(
        `vigil functional scan ${results.scan_id ?? ''} (${target})`,
        [...(securityFirst ? [] : scanCases), ...functional],
        functional.reduce((s, c) => s + c.timeMs, 0) / 1000,
        timestamp,
        securityFirst ? [] : out,
        propertiesElement(ci),
      ),
    );
  }
  const all = [...scanCases, ...security, ...functional];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vigil" tests="${all.length}" failures="${all.filter((c) => c.failures.length > 0).length}" errors="${all.filter((c) => c.error).length}" time="${time.toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
