/**
 * Public keys a target exposes (JWKS, OpenID discovery, PEM files), as the PEM texts a confused
 * verifier would use as an HMAC secret (algorithm confusion).
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { CheckContext } from '../../types.js';
import type { ParsedJwt } from './token.js';

export interface ExposedKey {
  /** Where it was found. */
  url: string;
  kid?: string;
  /** kty of the key: RSA, EC, OKP. */
  type: string;
  /** The texts a server may hold as its "key": SPKI PEM with and without the final newline, PKCS#1 for RSA. */
  secrets: string[];
}

/** At most this many keys are tried (a JWKS may list many; the token's kid picks one when it can). */
const MAX_KEYS = 4;
const PEM = /-----BEGIN (?:RSA )?PUBLIC KEY-----[\s\S]+?-----END (?:RSA )?PUBLIC KEY-----\n?|-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g;
/** Spec operations that look like they publish keys. */
const KEY_PATH = /jwks|\/certs\b|public[-_.]?key|\.pem$/i;

function pemTexts(key: KeyObject, original?: string): string[] {
  const spki = key.export({ type: 'spki', format: 'pem' }).toString();
  const texts = [spki, spki.trimEnd()];
  if (key.asymmetricKeyType === 'rsa') {
    const pkcs1 = key.export({ type: 'pkcs1', format: 'pem' }).toString();
    texts.push(pkcs1, pkcs1.trimEnd());
  }
  if (original) texts.push(original, original.trimEnd());
  return [...new Set(texts)];
}

function fromJwk(jwk: unknown, url: string): ExposedKey | undefined {
  if (!jwk || typeof jwk !== 'object') return undefined;
  const k = jwk as JsonWebKey & { kid?: unknown; use?: unknown };
  if (k.use === 'enc' || (k.kty !== 'RSA' && k.kty !== 'EC' && k.kty !== 'OKP')) return undefined;
  try {
    // Only the public members: a JWKS that (wrongly) carries private ones still yields its public key.
    const { kty, n, e, crv, x, y } = k;
    const key = createPublicKey({ key: { kty, n, e, crv, x, y } as JsonWebKey, format: 'jwk' });
    return { url, kid: typeof k.kid === 'string' ? k.kid : undefined, type: String(kty), secrets: pemTexts(key) };
  } catch {
    return undefined;
  }
}

function fromPemText(body: string, url: string): ExposedKey[] {
  const out: ExposedKey[] = [];
  for (const m of body.matchAll(PEM)) {
    try {
      const key = createPublicKey(m[0]);
      out.push({ url, type: key.asymmetricKeyType === 'rsa' ? 'RSA' : key.asymmetricKeyType === 'ec' ? 'EC' : 'OKP', secrets: pemTexts(key, m[0]) });
    } catch {
      // Not a usable key.
    }
  }
  return out;
}

/** Where keys are commonly published, relative to the target's origin, its mount path and the API base. */
function candidateUrls(ctx: CheckContext, jwt: ParsedJwt): string[] {
  const target = new URL(ctx.targetUrl);
  const roots = new Set([target.origin, ctx.targetUrl.replace(/\/+$/, ''), ctx.url('/').replace(/\/+$/, '')]);
  const urls: string[] = [];
  for (const root of roots) urls.push(`${root}/.well-known/jwks.json`, `${root}/jwks.json`, `${root}/.well-known/openid-configuration`);
  for (const op of ctx.model.operations) {
    if (op.method === 'GET' && !op.path.includes('{') && KEY_PATH.test(op.path)) urls.push(ctx.url(op.path));
  }
  // The issuer's discovery document, when the issuer is the target itself.
  const iss = jwt.payload.iss;
  if (typeof iss === 'string') {
    try {
      const u = new URL(iss);
      if (u.origin === target.origin) urls.push(`${iss.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    } catch {
      // Not a URL.
    }
  }
  return [...new Set(urls)];
}

async function fetchText(ctx: CheckContext, url: string): Promise<string | undefined> {
  const res = await ctx.send({
    method: 'GET',
    path: url,
    query: [],
    headers: { accept: 'application/json, application/jwk-set+json, application/x-pem-file, */*' },
    identity: 'none',
  });
  return res.status >= 200 && res.status < 300 ? res.body : undefined;
}

/** Keys found in one document: a JWKS, a single JWK, PEM text, or a discovery document naming its jwks_uri. */
async function keysAt(ctx: CheckContext, url: string, followDiscovery: boolean): Promise<ExposedKey[]> {
  const body = await fetchText(ctx, url);
  if (body === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return fromPemText(body, url);
  }
  if (!json || typeof json !== 'object') return [];
  const doc = json as { keys?: unknown; jwks_uri?: unknown; kty?: unknown };
  if (Array.isArray(doc.keys)) return doc.keys.map((k) => fromJwk(k, url)).filter((k): k is ExposedKey => !!k);
  if (typeof doc.kty === 'string') return [fromJwk(doc, url)].filter((k): k is ExposedKey => !!k);
  if (followDiscovery && typeof doc.jwks_uri === 'string' && /^https?:\/\//i.test(doc.jwks_uri)) return keysAt(ctx, doc.jwks_uri, false);
  return [];
}

/** Public keys the target exposes, the one named by the token's kid first; and where the check looked. */
export async function exposedPublicKeys(ctx: CheckContext, jwt: ParsedJwt): Promise<{ keys: ExposedKey[]; looked: string[] }> {
  const looked = candidateUrls(ctx, jwt);
  const found = (await Promise.all(looked.map((url) => keysAt(ctx, url, true)))).flat();
  const unique = new Map<string, ExposedKey>();
  for (const k of found) if (!unique.has(k.secrets[0])) unique.set(k.secrets[0], k);
  const kid = jwt.header.kid;
  const keys = [...unique.values()].sort((a, b) => Number(b.kid !== undefined && b.kid === kid) - Number(a.kid !== undefined && a.kid === kid));
  return { keys: keys.slice(0, MAX_KEYS), looked };
}
