/** NoSQL operator injection: {"$ne": ...} / {"$gt": ""} in a JSON field turning a refused request into a success. */
import { payloadCheck } from './payload-check.js';
import { injectionPoints } from '../synth.js';
import { ok } from './util.js';

export const nosqlInjection = payloadCheck({
  id: 'nosql-injection',
  title: 'NoSQL operator injection',
  description:
    'Replaces each field of a JSON body with a query operator object ({"$ne": ...}, {"$gt": ""}) and reports when a request the baseline saw refused (a wrong password, say) now succeeds.',
  risk: 'Operators passed into a MongoDB-style query change its logic: an attacker logs in without a password, matches every record instead of one, or reads data through crafted filters.',
  remediation:
    'Validate the type of every input (a string field must be a string, not an object) before it reaches a query, e.g. with a schema validator; reject or strip keys starting with "$"; use the driver’s typed query builders and disable server-side JavaScript ($where).',
  owasp: 'API8:2023',
  cwe: 'CWE-943',
  references: [
    { title: 'OWASP NoSQL Security Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/NoSQL_Security_Cheat_Sheet.html' },
    {
      title: 'OWASP WSTG: Testing for NoSQL Injection',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/07-Input_Validation_Testing/05.6-Testing_for_NoSQL_Injection',
    },
  ],
  severity: 'critical',
  label: 'NoSQL operator injection in',
  points: (op) => (op.body && /json/i.test(op.body.contentType) ? injectionPoints(op).filter((p) => p.kind === 'body') : []),
  nothingToTest: 'no JSON body field',
  payloads: () => [{ $ne: 'vigil-nomatch' }, { $gt: '' }],
  judge: (res, base, payload, ctx) =>
    ok(res) && !ok(base)
      ? `Baseline answered ${base.status}; with ${JSON.stringify(payload)} the operation answered ${res.status}: ${ctx.excerpt(res, 200)}`
      : undefined,
});
