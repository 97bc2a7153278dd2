/**
 * What the scan writes is recognisable and new: identifying fields of create and update bodies
 * (names, titles, usernames, emails, slugs) get values carrying the scan's marker, so a
 * registration never collides with the spec's example user and the owner can tell a changed
 * resource by its marker. Passwords get one strong value per scan, so a created account can log in.
 */
import type { JsonSchema, Operation } from './types.js';
import { words } from './phases.js';
import { ordinaryValue } from './privilege-names.js';

const IDENTIFYING_FIELD = /^(name|title|username|user_?name|login|handle|slug|email|e_?mail|mail|nickname|display_?name|label|.*_(name|title)|.*(Name|Title))$/;
/** `password`, `newPassword`, `pass`, `pwd`; not `passport_number`, `bypass` or `compass`. */
export function isPasswordField(name: string): boolean {
  return words(name).some((w) => /password|passwd|passphrase/.test(w) || w === 'pass' || w === 'pwd');
}
/** Operations that authenticate: their bodies must keep the credentials they were given. */
const AUTH_WORDS = new Set(['login', 'signin', 'token', 'tokens', 'auth', 'authenticate', 'session', 'sessions', 'oauth', 'logon', 'verify']);

export function isAuthOperation(op: Operation): boolean {
  return [...words(op.path), ...words(op.operationId ?? '')].some((w) => AUTH_WORDS.has(w));
}

/** The password the scan gives every account it creates. */
export function scanPassword(marker: string): string {
  return `Vigil-${marker.slice(-6)}-Pw1!`;
}

/** One spelling of `<marker>-<n>` fitted to the length limits: the counter is kept whole, the marker shortened. */
function fitted(local: string, n: string, isEmail: boolean, min: number, max: number): string {
  const domain = isEmail ? '@x.io' : '';
  let v = isEmail ? `${local}@example.com` : local;
  if (v.length > max) v = `v${n}${local.replace(/[^A-Za-z0-9]/g, '').slice(5)}`.slice(0, Math.max(max - domain.length, 1)) + domain;
  while (v.length < min) v = isEmail ? `x${v}` : `${v}x`;
  return v;
}

function uniqueText(field: string, schema: JsonSchema | undefined, marker: string, n: number): string | undefined {
  if (schema && Array.isArray(schema.enum)) return undefined;
  const isEmail = /mail/i.test(field) || schema?.format === 'email';
  const max = typeof schema?.maxLength === 'number' ? schema.maxLength : Infinity;
  const min = typeof schema?.minLength === 'number' ? schema.minLength : 0;
  // Where a pattern refuses the hyphenated form (`^[a-z0-9_]{3,20}$`), the same marker in plainer spellings.
  const letters = (s: string) => s.replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]);
  const alnum = marker.replace(/[^A-Za-z0-9]/g, '');
  const spellings: [string, string][] = [
    [`${marker}-${n}`, String(n)],
    [`${marker.replace(/-/g, '_')}_${n}`, String(n)],
    [`${alnum}${n}`, String(n)],
    [letters(`${alnum}x${n}`), letters(String(n))],
  ];
  let pattern: RegExp | undefined;
  if (typeof schema?.pattern === 'string') {
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      return undefined;
    }
  }
  for (const [local, counter] of spellings) {
    const v = fitted(local, counter, isEmail, min, max);
    if (v.length <= max && (!pattern || pattern.test(v))) return v;
  }
  return undefined;
}

const PHONE_FIELD = /^(phone|mobile|msisdn|tel|telephone|cell)(_?(number|no))?$|(Phone|_phone|Mobile|_mobile)(_?(number|no|Number))?$/i;

/**
 * A phone number of this scan's own, one per request (`+1555` then digits from the marker and the
 * counter), plain digits where the pattern refuses the `+`; undefined when the schema refuses both.
 */
function uniquePhone(schema: JsonSchema | undefined, marker: string, n: number): string | undefined {
  const fromMarker = String(Number.parseInt(marker.replace(/[^0-9a-f]/gi, '').slice(-8) || '0', 16) % 1_000_000).padStart(6, '0');
  const digits = `1555${fromMarker}${String(n % 1000).padStart(3, '0')}`;
  let pattern: RegExp | undefined;
  try {
    pattern = typeof schema?.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  } catch {
    return undefined;
  }
  const max = typeof schema?.maxLength === 'number' ? schema.maxLength : Infinity;
  return [`+${digits}`, digits].find((v) => v.length <= max && (!pattern || pattern.test(v)));
}

/**
 * A copy of `body` with identifying string fields made unique (`<marker>-<n>`; a phone number of the
 * scan's own per request) and password fields
 * set to the scan's password; privilege flags and roles (`is_staff`, `role: "admin"`) made ordinary
 * (`false`, an unprivileged role), so the scan's own writes never make an account privileged; fields
 * inside envelopes (`user.name`, `data.attributes.title`) too.
 */
export function uniqueBody(body: unknown, schema: JsonSchema | undefined, marker: string, n: number, depth = 0): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || depth > 6) return body;
  const props: Record<string, JsonSchema> = schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string' && isPasswordField(k) && !/confirm|old|current/i.test(k)) out[k] = scanPassword(marker);
    else if (typeof v === 'string' && IDENTIFYING_FIELD.test(k)) out[k] = uniqueText(k, props[k], marker, n) ?? v;
    else if (ordinaryValue(k, v, props[k]?.enum ?? props[k]?.items?.enum) !== undefined) out[k] = ordinaryValue(k, v, props[k]?.enum ?? props[k]?.items?.enum);
    else if (typeof v === 'string' && PHONE_FIELD.test(k) && !Array.isArray(props[k]?.enum)) out[k] = uniquePhone(props[k], marker, n) ?? v;
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = uniqueBody(v, props[k], marker, n, depth + 1);
    else out[k] = v;
  }
  // A confirmation field follows the password it confirms.
  for (const k of Object.keys(out)) if (/confirm/i.test(k) && isPasswordField(k) && typeof out[k] === 'string') out[k] = scanPassword(marker);
  return out;
}

/**
 * A copy of `body` where every free-text string field (no enum, no format other than email, no
 * pattern it would break) carries `tag`: what a write by one identity leaves behind, so a
 * read-back can tell it apart from the owner's own values.
 */
export function markedBody(body: unknown, schema: JsonSchema | undefined, tag: string): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const props: Record<string, JsonSchema> = schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v !== 'string' || isPasswordField(k)) {
      out[k] = v;
      continue;
    }
    const s = props[k];
    const format = s?.format;
    if (format && format !== 'email') {
      out[k] = v;
      continue;
    }
    out[k] = uniqueText(k, s, tag, 0) ?? v;
  }
  return out;
}
