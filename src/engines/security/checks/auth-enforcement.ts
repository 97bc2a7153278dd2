/** API2:2023 Broken authentication: secured operations replayed without and with invalid credentials. */
import type { CheckResult, OperationCheck } from '../types.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const authEnforcement: OperationCheck = {
  id: 'auth-enforcement',
  title: 'Authentication enforcement',
  description: 'Replays every operation that declares security without credentials and with an invalid token, on the same real resource the first identity reached.',
  risk: 'Anyone on the network reads or changes data behind operations the API documents as protected.',
  remediation:
    'Enforce authentication in one place every route passes through (a global middleware or dependency with an explicit allow-list of public routes), and answer 401 before any handler runs.',
  owasp: 'API2:2023',
  cwe: 'CWE-306',
  references: [{ title: 'OWASP Authentication Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html' }],
  scope: 'operation',
  applies: (op) => (op.secured ? true : 'declares no security'),
  async run(scan, op) {
    const base = scan.request(op);
    const baseline = await scan.baseline(op);
    const severity = WRITE.has(op.method) ? 'critical' : 'high';
    const out: CheckResult[] = [];
    for (const [label, headers] of [
      ['no credentials', {}],
      ['invalid credentials', { authorization: 'Bearer vigil-invalid-token-0000' }],
    ] as const) {
      const res = await scan.send({ ...base, headers: { ...base.headers, ...headers }, identity: 'none' });
      // Success without valid credentials, and (when the baseline succeeded too) the same kind of body.
      const accepted = res.status >= 200 && res.status < 300 && (baseline.status < 200 || baseline.status > 299 || res.body.length > 0 || baseline.body.length === 0);
      out.push({
        status: accepted ? ('failed' as const) : ('passed' as const),
        name: `Authentication enforced with ${label}`,
        severity: accepted ? severity : ('info' as const),
        evidence: accepted ? scan.evidence(res, `The operation declares security but answered ${res.status} with ${label}: ${scan.excerpt(res, 200)}`) : undefined,
      });
    }
    return out;
  },
};
