/** A command line the CLI cannot act on; printed as one line, exit code 3. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate to a mistyped word, if close enough to be what was meant. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  const prefix = candidates.find((c) => word.length >= 3 && c.startsWith(word));
  if (bestD <= Math.max(1, Math.floor(word.length / 3))) return best;
  return prefix;
}

/** " (did you mean --fail-on?)" or "". */
export function didYouMean(word: string, candidates: readonly string[], dashes = ''): string {
  const c = closest(word, candidates);
  return c ? ` (did you mean ${dashes}${c}?)` : '';
}

/** node:util parseArgs, with its errors turned into UsageError and unknown flags given a suggestion. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2})([^'=]+)'/.exec(message);
    if (unknown) throw new UsageError(`unknown option ${unknown[1]}${unknown[2]}${didYouMean(unknown[2]!, Object.keys(options), '--')}`);
    throw new UsageError(message.split('. To specify')[0]!);
  }
}
