/** API3:2023 Excessive data exposure: secrets (password hashes, keys, card numbers) in successful read responses. */
import { REDACTED } from '../../../domain/redaction.js';
import type { CheckContext, CreatedResource, Operation, OperationCheck, TargetResponse } from '../types.js';
import { isSelfRead } from '../identities.js';
import { selfReadOperation } from './authz.js';
import { fail, ok, pass } from './util.js';

/** Each pattern's first capture group, when it has one, is the field's value (checked against the caller's own content). */
const PATTERNS: [string, RegExp][] = [
  ['password hash', /\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$[^"\s]+|"(?:password_hash|passwordHash|hashed_password)"\s*:\s*"([^"]+)"/g],
  ['password field', /"(?:password|passwd|pwd)"\s*:\s*"([^"]+)"/gi],
  ['secret or key', /"(?:secret|api_?key|private_?key|client_secret|aws_secret_access_key)"\s*:\s*"([^"]{6,})"/gi],
  ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/g],
  ['private key', /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/g],
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

/**
 * The first secret in `body`, described, or undefined. `isOwn` tells values the caller wrote itself (a
 * note's free-text field named `secret`, read back by its author): those are its own content, not exposure.
 */
export function findExposure(body: string, isOwn: (value: string) => boolean = () => false): string | undefined {
  for (const [what, re] of PATTERNS) {
    re.lastIndex = 0;
    for (const m of body.matchAll(re)) {
      // A password (or its hash) is never the caller's to read back, even its own: only free-text
      // fields named like a secret can be content the caller wrote.
      if (what === 'secret or key' && m[1] !== undefined && isOwn(m[1])) continue;
      return `${what}: ${m[0].slice(0, 40)}`;
    }
  }
  for (const m of body.matchAll(/\b(?:\d[ -]?){13,19}\b/g)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && /^[3456]/.test(digits) && luhn(digits) && !isOwn(m[0]))
      return `card number: ${digits.slice(0, 4)}********`;
  }
  return undefined;
}

const CARD_NUMBER_KEY = /^(?:card_?number|cc_?num(?:ber)?|credit_?card(?:_?number)?|pan|card|number|card_?no|primary_?account_?number)$/i;
const CARD_COMPANION_KEY =
  /^(?:cvc|cvv2?|csc|cvn|security_?code|card_?(?:cvc|cvv|security_?code)|exp(?:iry|iration)?(?:_?(?:date|month|year|mm|yy|yyyy))?|valid_?(?:thru|until))$/i;

/**
 * Card data recognised by meaning: an object holding a 12-19 digit number under a card-number name next
 * to a CVC or expiry field, whatever the number's checksum (test and masked-looking numbers included).
 */
export function findCardFields(value: unknown, isOwn: (value: string) => boolean = () => false, depth = 0): string | undefined {
  if (depth > 20 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const hit = findCardFields(item, isOwn, depth + 1);
      if (hit) return hit;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.some((k) => CARD_COMPANION_KEY.test(k) && record[k] !== null && record[k] !== '')) {
    for (const k of keys) {
      const v = record[k];
      if (!CARD_NUMBER_KEY.test(k) || (typeof v !== 'string' && typeof v !== 'number')) continue;
      const digits = String(v).replace(/[ -]/g, '');
      if (/^\d{12,19}$/.test(digits) && !isOwn(String(v))) {
        const companion = keys.find((c) => CARD_COMPANION_KEY.test(c))!;
        return `card data: "${k}" ${digits.slice(0, 4)}******** next to "${companion}"`;
      }
    }
  }
  for (const k of keys) {
    const hit = findCardFields(record[k], isOwn, depth + 1);
    if (hit) return hit;
  }
  return undefined;
}

/** Every primitive value in what `identity` created (as sent and as answered): the caller's own content. */
function ownContent(resources: CreatedResource[]): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (depth > 20 || v === null || v === undefined) return;
    if (typeof v === 'string' || typeof v === 'number') out.add(String(v));
    else if (Array.isArray(v)) for (const item of v) walk(item, depth + 1);
    else if (typeof v === 'object') for (const item of Object.values(v as Record<string, unknown>)) walk(item, depth + 1);
  };
  for (const r of resources) {
    walk(r.body, 0);
    for (const v of Object.values(r.values)) out.add(String(v));
  }
  return out;
}

const SECRET_NAMED = /^(?:secret|api_?key|private_?key|client_secret|aws_secret_access_key)$/i;

/** The first identity's own identifiers (its token's claims, its profile): what marks an object as its account. */
function ownIdentifiers(ctx: CheckContext): Set<string> {
  const self = selfReadOperation(ctx)?.key;
  const out = new Set<string>();
  for (const key of ['username', 'userid', 'user_id', 'email', 'login', 'sub'])
    for (const v of ctx.values(key, { identity: 'primary', owned: true }))
      if (v.identity === 'primary' && (v.from === 'token' || v.from === self)) out.add(String(v.value));
  return out;
}

/**
 * Values of secret-named free-text fields (`secret`, `api_key`...) that sit in the caller's own
 * account: the whole answer of a read of its own account (`/me`, `/profile`), or an object that
 * carries one of its own identifiers. Written by their owner and read back by it, they are its
 * content; the same fields in another user's object are the exposure.
 */
function ownAccountSecrets(ctx: CheckContext, op: Operation, res: TargetResponse): Set<string> {
  const out = new Set<string>();
  const mine = ownIdentifiers(ctx);
  const whole = isSelfRead(op);
  const walk = (node: unknown, own: boolean, depth: number) => {
    if (depth > 20 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, false, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const here =
      own || Object.entries(record).some(([k, v]) => !SECRET_NAMED.test(k) && (typeof v === 'string' || typeof v === 'number') && mine.has(String(v)));
    for (const [k, v] of Object.entries(record)) {
      if (here && SECRET_NAMED.test(k) && typeof v === 'string') out.add(v);
      else walk(v, here && !Array.isArray(v), depth + 1);
    }
  };
  walk(ctx.json(res), whole, 0);
  return out;
}

export const dataExposure: OperationCheck = {
  id: 'data-exposure',
  title: 'Excessive data exposure',
  description:
    "Reads each read operation's normal response and looks for secrets that an API should never return: password hashes and password fields, secret and API key fields, AWS access keys, private keys, card numbers (Luhn-checked) and card data by meaning (a card-number field next to a CVC or expiry field, whatever the checksum). Values the scan's own identity wrote itself (its own notes, read back) are its own content, not exposure.",
  risk: 'Secrets in responses reach every client and every log and cache on the way, even when the user interface hides them: password hashes can be cracked offline, keys give direct access to other systems, card numbers are a reportable breach.',
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
    const own = ownContent(ctx.created('primary'));
    const account = ok(res) ? ownAccountSecrets(ctx, op, res) : new Set<string>();
    const isOwn = (value: string) => own.has(value) || account.has(value);
    const hit = ok(res) ? (findExposure(res.body, isOwn) ?? findCardFields(ctx.json(res), isOwn)) : undefined;
    const name = 'Sensitive data in response';
    if (!hit) return [pass(name)];
    // Quoted from the body as shown (the scan's own credentials redacted): the match cuts values at 40 characters.
    const shown = hit.startsWith('card data') ? hit : (findExposure(ctx.shownBody(res), isOwn) ?? `${hit.split(':')[0]}: ${REDACTED}`);
    const severity = /card|private key|secret|AWS/.test(hit) ? 'critical' : 'high';
    // The proof is in the answer, whether or not the operation was addressed with an invented id.
    return [fail(name, severity, ctx.evidence(res, `Response carries ${shown}`), { invented: false })];
  },
};
