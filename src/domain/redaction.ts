/**
 * Credential redaction: a scan's secrets, replaced by `[redacted]` wherever they occur in text, in
 * every encoding a target may echo them back in (docs/security-checks.md, "Credentials in evidence"):
 *
 * - as is, JSON/JavaScript-escaped (`\"`, `\/`, `\\`, `\n`, `\uXXXX` in either case, surrogate
 *   pairs for astral characters, `\xXX`, escapes nested any number of times),
 * - URL-encoded (`%XX` of the UTF-8 bytes in either case, `+` for a space, latin-1 `%XX` and
 *   `%uXXXX` of `escape()`), URL-encoded twice or URL-encoded after JSON escaping, and HTML
 *   entities (`&quot;`, `&#34;`, `&#x22;`). Each character that encoders escape may be in any of
 *   those forms independently (mixed encodings match); letters, digits and `_.-`, which they leave
 *   alone, are matched as themselves, or all escaped (`\u0061...`, `%61...`, `&#97;...`),
 * - base64 and base64url, with or without padding, wrapped (lines of 40+ characters, raw or
 *   JSON-escaped breaks) or not, and embedded at any byte offset in a larger blob (the Basic
 *   `user:password` value, a base64'd JSON document or form body): of the secret itself and of
 *   its JSON-escaped and URL-encoded forms.
 *
 * Nothing of a secret is shown, not even a prefix. Secrets of any length are masked; a very
 * short one therefore masks every occurrence of those characters (the price of never showing it),
 * and inside a larger base64 blob only the part of the blob that carries at least
 * MIN_EMBEDDED_BASE64 characters of the secret's bits can be told apart from chance (the one or
 * two characters at either end of that part also carry bits of the neighbouring bytes and stay).
 */
import type { TargetAuth } from './scan.js';

export const REDACTED = '[redacted]';

/** 8 base64 characters are 48 bits: a random blob matches them by chance once in ~2.8e14 positions. */
const MIN_EMBEDDED_BASE64 = 8;

/** Every credential a scan's auth holds (both identities): what its redactor masks from the start. */
export function scanCredentials(auth: (TargetAuth & { secondary?: TargetAuth }) | undefined): string[] {
  const out: string[] = [];
  for (const a of [auth, auth?.secondary]) {
    if (!a) continue;
    for (const s of [a.token, a.header_value, a.password, a.oauth2_client_secret]) if (s) out.push(s);
    // The exact text each Basic header carries, so its whole value is masked even where the
    // password alone is too short to be found inside it.
    if (a.type === 'basic' && (a.username || a.password)) out.push(`${a.username ?? ''}:${a.password ?? ''}`);
    if (a.type === 'oauth2' && a.oauth2_client_secret) out.push(`${safeUriEncode(a.oauth2_client_id ?? '')}:${safeUriEncode(a.oauth2_client_secret)}`);
  }
  return out;
}

/** Masks a set of secrets that can grow (OAuth2 access tokens become known during the scan). */
export class Redactor {
  private readonly secrets = new Set<string>();
  private compiled: RegExp | null | undefined;
  private compiledWrapped: RegExp | null | undefined;
  private compiledTokens: RegExp | null | undefined;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string): void {
    if (!secret || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.compiled = this.compiledWrapped = this.compiledTokens = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** True when text holds a secret in any encoding. */
  test(text: string): boolean {
    const re = this.regex(text);
    if (!re) return false;
    re.lastIndex = 0;
    return re.test(text);
  }

  redact(text: string): string {
    const re = this.regex(text);
    if (!re || text.length === 0) return text;
    re.lastIndex = 0;
    return text.replace(re, REDACTED);
  }

  /** A copy of a JSON-like value with every string (keys included) redacted. */
  redactValue<T>(value: T, opts: { keys?: boolean } = {}): T {
    if (this.secrets.size === 0) return value;
    return this.walk(value, opts.keys !== false) as T;
  }

  /**
   * `keys: false` leaves property names alone: a document whose keys are its own schema (a scan
   * outcome) must keep them even when a short credential occurs inside one (`t` in `tasks`).
   */
  private walk(value: unknown, keys: boolean): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v, keys));
    if (value && typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[keys ? this.redact(k) : k] = this.walk(v, keys);
      return out;
    }
    return value;
  }

  /** Two compiled forms: without line breaks inside base64 (fast), and with them for text that has wrapped base64. */
  private regex(text: string): RegExp | null {
    if (this.compiled === undefined) this.compiled = this.compile(false);
    if (!this.compiled || !hasWrappedBase64(text)) return this.compiled;
    return (this.compiledWrapped ??= this.compile(true));
  }

  /**
   * Masks secrets in a text Vigil wrote itself (a scan's failure reason): a secret shorter than
   * SHORT_SECRET only where it stands as a whole token, so that the text stays readable and does not
   * reveal a one-letter secret by the letters masked out of its words. Everything else is masked as
   * `redact` does.
   */
  redactTokens(text: string): string {
    if (this.compiledTokens === undefined) this.compiledTokens = this.compile(false, true);
    const re = this.compiledTokens;
    if (!re || text.length === 0) return text;
    re.lastIndex = 0;
    return text.replace(re, REDACTED);
  }

  private compile(wrapped: boolean, byTokens = false): RegExp | null {
    const forms = [...this.secrets].flatMap((s) => secretForms(s, wrapped ? WRAP : '', byTokens));
    // At one position the first alternative that matches wins: longest forms first.
    forms.sort((a, b) => b.weight - a.weight);
    return forms.length ? new RegExp(forms.map((f) => f.source).join('|'), 'g') : null;
  }
}

interface Form {
  source: string;
  weight: number;
}

/**
 * Secrets shorter than this are masked only as whole tokens (not inside a longer run of letters and
 * digits): masking a one-letter client secret inside every word would mangle the text and reveal the
 * secret by which letters went missing ("The OAu[redacted]h2 ...").
 */
export const SHORT_SECRET = 8;
const bounded = (source: string) => `(?<![A-Za-z0-9])(?:${source})(?![A-Za-z0-9])`;

function secretForms(secret: string, wrap: string, byTokens = false): Form[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const uri = safeUriEncode(secret);
  const short = byTokens && secret.length < SHORT_SECRET;
  // Layered encodings (URL-encoded JSON, URL-encoded twice) are the forms of the once-encoded text.
  const forms = [...new Set([secret, json, uri])].map((text) => {
    const source = [...text].map(charPattern).join('');
    return { source: short ? bounded(source) : source, weight: text.length };
  });
  if ([...secret].some((c) => PLAIN.test(c))) {
    // Encoders that escape every character, letters and digits too.
    const everyChar = (pattern: (c: string) => string) => ({ source: [...secret].map(pattern).join(''), weight: secret.length });
    forms.push(
      everyChar((c) =>
        codeUnits(c)
          .map((u) => `\\\\+u${hex(u, 4)}`)
          .join(''),
      ),
      everyChar((c) => [...Buffer.from(c, 'utf8')].map((b) => `%${hex(b, 2)}`).join('')),
      everyChar((c) => `&#(?:0*${c.codePointAt(0)}|[xX]0*${hex(c.codePointAt(0)!, 1)});`),
    );
  }
  for (const variant of new Set([secret, json, uri, new URLSearchParams({ v: secret }).toString().slice(2)])) {
    const bytes = Buffer.from(variant, 'utf8');
    const whole = bytes.toString('base64').replace(/=+$/, '');
    const wholeSource = base64Pattern(whole, wrap) + PADDING;
    forms.push({ source: short ? bounded(wholeSource) : wholeSource, weight: whole.length });
    for (const offset of [0, 1, 2]) {
      const core = embeddedBase64(bytes, offset);
      if (core.length >= MIN_EMBEDDED_BASE64) forms.push({ source: base64Pattern(core, wrap), weight: core.length });
    }
  }
  return forms;
}

/**
 * The base64 characters fully determined by `bytes` when they start `offset` bytes into a larger
 * blob: the characters whose six bits all come from the secret (the ones at either end also carry
 * bits of the neighbouring unknown bytes).
 */
function embeddedBase64(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
  return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
}

/** Line breaks a wrapped base64 blob may have between two characters (raw or JSON-escaped). */
const WRAP = '(?:\\r?\\n|(?:\\\\r)?\\\\n)?';
const PADDING = '(?:=|%3[dD]|\\\\+u003[dD]){0,2}';

const NAMED_ENTITY: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const SHORT_ESCAPE: Record<string, string> = { '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v', '\0': '0' };

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Hex digits of n matching either case, e.g. 0x2f -> "2[fF]". */
function hex(n: number, width: number): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

function codeUnits(ch: string): number[] {
  return ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)];
}

/** Characters no JSON, URL or HTML encoder escapes (unless it escapes every character: see secretForms). */
const PLAIN = /^[A-Za-z0-9_.-]$/;

/**
 * Every form of one character (a code point: an astral character is one pattern), longest
 * first: backslash escapes (one or more backslashes: nested escaping), URL encodings, HTML
 * entities, then the character itself. Plain characters are themselves.
 */
function charPattern(ch: string): string {
  if (PLAIN.test(ch)) return escapeRegex(ch);
  const cp = ch.codePointAt(0)!;
  const units = codeUnits(ch);
  const escapes = [units.map((u, i) => `${i ? '\\\\+' : ''}u${hex(u, 4)}`).join('')];
  if (cp <= 0xff) escapes.push(`x${hex(cp, 2)}`);
  if (SHORT_ESCAPE[ch]) escapes.push(SHORT_ESCAPE[ch]);
  // Characters an escaper may precede with a backslash (JSON's \" and \/, JavaScript's \').
  if (ch === '"' || ch === '/' || ch === "'") escapes.push(escapeRegex(ch));
  const forms = [`\\\\+(?:${escapes.join('|')})`, [...Buffer.from(ch, 'utf8')].map((b) => `%${hex(b, 2)}`).join('')];
  if (cp >= 0x80 && cp <= 0xff) forms.push(`%${hex(cp, 2)}`);
  if (cp > 0xff) forms.push(units.map((u) => `%[uU]${hex(u, 4)}`).join(''));
  if (ch === ' ') forms.push('\\+');
  forms.push(`&(?:#(?:0*${cp}|[xX]0*${hex(cp, 1)})${NAMED_ENTITY[ch] ? `|${NAMED_ENTITY[ch]}` : ''});`);
  // A backslash itself: a run of them (raw, or escaped any number of times).
  forms.push(ch === '\\' ? '\\\\+' : escapeRegex(ch));
  return `(?:${forms.join('|')})`;
}

function base64Char(c: string): string {
  if (c === '+') return `(?:${charPattern('+')}|-)`;
  if (c === '/') return `(?:${charPattern('/')}|_)`;
  return c;
}

function base64Pattern(chars: string, wrap: string): string {
  return [...chars].map(base64Char).join(wrap);
}

const BASE64_LINE_END = /(?:[A-Za-z0-9+/_-]|\\\/|%2[bBfF]){40}(?:\r|\\r)?$/;

/** True when a line break (raw or JSON-escaped) follows 40 base64 characters: base64 wrapped as MIME and PEM write it. */
function hasWrappedBase64(text: string): boolean {
  for (const brk of ['\n', '\\n']) {
    for (let at = text.indexOf(brk, 40); at !== -1; at = text.indexOf(brk, at + 1)) {
      if (BASE64_LINE_END.test(text.slice(Math.max(0, at - 84), at))) return true;
    }
  }
  return false;
}

function safeUriEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate: what URLSearchParams would send instead.
    return new URLSearchParams({ v: text }).toString().slice(2).replace(/\+/g, '%20');
  }
}
