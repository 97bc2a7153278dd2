/** A command line the CLI cannot act on; printed as one line, exit code 3. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

import { parseArgs, type ParseArgsConfig } from 'node:util';

/** node:util parseArgs, with its errors turned into UsageError. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
