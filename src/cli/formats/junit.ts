/**
 * JUnit XML from a scan's JSON results: one testcase per task, failed tasks as <failure> (with the
 * check's title and remediation from `security.checks`, and every affected operation of a finding of
 * the whole target); the scan's warnings in the suite's <system-out>.
 */
type Json = Record<string, any>;

export function xmlEscape(value: unknown): string {
  // Characters XML 1.0 forbids are dropped; the five specials are escaped.
  // eslint-disable-next-line no-control-regex
  return String(value ?? '').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

export function toJunit(results: Json): string {
  const tasks = (results.tasks as Json[] | undefined) ?? [];
  const checks = new Map<string, Json>(((results.security?.checks as Json[] | undefined) ?? []).map((c) => [String(c.id), c]));
  const warnings = ((results.warnings ?? results.security?.warnings ?? []) as unknown[]).filter((w): w is string => typeof w === 'string');
  const failures = tasks.filter((t) => t.status === 'failed').length;
  const time = Number(results.elapsed_seconds ?? 0);
  const cases = tasks.map((t) => {
    const classname = `vigil.${t.kind ?? results.mode}${t.owasp ? `.${t.owasp}` : ''}`;
    const head = `    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(t.name)}" time="${((t.duration_ms ?? 0) / 1000).toFixed(3)}"`;
    if (t.status !== 'failed') return `${head}/>`;
    const check = t.check === undefined ? undefined : checks.get(String(t.check));
    const endpoints = Array.isArray(t.endpoints) && t.endpoints.length > 0 ? `Endpoints (${t.endpoints.length}): ${t.endpoints.join(', ')}` : t.endpoint && `Endpoint: ${t.endpoint}`;
    const detail = [
      check?.title && `Check: ${check.title}`,
      endpoints,
      t.parameter && `Parameter: ${t.parameter}`,
      t.cwe && `CWE: ${t.cwe}`,
      t.owasp && `OWASP: ${t.owasp}`,
      t.invented_values && 'Tested with invented values only: no real resource was found',
      t.evidence && `Evidence: ${t.evidence}`,
      t.error && `Error: ${t.error}`,
      check?.remediation && `Remediation: ${check.remediation}`,
    ].filter(Boolean).join('\n');
    return `${head}>\n      <failure message="${xmlEscape(`${t.severity ? `[${t.severity}] ` : ''}${t.name}`)}" type="${xmlEscape(t.severity ?? 'failure')}">${xmlEscape(detail)}</failure>\n    </testcase>`;
  });
  const errors = results.status === 'completed' ? 0 : 1;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vigil" tests="${tasks.length}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="${xmlEscape(`vigil ${results.mode ?? ''} scan ${results.scan_id ?? ''} (${results.url ?? ''})`)}" tests="${tasks.length}" failures="${failures}" errors="${errors}" time="${time}">`,
    ...cases,
    ...(warnings.length ? [`    <system-out>${xmlEscape(warnings.map((w) => `warning: ${w}`).join('\n'))}</system-out>`] : []),
    ...(errors ? [`    <system-err>${xmlEscape(`scan ${results.status}${results.failure_reason ? `: ${results.failure_reason}` : ''}`)}</system-err>`] : []),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
