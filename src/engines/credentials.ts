/**
 * Target credentials (auth, auth.secondary) as request headers, the one rule both engines use:
 * bearer and basic as `Authorization`, an API key as its own header, OAuth2 client credentials as
 * `Authorization: Bearer <access token>` fetched from the token endpoint.
 */
import { Redactor } from '../domain/redaction.js';
import type { TargetAuth } from '../domain/scan.js';
import { EngineFailure, targetBlocked } from './engine.js';

/** What the token fetch needs of an HTTP client: the engine's own, guarded in hosted scans. */
export type SendTokenRequest = (req: {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  followRedirects: true;
}) => Promise<{ status: number; body: string; error?: string }>;

type TokenEntry = { token: string; expires: number };

/** Headers of the static credential types (bearer, header, basic); none for oauth2 and none. */
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

/**
 * One scan's credential headers. Static ones are built once per credential set; OAuth2 tokens are
 * fetched once (concurrent callers share one fetch), cached until shortly before expiry, and
 * refetched when `stale` names the cached token (the target just refused it). Fetched tokens are
 * added to the scan's redactor before anything can show or log them.
 */
export class TargetCredentials {
  private readonly staticCache = new Map<TargetAuth, Record<string, string>>();
  private readonly tokenCache = new Map<TargetAuth, TokenEntry>();
  private readonly tokenFetches = new Map<TargetAuth, Promise<TokenEntry>>();

  constructor(
    private readonly send: SendTokenRequest,
    private readonly redactor: Redactor = new Redactor(),
  ) {}

  /** Headers for a credential set (none without one). */
  async headers(a: TargetAuth | undefined, stale?: string): Promise<Record<string, string>> {
    if (!a) return {};
    if (a.type === 'oauth2') return this.oauthHeaders(a, stale);
    return this.staticHeaders(a);
  }

  /** Headers of a static credential set, synchronously (the security engine's hot path). */
  staticHeaders(a: TargetAuth): Record<string, string> {
    let h = this.staticCache.get(a);
    if (!h) this.staticCache.set(a, (h = staticAuthHeaders(a)));
    return h;
  }

  private async oauthHeaders(a: TargetAuth, stale?: string): Promise<Record<string, string>> {
    const cached = this.tokenCache.get(a);
    if (cached && cached.expires > Date.now() && cached.token !== stale) return { authorization: `Bearer ${cached.token}` };
    let pending = this.tokenFetches.get(a);
    if (!pending) {
      pending = this.fetchToken(a).finally(() => this.tokenFetches.delete(a));
      this.tokenFetches.set(a, pending);
    }
    return { authorization: `Bearer ${(await pending).token}` };
  }

  /** The client credentials grant, with the client id and secret in a Basic header. */
  private async fetchToken(a: TargetAuth): Promise<TokenEntry> {
    if (!a.oauth2_token_url) throw new EngineFailure('AUTH_FAILED', 'auth.type oauth2 needs auth.oauth2_token_url.');
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (a.oauth2_scope) form.set('scope', a.oauth2_scope);
    const basic = Buffer.from(`${encodeURIComponent(a.oauth2_client_id ?? '')}:${encodeURIComponent(a.oauth2_client_secret ?? '')}`).toString('base64');
    const res = await this.send({
      method: 'POST',
      url: a.oauth2_token_url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: form.toString(),
      followRedirects: true,
    });
    if (res.status === 0 && res.error === 'blocked') throw targetBlocked(`The OAuth2 token URL ${new URL(a.oauth2_token_url).host}`);
    let json: { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } | undefined;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    if (res.status < 200 || res.status > 299 || typeof json?.access_token !== 'string') {
      throw new EngineFailure('AUTH_FAILED', `The OAuth2 token endpoint answered HTTP ${res.status || res.error} without an access_token.`);
    }
    this.redactor.add(json.access_token);
    if (typeof json.refresh_token === 'string') this.redactor.add(json.refresh_token);
    const ttl = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    const entry = { token: json.access_token, expires: Date.now() + Math.max(ttl - 30, 1) * 1000 };
    this.tokenCache.set(a, entry);
    return entry;
  }
}
