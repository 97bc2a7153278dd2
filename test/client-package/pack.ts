/** Packs the client package (packages/cli) the way it is published: `npm pack`, whose prepack builds it. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLIENT_DIR = join(ROOT, 'packages/cli');

/** npm without the registry: everything here is local (the tarball has no dependencies to fetch). */
export const OFFLINE_NPM_ENV = { npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

export interface PackedClient {
  tarball: string;
  files: string[];
  /** Bytes of the tarball and of its unpacked files. */
  size: number;
  unpackedSize: number;
}

export function packClient(destination = mkdtempSync(join(tmpdir(), 'vigil-pack-'))): PackedClient {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: CLIENT_DIR,
    env: { ...process.env, ...OFFLINE_NPM_ENV },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // prepack's output may precede the JSON array.
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }>; size: number; unpackedSize: number }>;
  return { tarball: join(destination, info!.filename), files: info!.files.map((f) => f.path), size: info!.size, unpackedSize: info!.unpackedSize };
}
