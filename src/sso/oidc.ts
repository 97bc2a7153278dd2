/**
 * OpenID Connect sign-in with `openid-client` (certified relying-party library): issuer discovery,
 * authorization code flow with PKCE (S256), `state` and `nonce` checked, ID token signature and claims
 * (iss, aud, exp, iat, nonce) verified by the library. No token handling is written here.
 */
import * as client from 'openid-client';
import { blockedByGuard, guardedFetch } from '../net/guarded-fetch.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface OidcStart {
  url: string;
  /** What the callback must check, kept server-side with the sign-in request. */
  checks: { state: string; nonce: string; codeVerifier: string };
}

export interface OidcIdentity {
  subject: string;
  email: string | null;
  name: string | null;
  claims: Record<string, unknown>;
}

export class OidcSignInError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OidcSignInError';
  }
}

/** Discovered configurations per issuer + client, for a few minutes (discovery is a network round trip). */
const DISCOVERY_TTL_MS = 5 * 60 * 1000;

export class OidcClient {
  private readonly discovered = new Map<string, { at: number; config: Promise<client.Configuration> }>();

  private readonly fetch: client.CustomFetch;

  /**
   * `allowHttpIssuers`: accept http:// issuers (local development and tests only; VIGIL_SSO_ALLOW_HTTP).
   * `allowPrivate`: the issuer may be on a private network (self-hosted). Hosted, every request to the
   * issuer (discovery, keys, token) goes through the address guard, so a tenant's "issuer" cannot make
   * Vigil reach the hosting network.
   */
  constructor(
    private readonly allowHttpIssuers: boolean,
    allowPrivate: boolean,
  ) {
    this.fetch = guardedFetch(allowPrivate) as unknown as client.CustomFetch;
  }

  private configuration(settings: OidcSettings): Promise<client.Configuration> {
    const cacheKey = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]);
    const cached = this.discovered.get(cacheKey);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(settings.issuer);
    if (issuer.protocol !== 'https:' && !(this.allowHttpIssuers && issuer.protocol === 'http:')) {
      return Promise.reject(new OidcSignInError('The issuer must be an https:// address'));
    }
    const config = client
      .discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
        [client.customFetch]: this.fetch,
        ...(this.allowHttpIssuers ? { execute: [client.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        this.discovered.delete(cacheKey);
        if (blockedByGuard(error))
          throw new OidcSignInError(
            `Discovery at ${settings.issuer} refused: the issuer's address is not public, and this server does not connect to private networks`,
          );
        throw new OidcSignInError(`Discovery at ${settings.issuer} failed: ${(error as Error).message}`);
      });
    this.discovered.set(cacheKey, { at: Date.now(), config });
    return config;
  }

  /** Checks that the issuer can be discovered (when an admin saves the configuration). */
  async check(settings: OidcSettings): Promise<void> {
    await this.configuration(settings);
  }

  async start(settings: OidcSettings, redirectUri: string): Promise<OidcStart> {
    const config = await this.configuration(settings);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, checks: { state, nonce, codeVerifier } };
  }

  /** Exchanges the code and verifies the ID token; throws OidcSignInError for anything refused. */
  async finish(settings: OidcSettings, callbackUrl: URL, checks: OidcStart['checks']): Promise<OidcIdentity> {
    const config = await this.configuration(settings);
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims() as Record<string, unknown> | undefined;
    } catch (error) {
      const claim = claimOf(error);
      throw new OidcSignInError(
        `The identity provider's answer was refused: ${(error as Error).message}${typeof claim === 'string' ? ` (ID token claim "${claim}")` : ''}`,
      );
    }
    if (!claims || typeof claims.sub !== 'string') throw new OidcSignInError('The ID token has no subject');
    return {
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      name: typeof claims.name === 'string' ? claims.name : null,
      claims,
    };
  }
}

/** The ID token claim a refusal names, somewhere down its cause chain (openid-client wraps oauth4webapi's errors). */
function claimOf(error: unknown): unknown {
  for (let e = error as { cause?: unknown; claim?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth += 1) {
    if (typeof e.claim === 'string') return e.claim;
  }
  return undefined;
}
