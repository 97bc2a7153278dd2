import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_pk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 random bytes are 43 base62 characters (log62(2^256) = 42.99). */
const KEY_BODY_LENGTH = 43;
const KEY_PATTERN = /^svc_pk_[0-9A-Za-z]{43}$/;

/** A fresh key: `svc_pk_` + 43 base62 characters carrying at least 256 bits of randomness. */
export function generateApiKey(): string {
  let body = '';
  // Rejection sampling keeps every character uniform (248 = 4 * 62).
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

/** Exact format check; whitespace, other prefixes and other lengths are not keys. */
export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

export function hashApiKey(key: string): string {
  // One-shot hash: a third of createHash's cost, on every authenticated request.
  return hash('sha256', key, 'hex');
}

/** What may be shown of a key after it was issued: prefix and first four characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

/** Constant-time equality of two strings (different lengths compare unequal, still in constant time). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
