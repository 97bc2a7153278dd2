/** API3:2023 Excessive data exposure: secrets (password hashes, keys, card numbers) in successful read responses. */
import { REDACTED } from '../../../domain/redaction.js';
import type { OperationCheck } from '../types.js';
import { fail, ok, pass } from './util.js';

const PATTERNS: [string, RegExp][] = [
  ['password hash', /\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$[^"\s]+|"(?:password_hash|passwordHash|hashed_password)"\s*:\s*"[^"]+"/],
  ['password field', /"(?:password|passwd|pwd)"\s*:\s*"[^"]+"/i],
  ['secret or key', /"(?:secret|api_?key|private_?key|client_secret|aws_secret_access_key)"\s*:\s*"[^"]{6,}"/i],
  ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['private key', /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/],
];

function luhn(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = Number(d[d.length - 1 - i]);
    if (i % 2) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
  }
  return sum % 10 === 0;
}

export function findExposure(body: string): string | undefined {
  for (const [what, re] of PATTERNS) {
    const m = re.exec(body);
    if (m) return `${what}: ${m[0].slice(0, 40)}`;
  }
  for (const m of body.matchAll(/\b(?:\d[ -]?){13,19}\b/g)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && /^[3456]/.test(digits) && luhn(digits)) return `card number: ${digits.slice(0, 4)}********`;
  }
  return undefined;
}

export const dataExposure: OperationCheck = {
  id: 'data-exposure',
  title: 'Excessive data exposure',
  description:
    'Reads each read operation\'s normal response and looks for secrets that an API should never return: password hashes and password fields, secret and API key fields, AWS access keys, private keys, and card numbers (Luhn-checked).',
  risk:
    'Secrets in responses reach every client and every log and cache on the way, even when the user interface hides them: password hashes can be cracked offline, keys give direct access to other systems, card numbers are a reportable breach.',
  remediation:
    'Return only the properties the client needs, chosen explicitly per response (a response schema or serializer with an allow-list), never whole database records; never return credentials or secrets, and mask card numbers.',
  owasp: 'API3:2023',
  cwe: 'CWE-213',
  references: [
    { title: 'OWASP Secrets Management Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Secrets_Management_Cheat_Sheet.html' },
    { title: 'OWASP Password Storage Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html' },
  ],
  scope: 'operation',
  applies: (op) => op.method === 'GET' || 'not a read (GET) operation',
  async run(ctx, op) {
    const res = await ctx.baseline(op);
    const hit = ok(res) ? findExposure(res.body) : undefined;
    const name = 'Sensitive data in response';
    if (!hit) return [pass(name)];
    // Quoted from the body as shown (the scan's own credentials redacted): the match cuts values at 40 characters.
    const shown = findExposure(ctx.shownBody(res)) ?? `${hit.split(':')[0]}: ${REDACTED}`;
    const severity = /card|private key|secret|AWS/.test(hit) ? 'critical' : 'high';
    // The proof is in the answer, whether or not the operation was addressed with an invented id.
    return [fail(name, severity, ctx.evidence(res, `Response carries ${shown}`), { invented: false })];
  },
};
