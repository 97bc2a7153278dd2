/**
 * Target credentials (auth, auth.secondary) as request headers, the one rule both engines use:
 * bearer and basic as `Authorization`, an API key as its own header, OAuth2 (client credentials or
 * password grant) as `Authorization: Bearer <access token>` fetched from the token endpoint, and
 * identities of type login as the credential their login yields (engines/login.ts).
 */
import { Redactor } from '../domain/redaction.js';
import type { TargetAuth } from '../domain/scan.js';
import { EngineFailure, targetBlocked } from './engine.js';
import { LoginFailure, anonymousCsrf, logIn, type CredentialRequest, type LoginCredential, type ResolveLoginOperation } from './login.js';

/** What the token fetch and logins need of an HTTP client: the engine's own, guarded in hosted scans. */
export type SendTokenRequest = CredentialRequest;

type TokenEntry = { token: string; expires: number; refreshToken?: string };

/** How many times one identity logs in (or asks for a token with its password) in one scan, at most: a target that keeps refusing is not hammered. */
export const MAX_LOGINS = 50;

/** Headers of the static credential types (bearer, header, basic); none for oauth2, login and none. */
export function staticAuthHeaders(a: TargetAuth): Record<string, string> {
  switch (a.type) {
    case 'bearer':
      return a.token ? { authorization: `Bearer ${a.token}` } : {};
    case 'header':
      return a.header_name && a.header_value !== undefined ? { [a.header_name.toLowerCase()]: a.header_value } : {};
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${a.username ?? ''}:${a.password ?? ''}`).toString('base64')}` };
    default:
      return {};
  }
}

/** One identity's logins: the credential in use, the login in flight, and the counts the results report. */
interface LoginState {
  current?: LoginCredential;
  pending?: Promise<LoginCredential>;
  /** The first login failed: the identity has no credential (not retried unless forced). */
  failure?: LoginFailure;
  logins: number;
}

/**
 * One scan's credential headers. Static ones are built once per credential set; OAuth2 tokens are
 * fetched once (concurrent callers share one fetch), cached until shortly before expiry, and
 * refetched (with the refresh token when the grant gave one) when `stale` names the cached token
 * (the target just refused it). Identities of type login log in the same way (engines/login.ts).
 * Fetched tokens and session cookies are added to the scan's redactor before anything can show or
 * log them.
 */
export class TargetCredentials {
  private readonly staticCache = new Map<TargetAuth, Record<string, string>>();
  private readonly tokenCache = new Map<TargetAuth, TokenEntry>();
  private readonly tokenFetches = new Map<TargetAuth, Promise<TokenEntry>>();
  private readonly logins = new Map<TargetAuth, LoginState>();
  private readonly refreshCounts = new Map<TargetAuth, number>();
  /** Set by the security engine once the spec is loaded: login.operation turned into its endpoint. */
  resolveLogin?: ResolveLoginOperation;

  constructor(
    private readonly send: SendTokenRequest,
    private readonly redactor: Redactor = new Redactor(),
    /** The scan's target URL: login paths are resolved against it. */
    private readonly targetUrl?: string,
  ) {}

  /**
   * Headers for a credential set (none without one). `stale` names a credential the target just
   * refused: an OAuth2 access token, or a login's generation (see generation()); a new one is obtained
   * unless that one was replaced already.
   */
  async headers(a: TargetAuth | undefined, stale?: string): Promise<Record<string, string>> {
    if (!a) return {};
    if (a.type === 'oauth2') return this.oauthHeaders(a, stale);
    if (a.type === 'login') return (await this.loginCredential(a, stale)).headers();
    return this.staticHeaders(a);
  }

  /** Headers of a static credential set, synchronously (the security engine's hot path). */
  staticHeaders(a: TargetAuth): Record<string, string> {
    let h = this.staticCache.get(a);
    if (!h) this.staticCache.set(a, (h = staticAuthHeaders(a)));
    return h;
  }

  /** How many logins (password grants included) and refresh-token grants an identity made. */
  counts(a: TargetAuth): { logins: number; refreshes: number } {
    return { logins: this.logins.get(a)?.logins ?? 0, refreshes: this.refreshCounts.get(a) ?? 0 };
  }

  /** Why the identity could not log in, once its login failed. */
  failure(a: TargetAuth): LoginFailure | undefined {
    return this.logins.get(a)?.failure;
  }

  /**
   * Logs in again now, whatever the current credential (the target refuses it, or the identity was
   * lost): throws the LoginFailure when the new login yields nothing.
   */
  async relogin(a: TargetAuth): Promise<void> {
    if (a.type === 'oauth2') {
      const cached = this.tokenCache.get(a);
      await this.oauthHeaders(a, cached?.token ?? '', true);
      return;
    }
    const st = this.loginState(a);
    st.failure = undefined;
    await this.loginCredential(a, st.current ? String(st.current.generation) : undefined, true);
  }

  /** Which login the current credential of an identity of type login came from (its generation), to name it as stale. */
  generation(a: TargetAuth): string | undefined {
    const g = this.logins.get(a)?.current?.generation;
    return g === undefined ? undefined : String(g);
  }

  private visitor?: { auth: TargetAuth; pending: Promise<LoginCredential | undefined> };

  /**
   * Headers of a request without credentials that changes something, on a target whose login has a
   * CSRF page: an anonymous session and its CSRF token (engines/login.ts anonymousCsrf), fetched once.
   */
  async anonymousHeaders(a: TargetAuth | undefined): Promise<Record<string, string>> {
    if (a?.type !== 'login' || a.login?.csrf_url === undefined) return {};
    if (this.visitor?.auth !== a)
      this.visitor = { auth: a, pending: anonymousCsrf(a, { send: this.send, targetUrl: this.targetUrl ?? '' }).catch(() => undefined) };
    return (await this.visitor.pending)?.headers() ?? {};
  }

  /** Cookies a target set on an answer to an anonymous request that carried the visitor's session. */
  absorbAnonymous(setCookie: string | undefined): void {
    if (!setCookie || !this.visitor) return;
    void this.visitor.pending.then((v) => v?.absorb(setCookie));
  }

  /** Cookies a target set on an answer to a request sent with a login identity's credential (a renewed session, a rotated CSRF token, a logout). */
  absorb(a: TargetAuth | undefined, setCookie: string | undefined): void {
    if (!setCookie || a?.type !== 'login') return;
    this.logins.get(a)?.current?.absorb(setCookie, this.redactor);
  }

  private loginState(a: TargetAuth): LoginState {
    let st = this.logins.get(a);
    if (!st) this.logins.set(a, (st = { logins: 0 }));
    return st;
  }

  private countLogin(a: TargetAuth): void {
    const st = this.loginState(a);
    if (st.logins >= MAX_LOGINS)
      throw new LoginFailure(`logged in ${MAX_LOGINS} times in this scan and the target kept refusing the credential: no more logins`);
    st.logins++;
  }

  private async loginCredential(a: TargetAuth, stale: string | undefined, force = false): Promise<LoginCredential> {
    const st = this.loginState(a);
    if (st.failure && !force) throw st.failure;
    const cur = st.current;
    // Cookies the target renews change the credential's headers, not its generation: only a new login does.
    if (cur && cur.expires > Date.now() && (stale === undefined || String(cur.generation) !== stale)) return cur;
    if (!st.pending) {
      st.pending = (async () => {
        this.countLogin(a);
        return logIn(a, { send: this.send, targetUrl: this.targetUrl ?? a.login?.url ?? '', redactor: this.redactor, resolve: this.resolveLogin });
      })()
        .then(
          (c) => {
            st.current = c;
            return c;
          },
          (err: unknown) => {
            if (err instanceof LoginFailure) st.failure = err;
            throw err;
          },
        )
        .finally(() => (st.pending = undefined));
    }
    return st.pending;
  }

  private async oauthHeaders(a: TargetAuth, stale?: string, force = false): Promise<Record<string, string>> {
    const cached = this.tokenCache.get(a);
    const st = this.logins.get(a);
    if (st?.failure && !force) throw st.failure;
    if (cached && cached.expires > Date.now() && cached.token !== stale && !(force && stale === undefined)) return { authorization: `Bearer ${cached.token}` };
    let pending = this.tokenFetches.get(a);
    if (!pending) {
      pending = this.fetchToken(a, cached?.refreshToken).finally(() => this.tokenFetches.delete(a));
      this.tokenFetches.set(a, pending);
    }
    return { authorization: `Bearer ${(await pending).token}` };
  }

  /**
   * A token from the token endpoint: the client credentials grant (client id and secret in a Basic
   * header), or the password grant (username and password; the client in a Basic header when it has
   * a secret, its id in the form when it has none); a refresh token the endpoint gave is used first.
   */
  private async fetchToken(a: TargetAuth, refreshToken?: string): Promise<TokenEntry> {
    if (!a.oauth2_token_url) throw new EngineFailure('AUTH_FAILED', 'auth.type oauth2 needs auth.oauth2_token_url.');
    const password = a.oauth2_grant_type === 'password';
    if (password && refreshToken) {
      try {
        const entry = await this.tokenGrant(a, { grant_type: 'refresh_token', refresh_token: refreshToken });
        this.refreshCounts.set(a, (this.refreshCounts.get(a) ?? 0) + 1);
        return entry;
      } catch (err) {
        // A refused refresh token: log in with the password again.
        if (!(err instanceof LoginFailure)) throw err;
      }
    }
    if (!password) return this.tokenGrant(a, { grant_type: 'client_credentials' });
    const st = this.loginState(a);
    try {
      this.countLogin(a);
      const entry = await this.tokenGrant(a, { grant_type: 'password', username: a.username ?? '', password: a.password ?? '' });
      st.failure = undefined;
      return entry;
    } catch (err) {
      if (err instanceof LoginFailure) st.failure = err;
      throw err;
    }
  }

  private async tokenGrant(a: TargetAuth, grant: Record<string, string>): Promise<TokenEntry> {
    const url = a.oauth2_token_url!;
    const form = new URLSearchParams(grant);
    if (a.oauth2_scope && grant.grant_type !== 'refresh_token') form.set('scope', a.oauth2_scope);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (grant.grant_type === 'client_credentials' || a.oauth2_client_secret !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(a.oauth2_client_id ?? '')}:${encodeURIComponent(a.oauth2_client_secret ?? '')}`).toString('base64')}`;
    } else if (a.oauth2_client_id !== undefined) {
      form.set('client_id', a.oauth2_client_id);
    }
    const res = await this.send({ method: 'POST', url, headers, body: form.toString(), followRedirects: true });
    if (res.status === 0 && res.error === 'blocked') throw targetBlocked(`The OAuth2 token URL ${new URL(url).host}`);
    let json: { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    if (res.status < 200 || res.status > 299 || typeof json?.access_token !== 'string') {
      if (grant.grant_type === 'client_credentials')
        throw new EngineFailure('AUTH_FAILED', `The OAuth2 token endpoint answered HTTP ${res.status || res.error} without an access_token.`);
      const why =
        typeof json?.error === 'string'
          ? ` (${json.error}${typeof json.error_description === 'string' ? `: ${this.redactor.redact(json.error_description).slice(0, 160)}` : ''})`
          : '';
      throw new LoginFailure(
        `the OAuth2 token endpoint (POST ${url}, grant_type=${grant.grant_type}) answered ${res.status || res.errorMessage || res.error} without an access_token${why}`,
      );
    }
    this.redactor.add(json.access_token);
    if (typeof json.refresh_token === 'string') this.redactor.add(json.refresh_token);
    const ttl = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    const entry: TokenEntry = {
      token: json.access_token,
      expires: Date.now() + Math.max(ttl - 30, 1) * 1000,
      // A refresh answer without a new refresh token keeps the old one usable.
      ...(typeof json.refresh_token === 'string' ? { refreshToken: json.refresh_token } : grant.refresh_token ? { refreshToken: grant.refresh_token } : {}),
    };
    this.tokenCache.set(a, entry);
    return entry;
  }
}
