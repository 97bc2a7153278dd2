import { randomBytes } from 'node:crypto';

/** Opaque, URL-safe identifiers with a type prefix, e.g. `scn_3kq...`. */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

export function nowIso(clock: () => number = Date.now): string {
  return new Date(clock()).toISOString();
}
