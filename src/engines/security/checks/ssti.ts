/** Server-side template injection: an arithmetic expression in several template syntaxes, evaluated by the template engine. */
import { payloadCheck, stringPoints } from './payload-check.js';

const PRODUCT = String(7331 * 1117);

export const ssti = payloadCheck({
  id: 'ssti',
  title: 'Server-side template injection',
  description:
    'Sends the expression 7331*1117 in Jinja/Twig/Handlebars ({{ }}), JSP/Freemarker (${ }), ERB (<%= %>) and Ruby/Pug (#{ }) syntax in each string parameter and body field, and reports when the product comes back evaluated.',
  risk: 'Client input is compiled as a template: an attacker runs code in the template engine, which in most engines means reading server secrets and executing commands on the server.',
  remediation:
    'Never build a template from client input: pass input to a fixed template as data (a context variable), use a logic-less or sandboxed template engine for user-authored templates, and keep auto-escaping on.',
  owasp: 'API8:2023',
  cwe: 'CWE-1336',
  references: [
    {
      title: 'OWASP WSTG: Testing for Server-side Template Injection',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/07-Input_Validation_Testing/18-Testing_for_Server-side_Template_Injection',
    },
    { title: 'PortSwigger: Server-side template injection', url: 'https://portswigger.net/web-security/server-side-template-injection' },
  ],
  severity: 'critical',
  label: 'Template injection in',
  points: stringPoints,
  nothingToTest: 'no string parameter or body field',
  payloads: () => ['{{7331*1117}}', '${7331*1117}', '<%= 7331*1117 %>', '#{7331*1117}'],
  judge: (res, base) => (res.body.includes(PRODUCT) && !base.body.includes(PRODUCT) ? `The expression 7331*1117 came back evaluated: ${PRODUCT}` : undefined),
});
