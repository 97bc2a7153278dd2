/**
 * An oracle of the encoded forms of a secret, written independently of src/domain/redaction.ts
 * (standard library only): what must never remain in redacted text, results, exports and logs.
 */
import { REDACTED } from '../../src/domain/redaction.js';

export const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
export const b64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');
export const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);
/** Every UTF-16 unit as \uXXXX (upper or lower-case hex). */
export const uEscape = (s: string, upper: boolean) =>
  Array.from({ length: s.length }, (_, i) => s.charCodeAt(i).toString(16).padStart(4, '0'))
    .map((h) => `\\u${upper ? h.toUpperCase() : h}`)
    .join('');
/** JSON as an ASCII-only encoder writes it (non-ASCII as \uXXXX, astral as a surrogate pair). */
export const jsonAscii = (s: string) => jsonInner(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
export const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
export const formEncode = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
export const html = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
const csv = (s: string) => s.replace(/"/g, '""');

/** The base64 characters fully determined by `bytes` placed `offset` bytes into a larger blob. */
function core(bytes: Buffer, offset: number): string {
  const blob = b64(Buffer.concat([Buffer.alloc(offset, 0xaa), bytes, Buffer.alloc(3, 0x55)]));
  return blob.slice(Math.ceil((offset * 4) / 3), Math.floor(((offset + bytes.length) * 4) / 3));
}

/** Every encoded form of a secret that must not remain (embedded base64 runs from 8 characters, the documented rule). */
export function forms(s: string): string[] {
  const json = jsonInner(s);
  const out = [
    s,
    json,
    json.replace(/\//g, '\\/'),
    jsonAscii(s),
    uEscape(s, true),
    uEscape(s, false),
    jsonInner(json),
    html(s),
    html(s).replace(/&#39;/g, '&#x27;'),
    xml(s),
    csv(s),
    csv(json),
  ];
  const uri = encodeURIComponent(s);
  out.push(uri, lowerHex(uri), formEncode(s), lowerHex(formEncode(s)), encodeURIComponent(uri));
  for (const variant of [s, json, uri]) {
    const bytes = Buffer.from(variant);
    out.push(b64(bytes), b64(bytes).replace(/=+$/, ''), b64url(bytes));
    for (const offset of [0, 1, 2]) {
      const c = core(bytes, offset);
      if (c.length >= 8) out.push(c, c.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...new Set(out)].filter((f) => f.length > 0);
}

/** The encoded forms of `secret` found in `text` outside the redaction marker (base64 runs also across line breaks). */
export function leaks(text: string, secret: string): string[] {
  const all = forms(secret);
  return text
    .split(REDACTED)
    .flatMap((seg) => all.filter((f) => seg.includes(f) || (/^[A-Za-z0-9+/_-]{8,}$/.test(f) && seg.replace(/\r?\n|\\r|\\n/g, '').includes(f))));
}

/**
 * Pieces of `secret` (any `length` consecutive characters of it as is, JSON-escaped or URL-encoded)
 * found in `text` outside the redaction marker: a cut or partly masked credential leaks too.
 */
export function fragments(text: string, secret: string, length = 10): string[] {
  const pieces = new Set<string>();
  for (const form of [secret, jsonInner(secret), jsonAscii(secret), encodeURIComponent(secret)]) {
    for (let i = 0; i + length <= form.length; i += 1) pieces.add(form.slice(i, i + length));
  }
  const found = new Set<string>();
  for (const seg of text.split(REDACTED)) for (const piece of pieces) if (seg.includes(piece)) found.add(piece);
  return [...found];
}
