/** Flag values (after the config file was merged in): read one by type, and check it, as usage errors. */
import { UsageError } from '../usage-error.js';

/** Flag values after the config file was merged in (flag name -> value). */
export type Values = Record<string, string | boolean | string[] | undefined>;
export const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
export const list = (v: Values, k: string): string[] | undefined => (Array.isArray(v[k]) ? (v[k] as string[]) : undefined);

export function int(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
  return n;
}

export function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number of seconds`);
  return n * 1000;
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function checkHttpUrl(where: string, url: string): void {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
  } catch {
    throw new UsageError(`${where}: "${url}" is not an http(s) URL`);
  }
}
