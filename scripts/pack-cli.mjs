#!/usr/bin/env node
// Packs the client package (packages/cli) into dist/cli-package/vigil-cli.tgz with its SHA-256 in
// vigil-cli.tgz.sha256 ("<hex>  vigil-cli.tgz", as sha256sum -c reads it). The server serves both at
// GET /cli/vigil-cli.tgz and /cli/vigil-cli.tgz.sha256, so CI installs the client from the Vigil it talks
// to, never from a public registry name nobody here owns (docs/ci.md). Uses only Node built-ins and npm.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist/cli-package');
mkdirSync(out, { recursive: true });
const json = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
  cwd: join(root, 'packages/cli'),
  env: { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [info] = JSON.parse(json.slice(json.indexOf('[')));
const tarball = join(out, 'vigil-cli.tgz');
renameSync(join(out, info.filename), tarball);
const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
writeFileSync(`${tarball}.sha256`, `${sha256}  vigil-cli.tgz\n`);
process.stderr.write(`packed ${info.name}@${info.version}: dist/cli-package/vigil-cli.tgz (${info.size} bytes, sha256 ${sha256})\n`);
