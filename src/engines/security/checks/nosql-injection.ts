/** NoSQL operator injection: {"$ne": ...} / {"$gt": ""} turning a refused request into a success. */
import { payloadCheck } from './payload-check.js';
import { injectionPoints } from '../synth.js';
import { ok } from './util.js';

export const nosqlInjection = payloadCheck({
  id: 'nosql-injection',
  title: 'NoSQL operator injection',
  owasp: 'API8:2023',
  cwe: 'CWE-943',
  severity: 'critical',
  label: 'NoSQL operator injection',
  points: (op) => (op.body && /json/i.test(op.body.contentType) ? injectionPoints(op).filter((p) => p.kind === 'body') : []),
  payloads: () => [{ $ne: 'vigil-nomatch' }, { $gt: '' }],
  judge: (res, base, payload, scan) =>
    ok(res) && !ok(base) ? `Baseline answered ${base.status}; with ${JSON.stringify(payload)} the operation answered ${res.status}: ${scan.excerpt(res, 200)}` : undefined,
});
