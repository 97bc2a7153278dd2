/** API2:2023 Broken authentication: secured operations replayed without and with invalid credentials. */
import type { CheckContext, CheckResult, OperationCheck, RequestSpec, TargetResponse } from '../types.js';
import { isSelfRead } from '../identities.js';
import { sameContent } from './authz.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * True when each identity's read of `req` answers the same content as the anonymous one
 * (personalisation fields apart). The content may change meanwhile (a list grows as the scan
 * creates things): a difference counts only when the anonymous answer was stable around the reads.
 */
async function readsAlike(scan: CheckContext, req: RequestSpec, first: TargetResponse): Promise<boolean> {
  const identities = scan.hasSecondary ? (['primary', 'secondary'] as const) : (['primary'] as const);
  let anon = first;
  for (let attempt = 0; attempt < 3; attempt++) {
    const reads = [];
    for (const identity of identities) reads.push(await scan.send({ ...req, identity }));
    if (reads.every((r) => sameContent(r, anon))) return true;
    const after = await scan.send({ ...req, headers: { ...req.headers }, identity: 'none' });
    if (sameContent(after, anon)) return false;
    anon = after;
  }
  return false;
}

export const authEnforcement: OperationCheck = {
  id: 'auth-enforcement',
  title: 'Authentication enforcement',
  description:
    'Replays every operation that declares security without credentials and with an invalid token, on the same real resource the first identity reached.',
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
      const accepted =
        res.status >= 200 && res.status < 300 && (baseline.status < 200 || baseline.status > 299 || res.body.length > 0 || baseline.body.length === 0);
      // Optional authentication: a read that answers the same with and without credentials (apart from
      // fields that personalise it), to every identity alike, and is not the caller's own account, is
      // public content the spec declares secured: an informational note, not missing authentication.
      // Compared with fresh reads (a list grows as the scan creates things).
      if (accepted && op.method === 'GET' && !isSelfRead(op) && (await readsAlike(scan, base, res))) {
        out.push({
          status: 'failed',
          name: `Authentication enforced with ${label}`,
          severity: 'info',
          evidence: scan.evidence(
            res,
            `Optional authentication: the spec declares security, but the operation answered ${res.status} with ${label} the same as with the identities' credentials (personalisation fields apart): public content, or the spec should declare it optional.`,
          ),
        });
        continue;
      }
      out.push({
        status: accepted ? ('failed' as const) : ('passed' as const),
        name: `Authentication enforced with ${label}`,
        severity: accepted ? severity : ('info' as const),
        evidence: accepted
          ? scan.evidence(res, `The operation declares security but answered ${res.status} with ${label}: ${scan.excerpt(res, 200)}`)
          : undefined,
      });
    }
    return out;
  },
};
