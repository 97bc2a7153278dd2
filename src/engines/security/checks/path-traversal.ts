/** Path traversal: ../ sequences (plain, encoded, doubled, Windows) reaching well-known system files. */
import { payloadCheck, stringPoints } from './payload-check.js';

const SIGS: [string, RegExp][] = [
  ['/etc/passwd', /root:[x*]?:0:0:/],
  ['win.ini', /\[fonts\][\s\S]*\[extensions\]/i],
];

export const pathTraversal = payloadCheck({
  id: 'path-traversal',
  title: 'Path traversal',
  description:
    'Puts ../ sequences (plain, URL-encoded, doubled to survive one stripping pass, and Windows backslashes) into each string parameter and body field, and looks for the contents of /etc/passwd or win.ini in the answer.',
  risk: 'A file name from the client reaches the file system unchecked: an attacker reads any file the server process can read (configuration, keys, source code, credentials), and where the value is written to, may overwrite files.',
  remediation:
    'Do not build file paths from client input: map an identifier to a file on the server side, or allow-list file names; otherwise resolve the path (realpath) and reject it unless it stays inside the intended base directory; run the service with minimal file system rights.',
  owasp: 'API8:2023',
  cwe: 'CWE-22',
  references: [
    { title: 'OWASP: Path Traversal', url: 'https://owasp.org/www-community/attacks/Path_Traversal' },
    { title: 'OWASP Input Validation Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Input_Validation_Cheat_Sheet.html' },
  ],
  severity: 'critical',
  label: 'Path traversal in',
  points: stringPoints,
  nothingToTest: 'no string parameter or body field',
  payloads: () => [
    '../../../../../../etc/passwd',
    '..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
    '....//....//....//....//etc/passwd',
    '..\\..\\..\\..\\windows\\win.ini',
  ],
  judge: (res, base, _payload, ctx) => {
    for (const [file, re] of SIGS)
      if (re.test(res.body) && !re.test(base.body)) return `Contents of ${file}: ${re.exec(ctx.shownBody(res))?.[0] ?? 'its signature'}`;
    return undefined;
  },
});
