/** Path traversal: ../ sequences reaching well-known system files. */
import { payloadCheck, stringPoints } from './payload-check.js';

const SIGS: [string, RegExp][] = [
  ['/etc/passwd', /root:[x*]?:0:0:/],
  ['win.ini', /\[fonts\][\s\S]*\[extensions\]/i],
];
export const pathTraversal = payloadCheck({
  id: 'path-traversal',
  title: 'Path traversal',
  owasp: 'API8:2023',
  cwe: 'CWE-22',
  severity: 'critical',
  label: 'Path traversal',
  points: stringPoints,
  payloads: () => ['../../../../../../etc/passwd', '..%2f..%2f..%2f..%2f..%2fetc%2fpasswd', '....//....//....//....//etc/passwd', '..\\..\\..\\..\\windows\\win.ini'],
  judge: (res, base) => {
    for (const [file, re] of SIGS) if (re.test(res.body) && !re.test(base.body)) return `Contents of ${file}: ${re.exec(res.body)![0]}`;
    return undefined;
  },
});
