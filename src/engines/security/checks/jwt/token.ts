/** JWT encoding for the JWT check: parse a compact token, build and sign forged ones. */
import { createHmac, randomBytes } from 'node:crypto';

export type Claims = Record<string, unknown>;

export interface ParsedJwt {
  raw: string;
  header: Claims;
  payload: Claims;
  /** The base64url header and payload segments as received ("<header>.<payload>"): what the signature covers. */
  signingInput: string;
  /** The signature segment, decoded. */
  signature: Buffer;
}

const COMPACT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/;

function jsonObject(segment: string): Claims | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Claims) : undefined;
  } catch {
    return undefined;
  }
}

/** A compact JWS whose header and payload are JSON objects, or undefined. */
export function parseJwt(token: string): ParsedJwt | undefined {
  const m = COMPACT.exec(token);
  if (!m) return undefined;
  const header = jsonObject(m[1]);
  const payload = jsonObject(m[2]);
  if (!header || !payload || typeof header.alg !== 'string') return undefined;
  return { raw: token, header, payload, signingInput: `${m[1]}.${m[2]}`, signature: Buffer.from(m[3], 'base64url') };
}

export const b64uJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Node's digest name for an HMAC JWS algorithm (HS256/384/512), else undefined. */
export function hmacDigest(alg: unknown): 'sha256' | 'sha384' | 'sha512' | undefined {
  return alg === 'HS256' ? 'sha256' : alg === 'HS384' ? 'sha384' : alg === 'HS512' ? 'sha512' : undefined;
}

/** True for algorithms signed with a private key whose public half a server may publish. */
export function isAsymmetric(alg: unknown): boolean {
  return typeof alg === 'string' && /^(RS|PS|ES)(256|384|512)$|^ES256K$|^EdDSA$/.test(alg);
}

/** `<header>.<payload>.<signature>` with the signature given as base64url text (may be empty). */
export function compact(header: Claims, payload: Claims, signature: string): string {
  return `${b64uJson(header)}.${b64uJson(payload)}.${signature}`;
}

/** An HS256/384/512 token signed with `key` (a secret, or the text of a public key for algorithm confusion). */
export function signHmac(header: Claims, payload: Claims, key: string | Buffer): string {
  const digest = hmacDigest(header.alg) ?? 'sha256';
  const input = `${b64uJson(header)}.${b64uJson(payload)}`;
  return `${input}.${createHmac(digest, key).update(input).digest('base64url')}`;
}

/** A signature of the right length that nobody signed. */
export function randomSignature(like: Buffer): string {
  return randomBytes(Math.max(like.length, 32)).toString('base64url');
}

/** A secret as evidence shows it: its first two characters (fewer for a short one, none under 3), then ****. */
export function maskFoundSecret(secret: string): string {
  const chars = [...secret];
  return `${chars.slice(0, Math.min(2, Math.floor(chars.length / 3))).join('')}****`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
