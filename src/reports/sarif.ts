/**
 * SARIF 2.1.0 from a scan's JSON results (GET /scan/{id}/results, completed form), valid against the
 * OASIS schema and shaped for GitHub code scanning (see docs/cli.md#sarif):
 *
 * - One rule per security check: with the scan's check catalogue (`security.checks`) a rule carries the
 *   check's title (`shortDescription`), description (`fullDescription`), remediation, risk and references
 *   (`help`, text and markdown), OWASP link (`helpUri`), OWASP / CWE / `security` tags and the
 *   `security-severity` of its worst finding. Functional findings get rules of their own (visual
 *   regression, each axe rule, performance, a page that could not be tested), tagged `functional`.
 * - One result per failed task (per violation for accessibility when the results list them), with its
 *   `level` and its own `security-severity` from the finding's severity, and a stable
 *   `partialFingerprints` (check, method, path template, parameter, and the finding's title, digits
 *   aside; never a task id) so an alert is the same alert in every run. The title is part of it
 *   because one check reports several distinct weaknesses on one operation ("JWT with alg none
 *   accepted", "Expired JWT accepted"): without it code scanning would merge them into one alert.
 *   `properties.fingerprint` is the finding fingerprint suppressions and baselines match.
 * - Locations: with the OpenAPI document (`specFile`: its path relative to the repository root and its
 *   text) a result points at the line of its operation (`paths: /x: get:`) with `uriBaseId: %SRCROOT%`,
 *   so the alert lands on the spec line. Without it, and for functional results, the location is the
 *   operation's or page's address written as a path ("shop.test/cart", line 1): code scanning accepts
 *   only repository paths and refuses an upload with an http(s) URI. Each keeps the operation (or the
 *   full address) as a logical location.
 * - The scan's warnings ("0 of 29 operations answered 2xx") are tool execution notifications, after
 *   the lines of what was not tested and why (not-tested.ts), which the invocation's
 *   `properties.not_tested` also carries.
 */
import { findingFingerprint, type FingerprintSource } from '../domain/fingerprint.js';
import { functionalFingerprint } from '../domain/suppressions.js';
import type { SuppressedFinding } from './format.js';
import { pageFindingsOfBody, taskFindingKeys } from './functional-findings.js';
import { notTestedLines, notTestedSummary } from './not-tested.js';
import { securitySection } from './security-section.js';
import { operationLine, pathsLine } from './spec-location.js';
import { suppressedFindings } from './suppressed.js';

type Json = Record<string, any>;

interface CheckInfo {
  id: string;
  title?: string;
  description?: string;
  risk?: string;
  remediation?: string;
  owasp?: { id?: string; url?: string };
  cwe?: { id?: string; url?: string };
  references?: Array<{ title?: string; url?: string }>;
}

export type { SuppressedFinding };

export interface SarifOptions {
  /** The OpenAPI document in the repository: its path relative to the repository root, and its text. */
  specFile?: { path: string; text: string };
  /** Suppressed findings: their results carry a SARIF `suppressions` entry (kind external, status accepted). */
  suppressed?: readonly SuppressedFinding[];
}

/** What GitHub accepts in one run (docs: "SARIF results exceed limit"); locations are shown up to 100. */
export const SARIF_LIMITS = { resultsPerRun: 25_000, rulesPerRun: 25_000, locationsPerResult: 1_000, tagsPerRule: 20 } as const;

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', info: 'note' };
/** GitHub's bands: over 9.0 critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, 0.1 to 3.9 low. */
export const SECURITY_SEVERITY: Record<string, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0', info: '0.0' };
const IMPACT_LEVEL: Record<string, 'error' | 'warning' | 'note'> = { critical: 'error', serious: 'error', moderate: 'warning', minor: 'note' };
const SEVERITY_ORDER = Object.keys(SECURITY_SEVERITY);
const IMPACT_ORDER = Object.keys(IMPACT_LEVEL);

const cweUrl = (cwe: string) => `https://cwe.mitre.org/data/definitions/${cwe.replace(/\D/g, '')}.html`;
const isHttpUrl = (url: unknown): url is string => typeof url === 'string' && /^https?:\/\//i.test(url);

/** Markdown text with the characters that would start markup escaped. */
function md(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+!|<>])/g, '\\$1');
}

function mdLink(title: string, url: string | undefined): string {
  return isHttpUrl(url) ? `[${md(title)}](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)` : md(title);
}

/** help.text and help.markdown: what the check does, remediation, risk and references. */
function ruleHelp(info: CheckInfo): { text: string; markdown: string } {
  const refs = [
    info.owasp?.id ? { title: `OWASP ${info.owasp.id}`, url: info.owasp.url } : undefined,
    info.cwe?.id ? { title: info.cwe.id, url: info.cwe.url } : undefined,
    ...(info.references ?? []).map((r) => ({ title: r.title ?? r.url ?? '', url: r.url })),
  ].filter((r): r is { title: string; url: string | undefined } => Boolean(r?.title));
  const text = [
    info.remediation ? `Remediation: ${info.remediation}` : '',
    info.risk ? `Risk: ${info.risk}` : '',
    info.description ? `What it checks: ${info.description}` : '',
    refs.length ? `References:\n${refs.map((r) => `- ${r.title}${r.url ? ` ${r.url}` : ''}`).join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const markdown = [
    info.remediation ? `**Remediation.** ${md(info.remediation)}` : '',
    info.risk ? `**Risk.** ${md(info.risk)}` : '',
    info.description ? `**What it checks.** ${md(info.description)}` : '',
    refs.length ? `**References**\n\n${refs.map((r) => `- ${mdLink(r.title, r.url)}`).join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return { text: text || 'No remediation recorded for this check.', markdown: markdown || 'No remediation recorded for this check.' };
}

function worst(values: unknown[], order: string[]): string | undefined {
  return values.filter((s): s is string => typeof s === 'string' && order.includes(s)).sort((a, b) => order.indexOf(a) - order.indexOf(b))[0];
}

/** A rule's `name`: PascalCase of its id ("bola" -> "Bola", "a11y/color-contrast" -> "A11yColorContrast"). */
function ruleName(id: string): string {
  return (
    id
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('') || 'Rule'
  );
}

/** A security rule: one per check. */
function securityRule(ruleId: string, tasks: Json[], info: CheckInfo | undefined): Json {
  const first = tasks[0]!;
  const severity = worst(
    tasks.map((t) => t.severity),
    SEVERITY_ORDER,
  );
  const owasp = info?.owasp?.id || first.owasp;
  const cwe = info?.cwe?.id || first.cwe;
  const tags = [...new Set(['security', owasp, cwe].filter((t): t is string => typeof t === 'string' && t.length > 0))].slice(0, SARIF_LIMITS.tagsPerRule);
  const helpUri = isHttpUrl(info?.owasp?.url) ? info!.owasp!.url : cwe ? cweUrl(String(cwe)) : undefined;
  const help = info ? ruleHelp(info) : undefined;
  return {
    id: ruleId,
    name: ruleName(ruleId),
    shortDescription: { text: String(info?.title || first.name) },
    fullDescription: { text: String(info?.description || info?.title || first.name) },
    ...(help ? { help } : {}),
    ...(helpUri ? { helpUri } : {}),
    defaultConfiguration: { level: severity ? (LEVEL[severity] ?? 'warning') : 'warning' },
    properties: { tags, precision: 'high', ...(severity ? { 'security-severity': SECURITY_SEVERITY[severity] } : {}) },
  };
}

/** "Visual regression: /cart" -> "Visual regression"; "Accessibility (wcag2aa): /x" -> "Accessibility". */
function auditOf(name: string): string {
  const head = name.includes(': ') ? name.slice(0, name.indexOf(': ')) : name;
  return head.replace(/\s*\(.*\)\s*$/, '').trim() || 'Functional check';
}

/** The page a functional task names ("Visual regression: /cart" on https://shop.test -> https://shop.test/cart). */
function pageOf(name: string, base: string): string | undefined {
  const label = name.includes(': ') ? name.slice(name.indexOf(': ') + 2).trim() : '';
  if (!label) return undefined;
  try {
    return new URL(label, base ? `${base}/` : undefined).href;
  } catch {
    return undefined;
  }
}

const FUNCTIONAL_HELP: Record<string, string> = {
  'visual-regression':
    'The page looks different from its approved baseline. Look at the diff image in the HTML report or the visual-regression endpoint; approve the new look as the baseline (POST /baselines/approve) if the change is intended, or fix the regression.',
  accessibility:
    'The page has accessibility violations, or its accessibility score misses a budget. Each violation names the elements (CSS selectors) and what to fix; see the HTML report or the accessibility section of the results.',
  performance: 'The page is rated poor or misses a budget. The performance section of the results gives each metric (LCP, CLS, TBT...) and its rating.',
};

function functionalRule(
  ruleId: string,
  title: string,
  description: string,
  help: string,
  helpUri: string | undefined,
  level: 'error' | 'warning' | 'note',
  tags: string[],
): Json {
  return {
    id: ruleId,
    name: ruleName(ruleId),
    shortDescription: { text: title },
    fullDescription: { text: description },
    help: { text: help, markdown: md(help) },
    ...(isHttpUrl(helpUri) ? { helpUri } : {}),
    defaultConfiguration: { level },
    properties: { tags: [...new Set(['functional', ...tags])].slice(0, SARIF_LIMITS.tagsPerRule) },
  };
}

/** A repository-relative path as a URI reference: forward slashes, no leading "./" or "/", percent-encoded. */
function repoUri(path: string): string {
  const clean = path
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
  return encodeURI(clean).replace(/[?#]/g, encodeURIComponent);
}

interface Locator {
  /** A location for an operation ("METHOD /path") or, without one, for the whole target. */
  operation(endpoint: string | undefined, index: number): Json;
  page(url: string, index: number): Json;
}

/**
 * A web address as a path code scanning accepts: GitHub takes only repository paths (an http(s) URI
 * fails the upload with "unrecognized SARIF location URI scheme"), so "https://shop.test:8443/a/{id}?q"
 * becomes "shop.test_8443/a/%7Bid%7D": host (port after "_", a ":" would read as a scheme) and path,
 * percent-encoded, no query. The full address stays in the location's properties and logical location.
 */
export function urlAsRepoPath(url: string): string {
  let host = '';
  let path = url;
  try {
    const u = new URL(url);
    host = u.host.replace(/:/g, '_');
    path = safeDecode(u.pathname);
  } catch {
    path = url.split(/[?#]/, 1)[0]!;
  }
  const joined = `${host}/${path}`
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+/, '')
    .replace(/\/+$/, '');
  return encodeURI(joined).replace(/[?#:]/g, encodeURIComponent) || 'target';
}

function locator(results: Json, options: SarifOptions): Locator {
  const base = String(results.url ?? '').replace(/\/+$/, '');
  const spec = options.specFile && typeof options.specFile.text === 'string' && options.specFile.path ? options.specFile : undefined;
  const specUri = spec ? repoUri(spec.path) : undefined;
  return {
    operation(endpoint, index) {
      const logical = endpoint ? { logicalLocations: [{ name: endpoint, fullyQualifiedName: endpoint, kind: 'function' }], message: { text: endpoint } } : {};
      if (spec && specUri) {
        const line = (endpoint ? operationLine(spec.text, endpoint) : undefined) ?? pathsLine(spec.text);
        return {
          id: index,
          physicalLocation: { artifactLocation: { uri: specUri, uriBaseId: '%SRCROOT%' }, region: { startLine: Math.max(1, line) } },
          ...logical,
        };
      }
      // No spec file in the repository: the operation's address on the target, as a path (see urlAsRepoPath).
      const url = `${base}${endpoint ? (endpoint.split(' ').pop() ?? '') : ''}`;
      return { id: index, physicalLocation: { artifactLocation: { uri: urlAsRepoPath(url) }, region: { startLine: 1 } }, ...logical, properties: { url } };
    },
    page(url, index) {
      return {
        id: index,
        physicalLocation: { artifactLocation: { uri: urlAsRepoPath(url) }, region: { startLine: 1 } },
        logicalLocations: [{ name: url, fullyQualifiedName: url, kind: 'resource' }],
        properties: { url },
      };
    },
  };
}

function safeDecode(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A versionControlDetails object from a scan's `ci` (repository address, commit, branch), when it names a repository by an absolute address. */
function versionControl(ci: unknown): Json | undefined {
  if (!isObject(ci) || !isHttpUrl(ci.repository_url)) return undefined;
  return {
    repositoryUri: ci.repository_url,
    ...(typeof ci.commit === 'string' && ci.commit ? { revisionId: ci.commit } : {}),
    ...(typeof ci.branch === 'string' && ci.branch ? { branch: ci.branch } : {}),
  };
}

export function toSarif(results: Json, version = '0.1.0', options: SarifOptions = {}): Json {
  const tasks = ((results.tasks as Json[] | undefined) ?? []).filter((t) => t && typeof t === 'object');
  const failed = tasks.filter((t) => t.status === 'failed');
  const catalogue = new Map<string, CheckInfo>();
  for (const check of (results.security?.checks as CheckInfo[] | undefined) ?? []) if (check?.id && !catalogue.has(check.id)) catalogue.set(check.id, check);
  const warnings: string[] = ((results.warnings ?? results.security?.warnings ?? []) as unknown[]).filter((w): w is string => typeof w === 'string');
  const base = String(results.url ?? '').replace(/\/+$/, '');
  const where = locator(results, options);
  const pageLocation = (url: string, i: number) => where.page(url, i);

  const rules: Json[] = [];
  const ruleIndex = new Map<string, number>();
  const addRule = (rule: Json) => {
    if (!ruleIndex.has(rule.id)) {
      ruleIndex.set(rule.id, rules.length);
      rules.push(rule);
    }
    return ruleIndex.get(rule.id)!;
  };
  const sarifResults: Json[] = [];

  // Security findings: one rule per check (the catalogue's entry), one result per failed task.
  const security = failed.filter((t) => t.kind === 'security' || (t.kind === undefined && (t.check || t.severity)));
  const byCheck = new Map<string, Json[]>();
  for (const t of security) {
    const id = String(t.check || `task/${auditOf(String(t.name ?? 'finding'))}`);
    byCheck.set(id, [...(byCheck.get(id) ?? []), t]);
  }
  for (const [id, checkTasks] of byCheck) addRule(securityRule(id, checkTasks, catalogue.get(id)));
  for (const t of security) {
    const ruleId = String(t.check || `task/${auditOf(String(t.name ?? 'finding'))}`);
    const endpoints: string[] = Array.isArray(t.endpoints) && t.endpoints.length > 0 ? t.endpoints.map(String) : t.endpoint ? [String(t.endpoint)] : [];
    const on = endpoints.length > 1 ? `on ${endpoints.length} operations` : endpoints[0] && `on ${endpoints[0]}`;
    const severity = typeof t.severity === 'string' && t.severity in LEVEL ? t.severity : undefined;
    const shown = endpoints.slice(0, SARIF_LIMITS.locationsPerResult);
    const source: FingerprintSource = {
      name: String(t.name ?? ''),
      check: t.check,
      endpoint: t.endpoint,
      parameter: t.parameter,
      ...(Array.isArray(t.endpoints) ? { endpoints: t.endpoints } : {}),
    };
    sarifResults.push({
      ruleId,
      ruleIndex: ruleIndex.get(ruleId)!,
      level: severity ? LEVEL[severity] : 'warning',
      message: {
        text: [
          `${t.name}`,
          on,
          t.parameter && `(parameter ${t.parameter})`,
          severity && `[${severity}]`,
          t.invented_values && '(tested with invented values only: no real resource was found)',
          t.evidence && `Evidence: ${t.evidence}`,
          t.error,
        ]
          .filter(Boolean)
          .join(' '),
      },
      locations: shown.length ? shown.map((e, i) => where.operation(e, i)) : [where.operation(undefined, 0)],
      partialFingerprints: { 'vigilFinding/v1': findingFingerprint(source) },
      properties: {
        fingerprint: findingFingerprint(source),
        ...(severity ? { severity, 'security-severity': SECURITY_SEVERITY[severity] } : {}),
        ...(t.owasp ? { owasp: t.owasp } : {}),
        ...(t.cwe ? { cwe: t.cwe } : {}),
        ...(t.parameter ? { parameter: t.parameter } : {}),
        ...(endpoints.length > 1 ? { endpoints } : {}),
        ...(t.invented_values ? { invented_values: true } : {}),
        task_id: t.task_id,
      },
    });
  }

  // Functional findings. Accessibility violations, when the results list them, are results of their
  // own (one rule per axe rule); the accessibility tasks are then not repeated, but for a missed
  // accessibility budget (the task's result then stands for the budget alone).
  const violations: Json[] = Array.isArray(results.accessibility?.violations)
    ? results.accessibility.violations
    : Array.isArray(results.functional?.accessibility?.violations)
      ? results.functional.accessibility.violations
      : [];
  const listed = Array.isArray(results.accessibility?.violations) || Array.isArray(results.functional?.accessibility?.violations);
  // The page findings a functional task's result stands for: it is suppressed when every one of them is.
  const findings = pageFindingsOfBody(results);
  const standsFor = new Map<Json, string[]>();
  for (const t of failed.filter((x) => !security.includes(x))) {
    const audit = auditOf(String(t.name ?? ''));
    const slug =
      audit
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'functional';
    const budgetOnly = listed && slug === 'accessibility';
    const error = String(t.error ?? '');
    if (budgetOnly && !error.includes('over budget:')) continue;
    const ruleId = `functional/${slug}`;
    const index = addRule(
      functionalRule(
        ruleId,
        audit,
        `Vigil's ${audit.toLowerCase()} check of each page failed.`,
        FUNCTIONAL_HELP[slug] ?? 'The page failed this check; the message says why (for instance the page could not be loaded).',
        undefined,
        'error',
        [slug],
      ),
    );
    const page = pageOf(String(t.name ?? ''), base);
    const label = String(t.name ?? '').slice(String(t.name ?? '').indexOf(': ') + 2);
    const keys = budgetOnly ? taskFindingKeys(t, { ...findings, violations: [] }) : taskFindingKeys(t, findings);
    const result: Json = {
      ruleId,
      ruleIndex: index,
      level: 'error',
      message: { text: [t.name, t.error && `: ${budgetOnly ? error.slice(error.indexOf('over budget:')) : t.error}`].filter(Boolean).join('') },
      locations: [page ? pageLocation(page, 0) : where.operation(undefined, 0)],
      partialFingerprints: { 'vigilFinding/v1': findingFingerprint({ name: String(t.name ?? '') }) },
      properties: {
        fingerprint:
          budgetOnly && keys?.length === 1
            ? keys[0]
            : slug === 'visual-regression' || slug === 'accessibility'
              ? functionalFingerprint(slug === 'visual-regression' ? 'visual' : 'a11y/unknown', label)
              : findingFingerprint({ name: String(t.name ?? '') }),
        ...(t.duration_ms !== undefined ? { duration_ms: t.duration_ms } : {}),
        task_id: t.task_id,
      },
    };
    if (keys) standsFor.set(result, keys);
    sarifResults.push(result);
  }
  for (const v of violations) {
    if (!v || typeof v.rule !== 'string') continue;
    const ruleId = `accessibility/${v.rule}`;
    const sameRule = violations.filter((x) => x?.rule === v.rule);
    const level =
      IMPACT_LEVEL[
        worst(
          sameRule.map((x) => x.impact),
          IMPACT_ORDER,
        ) ?? 'moderate'
      ] ?? 'warning';
    const index = addRule(
      functionalRule(
        ruleId,
        `Accessibility: ${v.rule}`,
        String(v.description || v.rule),
        `${v.description || v.rule}${v.wcag ? ` (${v.wcag})` : ''}. Fix each element listed in the result${isHttpUrl(v.help_url) ? `; axe-core explains the rule at ${v.help_url}` : ''}.`,
        v.help_url,
        level,
        ['accessibility', ...(typeof v.wcag === 'string' && v.wcag ? [v.wcag] : [])],
      ),
    );
    const nodes: Json[] = Array.isArray(v.nodes) ? v.nodes : [];
    const pagePath = (() => {
      try {
        const u = new URL(String(v.page_url));
        return `${u.pathname}${u.search}`;
      } catch {
        return String(v.page_url ?? '');
      }
    })();
    sarifResults.push({
      ruleId,
      ruleIndex: index,
      level: IMPACT_LEVEL[v.impact] ?? 'warning',
      message: {
        text: [
          `${v.description || v.rule} on ${v.page_url}`,
          `[${v.impact}]`,
          `${v.elements_affected ?? v.elements ?? nodes.length} element(s)`,
          nodes.length
            ? `: ${nodes
                .slice(0, 5)
                .map((n) => `${n.target} ${n.html}`)
                .join('; ')}`
            : '',
        ]
          .filter(Boolean)
          .join(' '),
      },
      locations: [isHttpUrl(v.page_url) ? pageLocation(v.page_url, 0) : where.operation(undefined, 0)],
      partialFingerprints: { 'vigilFinding/v1': findingFingerprint({ name: ruleId, check: ruleId, endpoint: `GET ${pagePath}` }) },
      properties: {
        fingerprint: functionalFingerprint(`a11y/${v.rule}`, String(v.page_url ?? '')),
        impact: v.impact,
        wcag: v.wcag ?? null,
        elements_affected: v.elements_affected ?? v.elements ?? nodes.length,
        selectors: nodes.map((n) => n.target).slice(0, 20),
      },
    });
  }

  // A result is suppressed when its finding is (a functional task's: every page finding it stands for).
  const suppressed = new Map(suppressedFindings(results, options.suppressed).map((x) => [x.key, x]));
  for (const r of sarifResults) {
    const hits = (standsFor.get(r) ?? [r.properties?.fingerprint]).map((key) => suppressed.get(key));
    if (!hits.every((h): h is SuppressedFinding => h !== undefined)) continue;
    const justification = [...new Set(hits.map((h) => `${h.reason}${h.until ? ` (until ${h.until})` : ''}`))].join('; ');
    const authors = [...new Set(hits.flatMap((h) => (h.author ? [h.author] : [])))];
    const properties = hits.some((h) => h.source === 'server')
      ? { properties: { source: 'server', ...(authors.length ? { author: authors.join(', ') } : {}) } }
      : {};
    r.suppressions = [{ kind: 'external', status: 'accepted', justification, ...properties }];
  }

  const notTested = notTestedSummary({ security: securitySection(results.security) });
  // A scan that did not complete says so first (its reason), so no reader takes the run for "no findings".
  const notifications = [
    ...(results.status !== 'completed'
      ? [
          {
            level: 'error',
            message: {
              text: `The scan ${String(results.status ?? 'did not complete')}${results.failure_reason ? `: ${String(results.failure_reason)}` : ''}; its results are not a complete list of findings.`,
            },
          },
        ]
      : []),
    // What was not tested, and why, before the warnings: a run with few results may be an untested one.
    ...notTestedLines(notTested).map((text) => ({ level: 'warning', message: { text } })),
    ...warnings.map((text) => ({ level: 'warning', message: { text } })),
  ];
  const coverage = results.security?.coverage;
  return {
    $schema: 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Vigil', version, semanticVersion: version, informationUri: 'https://vigil.dev', rules } },
        // The commit the scan judged (from its CI metadata): SARIF's version control provenance (repositoryUri is required there).
        ...(versionControl(results.ci) ? { versionControlProvenance: [versionControl(results.ci)] } : {}),
        ...(options.specFile
          ? { originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The root of the repository the OpenAPI document is in.' } } } }
          : {}),
        results: sarifResults.slice(0, SARIF_LIMITS.resultsPerRun),
        invocations: [
          {
            executionSuccessful: results.status === 'completed',
            ...(results.status !== 'completed' ? { exitCodeDescription: `scan ${String(results.status)}` } : {}),
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
            properties: {
              scan_id: results.scan_id,
              mode: results.mode,
              ...(coverage ? { operations_2xx: coverage.operations_2xx, operations_total: coverage.operations_total } : {}),
              ...(notTested && !notTested.everything_tested ? { not_tested: notTested } : {}),
            },
          },
        ],
        properties: { target: results.url ?? null, scan_id: results.scan_id ?? null, ...(isObject(results.ci) ? { ci: results.ci } : {}) },
      },
    ],
  };
}
