/** API4:2023 Missing rate limiting on authentication and expensive operations (bounded burst, stops at the first 429). */
import type { Operation, OperationCheck, TargetResponse } from '../types.js';
import { fail, pass } from './util.js';

export function isAuthOperation(op: Operation): boolean {
  return /(log-?in|sign-?in|auth|token|session|password|otp|mfa|verify|register|sign-?up)/i.test(`${op.path} ${op.operationId ?? ''} ${op.tags.join(' ')}`);
}

export const rateLimit: OperationCheck = {
  id: 'rate-limit',
  title: 'Missing rate limiting',
  description:
    'Sends a bounded burst of identical requests (authentication operations without credentials; operations marked x-vigil-expensive with them) and reports when none of them is answered 429 or 503. The burst stops at the first throttled answer.',
  risk: "Without a limit on login, registration, password reset or one-time-code operations, an attacker can guess passwords and codes or stuff leaked credentials at full speed; without a limit on expensive operations, a few clients can exhaust the API's CPU, memory or paid third-party quotas.",
  remediation:
    'Limit attempts per account and per client (IP, API key) on authentication operations, with growing delays or a lockout and a 429 with Retry-After; set per-client quotas on expensive operations, at the gateway or in the application.',
  owasp: 'API4:2023',
  cwe: 'CWE-307',
  references: [
    {
      title: 'OWASP Authentication Cheat Sheet: Protect against automated attacks',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html#protect-against-automated-attacks',
    },
    {
      title: 'OWASP Credential Stuffing Prevention Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Credential_Stuffing_Prevention_Cheat_Sheet.html',
    },
    { title: 'OWASP Denial of Service Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Denial_of_Service_Cheat_Sheet.html' },
  ],
  scope: 'operation',
  // The limiter answering is the evidence this check looks for.
  executedBy: (status) => status === 429 || status === 503,
  applies: (op) =>
    (op.method === 'POST' && isAuthOperation(op)) ||
    op.extensions['x-vigil-expensive'] === true ||
    'not an authentication operation (POST) nor marked x-vigil-expensive',
  async run(ctx, op) {
    const auth = isAuthOperation(op);
    const burst = ctx.tuning.rateLimitBurst;
    const name = `Rate limiting on ${auth ? 'an authentication' : 'an expensive'} operation`;
    const req = { ...ctx.request(op), identity: auth ? ('none' as const) : ('primary' as const) };
    let last: TargetResponse | undefined;
    let answered = 0;
    for (let i = 0; i < burst; i++) {
      last = await ctx.send(req);
      if (last.status === 429 || last.status === 503) return [pass(name)];
      if (last.status) answered++;
    }
    if (!last || answered < burst) return [pass(name)];
    return [
      fail(name, auth ? 'medium' : 'low', ctx.evidence(last, `${burst} requests in a burst, none answered 429 (last: ${last.status})`), {
        cwe: auth ? 'CWE-307' : 'CWE-770',
      }),
    ];
  },
};
