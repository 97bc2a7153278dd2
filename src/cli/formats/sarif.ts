/**
 * SARIF 2.1.0 from a scan's JSON results (GET /scan/{id}/results, completed form).
 *
 * One rule per check: with the scan's check catalogue (`security.checks`) a rule carries the check's
 * title, description, remediation (`help`, text and markdown), OWASP link (`helpUri`), OWASP / CWE /
 * `security` tags and a `security-severity` for code-scanning dashboards. One result per failed task;
 * a finding of the whole target has one location per affected operation. The scan's warnings
 * ("0 of 29 operations answered 2xx") are tool execution notifications of the invocation.
 */
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

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', info: 'note' };
const SCORE: Record<string, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0', info: '0.0' };

const cweUrl = (cwe: string) => `https://cwe.mitre.org/data/definitions/${cwe.replace(/\D/g, '')}.html`;

/** Markdown text with the characters that would start markup escaped. */
function md(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+!|<>])/g, '\\$1');
}

function mdLink(title: string, url: string | undefined): string {
  return url && /^https?:\/\//i.test(url) ? `[${md(title)}](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)` : md(title);
}

/** help.text and help.markdown: remediation, risk and references. */
function ruleHelp(info: CheckInfo): { text: string; markdown: string } {
  const refs = [
    info.owasp?.id ? { title: `OWASP ${info.owasp.id}`, url: info.owasp.url } : undefined,
    info.cwe?.id ? { title: info.cwe.id, url: info.cwe.url } : undefined,
    ...(info.references ?? []).map((r) => ({ title: r.title ?? r.url ?? '', url: r.url })),
  ].filter((r): r is { title: string; url: string | undefined } => Boolean(r?.title));
  const text = [
    info.remediation ? `Remediation: ${info.remediation}` : '',
    info.risk ? `Risk: ${info.risk}` : '',
    refs.length ? `References:\n${refs.map((r) => `- ${r.title}${r.url ? ` ${r.url}` : ''}`).join('\n')}` : '',
  ].filter(Boolean).join('\n\n');
  const markdown = [
    info.remediation ? `**Remediation.** ${md(info.remediation)}` : '',
    info.risk ? `**Risk.** ${md(info.risk)}` : '',
    refs.length ? `**References**\n\n${refs.map((r) => `- ${mdLink(r.title, r.url)}`).join('\n')}` : '',
  ].filter(Boolean).join('\n\n');
  return { text: text || 'No remediation recorded for this check.', markdown: markdown || 'No remediation recorded for this check.' };
}

function worstSeverity(tasks: Json[]): string | undefined {
  const order = Object.keys(SCORE);
  return tasks.map((t) => t.severity).filter((s): s is string => order.includes(s)).sort((a, b) => order.indexOf(a) - order.indexOf(b))[0];
}

function rule(ruleId: string, tasks: Json[], info: CheckInfo | undefined): Json {
  const first = tasks[0]!;
  const severity = worstSeverity(tasks);
  const owasp = info?.owasp?.id || first.owasp;
  const cwe = info?.cwe?.id || first.cwe;
  const security = first.kind === 'security' || Boolean(info) || Boolean(owasp || cwe);
  const tags = [...new Set([owasp, cwe, security ? 'security' : first.kind].filter((t): t is string => typeof t === 'string' && t.length > 0))];
  const helpUri = info?.owasp?.url || (cwe ? cweUrl(String(cwe)) : undefined);
  return {
    id: ruleId,
    name: ruleId.replace(/[^A-Za-z0-9]/g, ''),
    shortDescription: { text: String(info?.title || first.name) },
    ...(info?.description ? { fullDescription: { text: info.description } } : {}),
    ...(info ? { help: ruleHelp(info) } : {}),
    ...(helpUri ? { helpUri } : {}),
    properties: { tags, ...(severity ? { 'security-severity': SCORE[severity] } : {}) },
  };
}

function location(base: string, endpoint: string | undefined, index: number): Json {
  // A path template's braces (and anything else a URI cannot hold) are percent-encoded: `uri` must be a URI reference.
  const path = endpoint ? encodeURI(String(endpoint).split(' ').pop() ?? '') : '';
  return {
    id: index,
    physicalLocation: { artifactLocation: { uri: path ? `${base}${path}` : base || 'target' } },
    ...(endpoint ? { logicalLocations: [{ name: String(endpoint), kind: 'resource' }], message: { text: String(endpoint) } } : {}),
  };
}

export function toSarif(results: Json, version = '0.1.0'): Json {
  const failed = ((results.tasks as Json[] | undefined) ?? []).filter((t) => t.status === 'failed');
  const catalogue = new Map<string, CheckInfo>();
  for (const check of (results.security?.checks as CheckInfo[] | undefined) ?? []) if (check?.id && !catalogue.has(check.id)) catalogue.set(check.id, check);
  const warnings: string[] = ((results.warnings ?? results.security?.warnings ?? []) as unknown[]).filter((w): w is string => typeof w === 'string');
  const base = String(results.url ?? '').replace(/\/+$/, '');

  const byRule = new Map<string, Json[]>();
  for (const t of failed) {
    const ruleId = String(t.check ?? t.task_id);
    byRule.set(ruleId, [...(byRule.get(ruleId) ?? []), t]);
  }
  const rules = [...byRule.entries()].map(([ruleId, tasks]) => rule(ruleId, tasks, catalogue.get(ruleId)));

  const sarifResults = failed.map((t) => {
    const ruleId = String(t.check ?? t.task_id);
    const endpoints: string[] = Array.isArray(t.endpoints) && t.endpoints.length > 0 ? t.endpoints.map(String) : t.endpoint ? [String(t.endpoint)] : [];
    const where = endpoints.length > 1 ? `on ${endpoints.length} operations` : endpoints[0] && `on ${endpoints[0]}`;
    return {
      ruleId,
      ruleIndex: rules.findIndex((r) => r.id === ruleId),
      level: t.severity ? LEVEL[t.severity] ?? 'warning' : 'error',
      message: {
        text: [t.name, where, t.parameter && `(parameter ${t.parameter})`, t.invented_values && '(tested with invented values only: no real resource was found)', t.evidence && `Evidence: ${t.evidence}`, t.error]
          .filter(Boolean)
          .join(' '),
      },
      locations: endpoints.length ? endpoints.map((e, i) => location(base, e, i)) : [location(base, undefined, 0)],
      partialFingerprints: { vigilTask: `${ruleId}:${t.endpoint ?? ''}:${t.parameter ?? ''}:${t.task_id}` },
      properties: {
        severity: t.severity ?? null,
        owasp: t.owasp ?? null,
        cwe: t.cwe ?? null,
        task_id: t.task_id,
        ...(endpoints.length > 1 ? { endpoints } : {}),
        ...(t.invented_values ? { invented_values: true } : {}),
      },
    };
  });

  const coverage = results.security?.coverage;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Vigil', version, informationUri: 'https://vigil.dev', rules } },
        results: sarifResults,
        invocations: [
          {
            executionSuccessful: results.status === 'completed',
            ...(warnings.length ? { toolExecutionNotifications: warnings.map((text) => ({ level: 'warning', message: { text } })) } : {}),
            properties: {
              scan_id: results.scan_id,
              mode: results.mode,
              ...(coverage ? { operations_2xx: coverage.operations_2xx, operations_total: coverage.operations_total } : {}),
            },
          },
        ],
      },
    ],
  };
}
