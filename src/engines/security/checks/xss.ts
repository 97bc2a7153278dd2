/** Reflected XSS: a marker with markup reflected unescaped in an HTML response. */
import { payloadCheck, stringPoints } from './payload-check.js';

const MARK = '<vigil-x7q onmouseover=alert(1)>';
export const xss = payloadCheck({
  id: 'xss',
  title: 'Reflected cross-site scripting',
  owasp: 'API8:2023',
  cwe: 'CWE-79',
  severity: 'high',
  label: 'Reflected XSS',
  points: stringPoints,
  payloads: () => [MARK],
  judge: (res, base) => (/text\/html/i.test(res.headers['content-type'] ?? '') && res.body.includes(MARK) && !base.body.includes(MARK) ? `Unescaped markup reflected in text/html: ${MARK}` : undefined),
});
