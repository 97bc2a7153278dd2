/**
 * Credential redaction (src/domain/redaction.ts): a target may echo a credential back in any
 * encoding; none of them may survive. Property-based over secrets with quotes, slashes,
 * backslashes, spaces, control characters and non-ASCII (astral-plane characters included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, scanCredentials } from '../../src/domain/redaction.js';
import { b64, b64url, forms, html, jsonAscii, leaks, lowerHex, formEncode, uEscape } from '../helpers/secret-forms.js';

// ---- Ways a target echoes a credential.

type Encoder = (s: string, noise: Buffer) => string;
const ENCODERS: Record<string, Encoder> = {
  raw: (s) => s,
  json: (s) => JSON.stringify({ echo: s }),
  'json, slashes escaped': (s) => JSON.stringify({ echo: s }).replace(/\//g, '\\/'),
  'json, ASCII only': (s) => `{"echo":"${jsonAscii(s)}"}`,
  'json, every character \\uXXXX': (s) => `"${uEscape(s, true)}"`,
  'json, every character \\uxxxx': (s) => `"${uEscape(s, false)}"`,
  'json inside a json error message': (s) => JSON.stringify({ error: JSON.stringify({ token: s }) }),
  'url-encoded': (s) => `?q=${encodeURIComponent(s)}`,
  'url-encoded, lower-case hex': (s) => `?q=${lowerHex(encodeURIComponent(s))}`,
  'form-encoded (+ for space)': (s) => `a=1&q=${formEncode(s)}`,
  'url-encoded twice': (s) => encodeURIComponent(encodeURIComponent(s)),
  'html-escaped': (s) => `<p>${html(s)}</p>`,
  base64: (s) => b64(s),
  'base64 without padding': (s) => b64(s).replace(/=+$/, ''),
  base64url: (s) => b64url(s),
  'Basic user:password': (s) => `Basic ${b64(`alice:${s}`)}`,
  'inside a larger base64 blob': (s, noise) => b64(Buffer.concat([noise, Buffer.from(s), noise.subarray(0, 2)])),
  'inside a larger base64url blob': (s, noise) => b64url(Buffer.concat([noise.subarray(1), Buffer.from(s), noise])),
  'base64 of a JSON document': (s) => b64(JSON.stringify({ user: 'alice', password: s })),
  'base64 of a form body': (s, noise) => b64url(`grant_type=x&n=${noise.length}&client_secret=${encodeURIComponent(s)}`),
  'base64 wrapped at 76 columns': (s, noise) => b64(Buffer.concat([noise, noise, noise, noise, Buffer.from(s), noise])).replace(/.{76}/g, '$&\r\n'),
  'base64 wrapped, in JSON': (s, noise) => JSON.stringify({ pem: b64(Buffer.concat([noise, noise, noise, noise, Buffer.from(s)])).replace(/.{64}/g, '$&\n') }),
};

const SPECIAL = ['"', '\\', '/', ' ', '+', '%', '&', '=', ':', "'", '<', '>', '?', '#', '\n', '\t', '\u0000', 'é', 'ß', '中', '😀', '𝄞', '\u2028'];
const char = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const secret = (minLength: number, maxLength = 24) => fc.array(char, { minLength, maxLength }).map((cs) => cs.join(''));
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...SPECIAL),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 60,
});
const noise = fc.uint8Array({ minLength: 1, maxLength: 40 }).map((a) => Buffer.from(a));
const SEP = '\u0007';

describe('credential redaction', () => {
  it('leaves no encoded form of a secret, whatever its characters and the encoding it was echoed in', () => {
    fc.assert(
      fc.property(secret(1), fc.constantFrom(...Object.keys(ENCODERS)), text, text, noise, (s, encoding, pre, post, n) => {
        const echoed = `${pre}${ENCODERS[encoding]!(s, n)}${post}`;
        const redacted = new Redactor([s]).redact(echoed);
        expect(leaks(redacted, s), `${encoding} of ${JSON.stringify(s)} in ${JSON.stringify(redacted)}`).toEqual([]);
      }),
      { numRuns: 500 },
    );
  }, 180_000);

  it('changes nothing but the secret: the text around it, and text without it, stay as they were', () => {
    fc.assert(
      fc.property(secret(8, 16), fc.constantFrom(...Object.keys(ENCODERS)), text, text, noise, (s, encoding, pre, post, n) => {
        fc.pre(!s.includes(SEP) && !forms(s).some((f) => `${pre}${SEP}${post}`.includes(f)));
        const redactor = new Redactor([s]);
        expect(redactor.redact(`${pre}${SEP}${post}`)).toBe(`${pre}${SEP}${post}`);
        const redacted = redactor.redact(`${pre}${SEP}${ENCODERS[encoding]!(s, n)}${SEP}${post}`);
        expect(redacted.startsWith(`${pre}${SEP}`) && redacted.endsWith(`${SEP}${post}`), JSON.stringify(redacted)).toBe(true);
        expect(redacted).toContain(REDACTED);
      }),
      { numRuns: 200 },
    );
  }, 180_000);

  it('masks several secrets at once, and secrets added later (fetched tokens)', () => {
    fc.assert(
      fc.property(fc.array(secret(4, 12), { minLength: 2, maxLength: 3 }), text, noise, (secrets, pre, n) => {
        const redactor = new Redactor(secrets.slice(1));
        redactor.add(secrets[0]!);
        const echoed = secrets.map((s, i) => Object.values(ENCODERS)[(i * 7) % Object.keys(ENCODERS).length]!(s, n)).join(pre);
        const redacted = redactor.redact(echoed);
        for (const s of secrets) expect(leaks(redacted, s)).toEqual([]);
      }),
      { numRuns: 80 },
    );
  }, 120_000);

  it('the cases of the report: \\" \\/ \\uXXXX, %XX and + forms, base64 inside the Basic header value', () => {
    const password = 'p"a/s\\s wörd😀';
    const r = new Redactor(scanCredentials({ type: 'basic', username: 'alice', password }));
    const echoes = [
      `{"password":"p\\"a\\/s\\\\s w\\u00f6rd\\ud83d\\ude00"}`,
      `{"password":"p\\u0022a\\u002Fs\\u005Cs w\\u00F6rd\\uD83D\\uDE00"}`,
      `password=p%22a%2Fs%5Cs+w%C3%B6rd%F0%9F%98%80`,
      `password=p%22a%2fs%5cs%20w%c3%b6rd%f0%9f%98%80`,
      `Authorization: Basic ${b64(`alice:${password}`)}`,
      `{"error":"bad credentials ${b64url(`alice:${password}`).replace(/=+$/, '')}"}`,
    ];
    for (const echo of echoes) {
      const out = r.redact(echo);
      expect(out, echo).toContain(REDACTED);
      expect(leaks(out, password), echo).toEqual([]);
    }
    expect(r.redact(`Authorization: Basic ${b64(`alice:${password}`)}`)).toBe(`Authorization: Basic ${REDACTED}`);
  });

  it('shows no part of a short secret, at the documented price: every occurrence goes', () => {
    const r = new Redactor(['an']);
    expect(r.redact('banana')).toBe(`b${REDACTED}${REDACTED}a`);
    expect(r.redact('%61%6E and \\u0061\\u006e')).toBe(`${REDACTED} ${REDACTED}d ${REDACTED}`);
    expect(r.redact(b64('an'))).toBe(REDACTED);
    // No prefix of a secret is kept, even of a long one.
    const long = 'k3Jv9-very-long-credential-value-0123456789';
    expect(new Redactor([long]).redact(`token=${long}`)).toBe(`token=${REDACTED}`);
  });

  it('masks a failure reason by token boundaries: a short client secret neither mangles nor reveals itself', () => {
    const reason = 'The OAuth2 token endpoint answered HTTP 401 without an access_token.';
    for (const secret of ['t', 'e', 'ken', '401', 'Auth2']) {
      const r = new Redactor([secret, `client:${secret}`]);
      // The strict masker takes the letters out of the words, which shows what the secret is.
      expect(r.redact(reason)).not.toBe(reason);
      expect(r.redactTokens(reason), secret).toBe(secret === '401' ? reason.replace('401', REDACTED) : reason);
    }
    // A short secret standing as a token, and any long one anywhere, is still masked.
    expect(new Redactor(['s3']).redactTokens('token s3 refused; x="s3"')).toBe(`token ${REDACTED} refused; x="${REDACTED}"`);
    const long = 'long-client-secret-value';
    expect(new Redactor([long]).redactTokens(`bad:${long}x`)).toBe(`bad:${REDACTED}x`);
  });

  it('collects every credential of both identities', () => {
    const creds = scanCredentials({
      type: 'bearer',
      token: 'primary-token',
      secondary: { type: 'basic', username: 'bob', password: 'bob-pass' },
    });
    expect(creds).toEqual(['primary-token', 'bob-pass', 'bob:bob-pass']);
    expect(
      scanCredentials({
        type: 'header',
        header_name: 'X-Key',
        header_value: 'hv',
        secondary: { type: 'oauth2', oauth2_client_id: 'id 1', oauth2_client_secret: 's/2', oauth2_token_url: 'https://x' },
      }),
    ).toEqual(['hv', 's/2', 'id%201:s%2F2']);
    expect(scanCredentials(undefined)).toEqual([]);
  });

  it('redacts values and keys of JSON-like objects, and leaves other values alone', () => {
    const r = new Redactor(['sekret-value']);
    const when = new Date(0);
    expect(r.redactValue({ a: ['x sekret-value y', 1, null, { 'sekret-value': true }], when })).toEqual({
      a: [`x ${REDACTED} y`, 1, null, { [REDACTED]: true }],
      when,
    });
    expect(new Redactor().redactValue({ a: 'sekret-value' })).toEqual({ a: 'sekret-value' });
    // A scan outcome keeps its schema's keys even when a short credential occurs in one.
    const short = new Redactor();
    short.add('t');
    expect(short.redactValue({ tasks: [{ name: 'at' }] }, { keys: false })).toEqual({ tasks: [{ name: `a${REDACTED}` }] });
  });
});
