/** API4:2023 Missing rate limiting on authentication and expensive operations (bounded burst, stops at the first 429). */
import type { CheckDefinition, Operation } from '../types.js';
import { buildRequest } from '../synth.js';
import { fail, pass } from './util.js';

export function isAuthOperation(op: Operation): boolean {
  return /(log-?in|sign-?in|auth|token|session|password|otp|mfa|verify|register|sign-?up)/i.test(`${op.path} ${op.operationId ?? ''} ${op.tags.join(' ')}`);
}

export const rateLimit: CheckDefinition = {
  id: 'rate-limit',
  title: 'Missing rate limiting',
  owasp: 'API4:2023',
  cwe: 'CWE-307',
  scope: 'operation',
  applies: (op) => (op.method === 'POST' && isAuthOperation(op)) || op.extensions['x-vigil-expensive'] === true,
  async run(scan, op) {
    const burst = scan.tuning.rateLimitBurst;
    const name = `Rate limiting on ${isAuthOperation(op!) ? 'an authentication' : 'an expensive'} operation`;
    let last;
    let answered = 0;
    for (let i = 0; i < burst; i++) {
      last = await scan.send({ ...buildRequest(op!), identity: isAuthOperation(op!) ? 'none' : 'primary' });
      if (last.status === 429 || last.status === 503) return [pass(name)];
      if (last.status) answered++;
    }
    if (answered < burst) return [pass(name)];
    return [fail(name, isAuthOperation(op!) ? 'medium' : 'low', scan.evidence(last!, `${burst} requests in a burst, none answered 429 (last: ${last!.status})`), { cwe: isAuthOperation(op!) ? 'CWE-307' : 'CWE-770' })];
  },
};
