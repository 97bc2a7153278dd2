/** API2:2023 Broken authentication: secured operations replayed without and with invalid credentials. */
import type { CheckDefinition, CheckResult } from "../types.js";
import { buildRequest } from '../synth.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const authEnforcement: CheckDefinition = {
  id: 'auth-enforcement',
  title: 'Authentication enforcement',
  owasp: 'API2:2023',
  cwe: 'CWE-306',
  scope: 'operation',
  applies: (op) => op.secured,
  async run(scan, op) {
    const base = buildRequest(op!);
    const baseline = await scan.send(base);
    const severity = WRITE.has(op!.method) ? 'critical' : 'high';
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
