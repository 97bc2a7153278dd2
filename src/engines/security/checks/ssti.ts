/** Server-side template injection: an arithmetic expression evaluated by the template engine. */
import { payloadCheck, stringPoints } from './payload-check.js';

export const ssti = payloadCheck({
  id: 'ssti',
  title: 'Server-side template injection',
  owasp: 'API8:2023',
  cwe: 'CWE-1336',
  severity: 'critical',
  label: 'Template injection',
  points: stringPoints,
  payloads: () => ['{{7331*1117}}', '${7331*1117}', '<%= 7331*1117 %>', '#{7331*1117}'],
  judge: (res, base) => (res.body.includes('8188727') && !base.body.includes('8188727') ? 'The expression 7331*1117 came back evaluated: 8188727' : undefined),
});
