/**
 * What the scan writes is recognisable and new: identifying fields of create and update bodies
 * (names, titles, usernames, emails, slugs) get values carrying the scan's marker, so a
 * registration never collides with the spec's example user and the owner can tell a changed
 * resource by its marker. Passwords get one strong value per scan, so a created account can log in.
 */
import type { JsonSchema, Operation } from './types.js';
import { words } from './phases.js';

const IDENTIFYING_FIELD = /^(name|title|username|user_?name|login|handle|slug|email|e_?mail|mail|nickname|display_?name|label|.*_(name|title)|.*(Name|Title))$/;
const PASSWORD_FIELD = /pass(word)?|passwd|pwd/i;
/** Operations that authenticate: their bodies must keep the credentials they were given. */
const AUTH_WORDS = new Set(['login', 'signin', 'token', 'tokens', 'auth', 'authenticate', 'session', 'sessions', 'oauth', 'logon', 'verify']);

export function isAuthOperation(op: Operation): boolean {
  return [...words(op.path), ...words(op.operationId ?? '')].some((w) => AUTH_WORDS.has(w));
}

/** The password the scan gives every account it creates. */
export function scanPassword(marker: string): string {
  return `Vigil-${marker.slice(-6)}-Pw1!`;
}

function uniqueText(field: string, schema: JsonSchema | undefined, marker: string, n: number): string | undefined {
  if (schema && Array.isArray(schema.enum)) return undefined;
  const isEmail = /mail/i.test(field) || schema?.format === 'email';
  let v = isEmail ? `${marker}-${n}@example.com` : `${marker}-${n}`;
  const max = typeof schema?.maxLength === 'number' ? schema.maxLength : undefined;
  if (max !== undefined && v.length > max) v = isEmail ? `v${n}${marker.slice(-4)}@x.io`.slice(-max) : `v${n}${marker.slice(-6)}`.slice(0, max);
  if (typeof schema?.pattern === 'string') {
    try {
      if (!new RegExp(schema.pattern, 'u').test(v)) return undefined;
    } catch {
      return undefined;
    }
  }
  return v;
}

/**
 * A copy of `body` with identifying string fields made unique (`<marker>-<n>`) and password fields
 * set to the scan's password; fields nested one level deep (`user.name`) too.
 */
export function uniqueBody(body: unknown, schema: JsonSchema | undefined, marker: string, n: number, depth = 0): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || depth > 1) return body;
  const props: Record<string, JsonSchema> = schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string' && PASSWORD_FIELD.test(k) && !/confirm|old|current/i.test(k)) out[k] = scanPassword(marker);
    else if (typeof v === 'string' && IDENTIFYING_FIELD.test(k)) out[k] = uniqueText(k, props[k], marker, n) ?? v;
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = uniqueBody(v, props[k], marker, n, depth + 1);
    else out[k] = v;
  }
  // A confirmation field follows the password it confirms.
  for (const k of Object.keys(out)) if (/confirm/i.test(k) && PASSWORD_FIELD.test(k) && typeof out[k] === 'string') out[k] = scanPassword(marker);
  return out;
}
