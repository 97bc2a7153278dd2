import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The master key: VIGIL_ENCRYPTION_KEY when set (required for several processes that do not share a data
 * dir), else `<data dir>/master.key`, created once with mode 0600.
 */
export function loadMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = join(dataDir, 'master.key');
  try {
    const existing = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (existing.length === 32) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    // Another process created it first: use theirs.
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}
