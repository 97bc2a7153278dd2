/** API3:2023 Excessive data exposure: secrets in responses. */
import { REDACTED } from '../../../domain/redaction.js';
import type { CheckDefinition } from '../types.js';
import { buildRequest } from '../synth.js';

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

export const dataExposure: CheckDefinition = {
  id: 'data-exposure',
  title: 'Excessive data exposure',
  owasp: 'API3:2023',
  cwe: 'CWE-213',
  scope: 'operation',
  applies: (op) => op.method === 'GET',
  async run(scan, op) {
    const res = await scan.send(buildRequest(op!));
    const hit = res.status >= 200 && res.status < 300 ? findExposure(res.body) : undefined;
    // Quoted from the body as shown (the scan's own credentials redacted): the match cuts values at 40 characters.
    const shown = hit && (findExposure(scan.shownBody(res)) ?? `${hit.split(':')[0]}: ${REDACTED}`);
    return [
      hit
        ? { status: 'failed', name: 'Sensitive data in response', severity: /card|private key|secret|AWS/.test(hit) ? 'critical' : 'high', evidence: scan.evidence(res, `Response carries ${shown}`) }
        : { status: 'passed', name: 'Sensitive data in response', severity: 'info' },
    ];
  },
};
