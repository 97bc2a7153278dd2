/** API2:2023 Account enumeration: login, registration and reset answering differently for unknown users. */
import type { CheckDefinition, Operation } from '../types.js';
import { buildRequest, sampleBody } from '../synth.js';
import { fail, pass } from './util.js';

function userField(body: Record<string, unknown>): string | undefined {
  return Object.keys(body).find((k) => /^(user(name)?|email|login|account|phone)$/i.test(k));
}

function shape(body: string): string {
  // Compare messages with volatile parts (ids, times, numbers) removed.
  return body.replace(/"(?:request_?id|timestamp|time|date|trace_?id)"\s*:\s*"[^"]*"/gi, '').replace(/\d+/g, '#').trim();
}

export const accountEnumeration: CheckDefinition = {
  id: 'account-enumeration',
  title: 'Account enumeration',
  owasp: 'API2:2023',
  cwe: 'CWE-204',
  scope: 'operation',
  applies: (op: Operation) =>
    op.method === 'POST' && /(log-?in|sign-?in|register|sign-?up|password|reset|forgot)/i.test(`${op.path} ${op.operationId ?? ''}`) && !!op.body && /json|form/i.test(op.body.contentType),
  async run(scan, op) {
    const body = sampleBody(op!) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return [];
    const field = userField(body);
    if (!field) return [];
    const name = 'Different answers for unknown and known accounts';
    const known = scan.auth?.username ?? String(body[field]);
    const unknownUser = /email/i.test(field) ? `vigil-nobody-${Date.now().toString(36)}@example.invalid` : `vigil-nobody-${Date.now().toString(36)}`;
    const pw = Object.keys(body).find((k) => /pass/i.test(k));
    const req = (user: string) => scan.send({ ...buildRequest(op!, { body: { ...body, [field]: user, ...(pw ? { [pw]: 'Vigil-wrong-Pa55!' } : {}) } }), identity: 'none' });
    const a1 = await req(known);
    const b1 = await req(unknownUser);
    const a2 = await req(known);
    const b2 = await req(unknownUser);
    // Throttled answers say nothing about the account.
    if ([a1, b1, a2, b2].some((r) => r.status === 429 || r.status === 0)) return [pass(name)];
    const stable = a1.status === a2.status && b1.status === b2.status && shape(a1.body) === shape(a2.body) && shape(b1.body) === shape(b2.body);
    if (!stable) return [pass(name)];
    if (a1.status !== b1.status || shape(a1.body) !== shape(b1.body)) {
      return [
        fail(
          name,
          'medium',
          scan.evidence(b1, `Known account "${known}": HTTP ${a1.status} ${scan.excerpt(a1, 120)}\nUnknown account: HTTP ${b1.status} ${scan.excerpt(b1, 120)}`),
          { parameter: field },
        ),
      ];
    }
    return [pass(name, { parameter: field })];
  },
};
