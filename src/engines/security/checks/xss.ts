/** Reflected XSS: a marker with markup reflected unescaped in an HTML response. */
import { payloadCheck, stringPoints } from './payload-check.js';

const MARK = '<vigil-x7q onmouseover=alert(1)>';

export const xss = payloadCheck({
  id: 'xss',
  title: 'Reflected cross-site scripting',
  description: 'Sends an HTML tag with an event handler in each string parameter and body field, and reports when a text/html answer reflects it unescaped.',
  risk: 'A link or form crafted by an attacker runs script in the victim’s browser in the API’s origin: session theft, actions on the victim’s behalf, and reading what the victim can see.',
  remediation:
    'Encode output for its context (HTML-escape values placed in HTML, or use a template engine that auto-escapes); answer data as application/json rather than text/html; add a Content-Security-Policy and X-Content-Type-Options: nosniff.',
  owasp: 'API8:2023',
  cwe: 'CWE-79',
  references: [
    {
      title: 'OWASP Cross Site Scripting Prevention Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html',
    },
    {
      title: 'OWASP REST Security Cheat Sheet: security headers',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#security-headers',
    },
  ],
  severity: 'high',
  label: 'Reflected XSS in',
  points: stringPoints,
  nothingToTest: 'no string parameter or body field',
  payloads: () => [MARK],
  judge: (res, base) =>
    /text\/html/i.test(res.headers['content-type'] ?? '') && res.body.includes(MARK) && !base.body.includes(MARK)
      ? `Unescaped markup reflected in text/html: ${MARK}`
      : undefined,
});
