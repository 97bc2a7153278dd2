/** SARIF 2.1.0 from a scan's JSON results (GET /scan/{id}/results, completed form). */
type Json = Record<string, any>;

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', info: 'note' };
const SCORE: Record<string, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0', info: '0.0' };

export function toSarif(results: Json, version = '0.1.0'): Json {
  const failed = (results.tasks as Json[] | undefined ?? []).filter((t) => t.status === 'failed');
  const rules = new Map<string, Json>();
  const sarifResults = failed.map((t) => {
    const ruleId = String(t.check ?? t.task_id);
    if (!rules.has(ruleId)) {
      rules.set(ruleId, {
        id: ruleId,
        name: ruleId.replace(/[^A-Za-z0-9]/g, ''),
        shortDescription: { text: String(t.name) },
        ...(t.owasp || t.cwe ? { helpUri: t.cwe ? `https://cwe.mitre.org/data/definitions/${String(t.cwe).replace(/\D/g, '')}.html` : undefined } : {}),
        properties: { tags: [t.owasp, t.cwe, t.kind].filter(Boolean), ...(t.severity ? { 'security-severity': SCORE[t.severity] ?? '0.0' } : {}) },
      });
    }
    const uri = t.endpoint ? `${String(results.url ?? '').replace(/\/+$/, '')}${String(t.endpoint).split(' ').pop()}` : String(results.url ?? 'target');
    return {
      ruleId,
      level: t.severity ? LEVEL[t.severity] ?? 'warning' : 'error',
      message: { text: [t.name, t.endpoint && `on ${t.endpoint}`, t.parameter && `(parameter ${t.parameter})`, t.evidence && `Evidence: ${t.evidence}`, t.error].filter(Boolean).join(' ') },
      locations: [{ physicalLocation: { artifactLocation: { uri } } }],
      partialFingerprints: { vigilTask: `${ruleId}:${t.endpoint ?? ''}:${t.parameter ?? ''}:${t.task_id}` },
      properties: { severity: t.severity ?? null, owasp: t.owasp ?? null, cwe: t.cwe ?? null, task_id: t.task_id },
    };
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Vigil', version, informationUri: 'https://vigil.dev', rules: [...rules.values()] } },
        results: sarifResults,
        invocations: [{ executionSuccessful: results.status === 'completed', properties: { scan_id: results.scan_id, mode: results.mode } }],
      },
    ],
  };
}
