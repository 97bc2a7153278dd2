/**
 * Identities that log in themselves (auth.type `login`, docs/scans.md "Identities that log in"): the
 * user name and password sent to the login operation, the credential taken from the answer (a JSON
 * pointer, a response header, or a cookie session), an optional CSRF token read from a cookie or
 * from an answer and sent back in the header the target expects.
 *
 * A login counts only when it yields a credential: an answer that is not 2xx/3xx, or a 200
 * `{"status":"fail"}` without the token, is a LoginFailure that says why. (Whether the credential
 * then works is the identity's verification, engines/security/identities.ts.)
 */
import type { Redactor } from '../domain/redaction.js';
import type { LoginSettings, TargetAuth } from '../domain/scan.js';
import { EngineFailure, targetBlocked } from './engine.js';

/** A request the login sends (through the scan's guarded client) and what it needs of the answer. */
export type CredentialRequest = (req: {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  followRedirects: boolean;
}) => Promise<{ status: number; headers: Record<string, string>; body: string; error?: string; errorMessage?: string }>;

/** Where and how the login is sent: from login.url, or the spec's operation (login.operation). */
export interface LoginEndpoint {
  method: string;
  url: string;
  format: 'json' | 'form';
  /** The operation's own field names, when the spec tells them. */
  usernameField?: string;
  passwordField?: string;
}

/** Turns login.operation into its endpoint (the security engine, once the spec is loaded); undefined: no such operation. */
export type ResolveLoginOperation = (operation: string) => LoginEndpoint | undefined;

/** A login (or token grant) that did not yield a credential: the identity cannot be used, and this says why. */
export class LoginFailure extends EngineFailure {
  constructor(reason: string) {
    super('AUTH_FAILED', reason);
    this.name = 'LoginFailure';
  }
}

/** Where a token is looked for when login.token_pointer, token_header and token_cookie are all absent. */
const TOKEN_POINTERS = [
  '/token',
  '/access_token',
  '/accessToken',
  '/key',
  '/auth_token',
  '/authToken',
  '/jwt',
  '/id_token',
  '/data/token',
  '/data/access_token',
  '/data/accessToken',
  '/data/key',
  '/result/token',
];
/** The token's usual names inside an envelope of the answer (`{"user": {"token"}}`, RealWorld and Rails APIs). */
const ENVELOPED_TOKEN_KEYS = ['token', 'access_token', 'accessToken', 'auth_token', 'authToken', 'jwt'];

/** Where a token is looked for: the usual pointers, then the usual names inside each object property of the answer. */
function tokenPointers(answer: unknown): string[] {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return TOKEN_POINTERS;
  const envelopes = Object.entries(answer as Record<string, unknown>).filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v));
  return [...TOKEN_POINTERS, ...envelopes.flatMap(([k]) => ENVELOPED_TOKEN_KEYS.map((t) => `/${pointerToken(k)}/${t}`))];
}

/**
 * A login field name is a plain name (`email`), or a JSON pointer (`/user/email`) for a body whose
 * fields sit in an envelope: nested in a JSON body, `user[email]` in a form or a query (Rails' way).
 */
function pointerParts(field: string): string[] {
  return field.startsWith('/')
    ? field
        .split('/')
        .slice(1)
        .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
    : [field];
}

function formKey(field: string): string {
  const [first, ...rest] = pointerParts(field);
  return `${first}${rest.map((k) => `[${k}]`).join('')}`;
}

function nestedFields(fields: [string, string][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of fields) {
    const parts = pointerParts(field);
    let node = out;
    for (const k of parts.slice(0, -1)) {
      const next = node[k];
      node = (next && typeof next === 'object' ? next : (node[k] = {})) as Record<string, unknown>;
    }
    node[parts.at(-1)!] = value;
  }
  return out;
}

const TOKEN_HEADERS = ['authorization', 'x-auth-token', 'x-access-token', 'access-token', 'token'];

/** A property name as one reference token of a JSON pointer (RFC 6901: `~` and `/` escaped). */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON pointer (RFC 6901) into a parsed document. */
export function jsonPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let node = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(key)] : Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The cookies of a Set-Cookie header (the client joins repeated ones with ", "; an Expires date has a comma of its own). */
export function splitSetCookie(header: string | undefined): { name: string; value: string; cleared: boolean }[] {
  if (!header) return [];
  return header
    .split(/,(?=\s*[^;,=\s]+=)/)
    .map((line) => {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) return undefined;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const cleared =
        value === '' ||
        attrs.some((a) => {
          const [k, v = ''] = a.split('=');
          const key = k.trim().toLowerCase();
          return (key === 'max-age' && Number(v.trim()) <= 0) || (key === 'expires' && Date.parse(v.trim()) < Date.now());
        });
      return { name, value, cleared };
    })
    .filter((c): c is { name: string; value: string; cleared: boolean } => !!c && !!c.name);
}

function parseJson(body: string): unknown {
  try {
    return /^\s*[[{]/.test(body) ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
}

/** When a token stops being usable: its `exp` claim (a JWT) or the answer's expires_in, a margin before. */
function expiryOf(token: string | undefined, answer: unknown): number {
  const now = Date.now();
  let at: number | undefined;
  const parts = token?.split('.');
  if (parts?.length === 3) {
    try {
      const exp = (JSON.parse(Buffer.from(parts[1], 'base64url').toString()) as { exp?: unknown }).exp;
      if (typeof exp === 'number') at = exp * 1000;
    } catch {
      /* not a JWT */
    }
  }
  const expiresIn = jsonPointer(answer, '/expires_in') ?? jsonPointer(answer, '/data/expires_in');
  if (at === undefined && typeof expiresIn === 'number' && expiresIn > 0) at = now + expiresIn * 1000;
  if (at === undefined) return Infinity;
  // Renewed before it lapses: 30 s early, or a quarter of a short lifetime.
  return Math.max(now + 1000, at - Math.min(30_000, (at - now) / 4));
}

/** What an answer showed, for the reason a login failed: its first characters, the scan's secrets redacted. */
function shown(body: string, redactor: Redactor): string {
  const text = redactor.redact(body.replace(/\s+/g, ' ').trim());
  if (!text) return 'an empty body';
  return text.length > 160 ? `${text.slice(0, 160)}...` : text;
}

/** A logged-in identity: its credential and cookie jar, and the headers they make. */
let generations = 0;

export class LoginCredential {
  /** Which login it came from: each login makes a new one. */
  readonly generation = ++generations;
  /** Cookies kept: the session's (cookie sessions), or only the CSRF cookie (token logins). */
  readonly jar = new Map<string, string>();
  token?: string;
  csrf?: string;
  expires = Infinity;
  private cached?: Record<string, string>;

  constructor(
    private readonly settings: LoginSettings,
    /** 'cookie': a cookie session (every cookie the target sets is kept and sent back); 'token': a token in a header. */
    public mode: 'token' | 'cookie' = 'token',
  ) {}

  /** The request headers that carry it. */
  headers(): Record<string, string> {
    if (this.cached) return this.cached;
    const s = this.settings;
    const h: Record<string, string> = {};
    if (this.mode === 'token' && this.token !== undefined) {
      const scheme = s.send_scheme ?? 'Bearer';
      h[(s.send_header ?? 'authorization').toLowerCase()] = scheme ? `${scheme} ${this.token}` : this.token;
    }
    if (this.jar.size) h.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.csrf !== undefined) h[(s.csrf_header ?? 'x-csrf-token').toLowerCase()] = this.csrf;
    return (this.cached = h);
  }

  /** Whether a cookie the target sets belongs in the jar. */
  private keeps(name: string): boolean {
    return this.mode === 'cookie' || name === this.settings.csrf_cookie;
  }

  /**
   * Takes in the cookies of an answer to a request sent with it, as a browser would: a session the
   * target renews, a CSRF cookie it rotates, a session it ends (logout clears the cookie). True when
   * a cookie changed.
   */
  absorb(setCookie: string | undefined, redactor?: Redactor): boolean {
    let changed = false;
    for (const c of splitSetCookie(setCookie)) {
      if (!this.keeps(c.name)) continue;
      if (c.cleared) changed = this.jar.delete(c.name) || changed;
      else if (this.jar.get(c.name) !== c.value) {
        this.jar.set(c.name, c.value);
        // Session cookies are credentials; a CSRF token alone is not (and may change on every answer).
        if (c.name !== this.settings.csrf_cookie && c.value.length >= 16) redactor?.add(c.value);
        changed = true;
      }
      if (c.name === this.settings.csrf_cookie && !c.cleared) this.csrf = decodeURIComponentSafe(c.value);
    }
    if (changed) this.cached = undefined;
    return changed;
  }
}

function decodeURIComponentSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** A URL of the settings: absolute, or a path resolved against the target URL. */
function resolveUrl(url: string, targetUrl: string): string {
  return new URL(url, targetUrl).href;
}

/**
 * Logs in once: fetches the CSRF page when there is one, sends the credentials, and takes the
 * credential from the answer. Throws LoginFailure (with the reason) when the answer yields none.
 */
export async function logIn(
  auth: TargetAuth,
  deps: { send: CredentialRequest; targetUrl: string; redactor: Redactor; resolve?: ResolveLoginOperation },
): Promise<LoginCredential> {
  const s = auth.login ?? {};
  let endpoint: LoginEndpoint | undefined;
  if (s.url !== undefined) {
    endpoint = { method: s.method ?? 'POST', url: resolveUrl(s.url, deps.targetUrl), format: s.format ?? 'json' };
  } else if (s.operation !== undefined) {
    if (!deps.resolve)
      throw new LoginFailure(`the login operation ${s.operation} needs the API's specification, which this scan does not read (give login.url instead)`);
    endpoint = deps.resolve(s.operation);
    if (!endpoint) throw new LoginFailure(`the specification has no operation ${s.operation} (login.operation: an operationId or "METHOD /path")`);
    if (s.format) endpoint = { ...endpoint, format: s.format };
  } else {
    throw new LoginFailure('auth.login needs url or operation');
  }
  const what = `the login (${endpoint.method} ${endpoint.url})`;
  const cred = new LoginCredential(s, s.token_cookie !== undefined ? 'cookie' : 'token');
  // Until the answer tells, keep every cookie: an automatic login may turn out to be a cookie session.
  const jar = new LoginCredential(s, 'cookie');

  const send = async (req: Parameters<CredentialRequest>[0], label: string) => {
    const res = await deps.send(req);
    if (res.status === 0) {
      if (res.error === 'blocked') throw targetBlocked(`The login URL ${new URL(req.url).host}`);
      throw new LoginFailure(`${label} got no answer (${res.errorMessage ?? res.error ?? 'no response'})`);
    }
    return res;
  };

  if (s.csrf_url !== undefined) {
    const url = resolveUrl(s.csrf_url, deps.targetUrl);
    const res = await send({ method: 'GET', url, headers: { accept: 'application/json' }, followRedirects: false }, `the CSRF page (GET ${url})`);
    jar.absorb(res.headers['set-cookie']);
    if (s.csrf_pointer !== undefined) {
      const v = jsonPointer(parseJson(res.body), s.csrf_pointer);
      if (typeof v === 'string' && v) jar.csrf = v;
    }
  }

  const username = auth.username ?? '';
  const password = auth.password ?? '';
  const fields: [string, string][] = [
    [s.username_field ?? endpoint.usernameField ?? 'username', username],
    [s.password_field ?? endpoint.passwordField ?? 'password', password],
  ];
  const headers: Record<string, string> = { accept: 'application/json', ...jar.headers() };
  let body: string | undefined;
  let url = endpoint.url;
  if (endpoint.method === 'GET') {
    const u = new URL(url);
    for (const [k, v] of fields) u.searchParams.set(formKey(k), v);
    url = u.href;
  } else if (endpoint.format === 'form') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(fields.map(([k, v]) => [formKey(k), v])).toString();
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(nestedFields(fields));
  }
  const res = await send({ method: endpoint.method, url, headers, body, followRedirects: false }, what);
  if (res.status >= 400 || res.status < 200) throw new LoginFailure(`${what} answered ${res.status}: ${shown(res.body, deps.redactor)}`);
  jar.absorb(res.headers['set-cookie']);
  const answer = parseJson(res.body);

  // The credential, where the settings say (or where logins usually put it).
  let token: string | undefined;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined);
  const fromHeader = (name: string) => {
    const v = res.headers[name.toLowerCase()];
    // `Authorization: Bearer <t>` in the answer: the token is the last word.
    return v?.trim() ? v.trim().split(/\s+/).at(-1) : undefined;
  };
  if (s.token_pointer !== undefined) {
    token = str(jsonPointer(answer, s.token_pointer));
    if (token === undefined)
      throw new LoginFailure(
        `${what} answered ${res.status} without a token at ${s.token_pointer} (the answer: ${shown(res.body, deps.redactor)}): a login counts only when it yields a credential`,
      );
  } else if (s.token_header !== undefined) {
    token = fromHeader(s.token_header);
    if (token === undefined)
      throw new LoginFailure(
        `${what} answered ${res.status} without the header ${s.token_header} (the answer: ${shown(res.body, deps.redactor)}): a login counts only when it yields a credential`,
      );
  } else if (s.token_cookie !== undefined) {
    if (!jar.jar.has(s.token_cookie))
      throw new LoginFailure(
        `${what} answered ${res.status} without setting the cookie ${s.token_cookie} (the answer: ${shown(res.body, deps.redactor)}): a login counts only when it yields a credential`,
      );
  } else {
    token =
      tokenPointers(answer)
        .map((p) => str(jsonPointer(answer, p)))
        .find((t) => t !== undefined && t.length >= 8) ?? TOKEN_HEADERS.map(fromHeader).find((t) => t !== undefined && t.length >= 8);
    if (token === undefined) {
      if (jar.jar.size === 0 || (s.csrf_cookie !== undefined && [...jar.jar.keys()].every((k) => k === s.csrf_cookie))) {
        throw new LoginFailure(
          `${what} answered ${res.status} without a credential: no token (${TOKEN_POINTERS.slice(0, 4).join(', ')}... in the answer, or a token header) and no cookie set (the answer: ${shown(res.body, deps.redactor)}); a login counts only when it yields a credential (set login.token_pointer, token_header or token_cookie if it is elsewhere)`,
        );
      }
      cred.mode = 'cookie';
    }
  }
  for (const [k, v] of jar.jar) {
    if (cred.mode !== 'cookie' && k !== s.csrf_cookie) continue;
    cred.jar.set(k, v);
    // Session cookies are credentials (a CSRF token alone is not).
    if (k !== s.csrf_cookie && v.length >= 16) deps.redactor.add(v);
  }
  if (token !== undefined) {
    cred.token = token;
    deps.redactor.add(token);
  }
  cred.csrf = jar.csrf;
  if (s.csrf_cookie !== undefined && cred.jar.has(s.csrf_cookie)) cred.csrf = decodeURIComponentSafe(cred.jar.get(s.csrf_cookie)!);
  if (s.csrf_pointer !== undefined) {
    const v = str(jsonPointer(answer, s.csrf_pointer));
    if (v !== undefined) cred.csrf = v;
    else if (s.csrf_url !== undefined) {
      // The signed-in session has a token of its own (frameworks renew it at login): fetched again, as a SPA does.
      const page = resolveUrl(s.csrf_url, deps.targetUrl);
      const again = await send(
        { method: 'GET', url: page, headers: { accept: 'application/json', ...cred.headers() }, followRedirects: false },
        `the CSRF page (GET ${page})`,
      );
      cred.absorb(again.headers['set-cookie'], deps.redactor);
      const renewed = str(jsonPointer(parseJson(again.body), s.csrf_pointer));
      if (renewed !== undefined) cred.csrf = renewed;
    }
  }
  if ((s.csrf_cookie !== undefined || s.csrf_pointer !== undefined) && cred.csrf === undefined) {
    throw new LoginFailure(
      `${what} answered ${res.status} but no CSRF token was found (${s.csrf_cookie !== undefined ? `cookie ${s.csrf_cookie}` : `${s.csrf_pointer} in the answer${s.csrf_url ? ' or the CSRF page' : ''}`})`,
    );
  }
  cred.expires = expiryOf(token, answer);
  return cred;
}

/**
 * What a visitor who has not logged in holds on a target with CSRF protection (login.csrf_url): an
 * anonymous session and its CSRF token, read from the CSRF page. Requests without credentials that
 * change something carry it, so that they reach the code they test instead of the CSRF check.
 * Undefined when the page yields no token.
 */
export async function anonymousCsrf(auth: TargetAuth, deps: { send: CredentialRequest; targetUrl: string }): Promise<LoginCredential | undefined> {
  const s = auth.login;
  if (s?.csrf_url === undefined || (s.csrf_cookie === undefined && s.csrf_pointer === undefined)) return undefined;
  const res = await deps.send({ method: 'GET', url: resolveUrl(s.csrf_url, deps.targetUrl), headers: { accept: 'application/json' }, followRedirects: false });
  if (res.status < 200 || res.status >= 300) return undefined;
  const visitor = new LoginCredential(s, 'cookie');
  visitor.absorb(res.headers['set-cookie']);
  if (s.csrf_pointer !== undefined) {
    const v = jsonPointer(parseJson(res.body), s.csrf_pointer);
    if (typeof v === 'string' && v) visitor.csrf = v;
  }
  return visitor.csrf === undefined ? undefined : visitor;
}
