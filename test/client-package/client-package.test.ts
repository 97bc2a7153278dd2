import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverInputs } from '../../packages/cli/build.mjs';
import { exitedAndDrained } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { CLIENT_DIR, OFFLINE_NPM_ENV, packClient, ROOT, type PackedClient } from './pack.js';

/**
 * The client package (packages/cli, published as @vigil/cli) as a team gets it: packed with
 * `npm pack`, then run with `npx` from an empty directory and installed into a clean project, both
 * without the registry (it has nothing to fetch). It runs scans against a real server, and it is
 * one package of a few hundred kB, not the server's dependency tree.
 */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    void exitedAndDrained(child).then((code) => resolve({ code, out, stdout }));
  });
}

function sizeOf(path: string): number {
  const s = lstatSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** Packages in a node_modules tree (scoped ones counted one by one), nested ones included. */
function packagesIn(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  const found: string[] = [];
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    const dirs = name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((n) => `${name}/${n}`) : [name];
    for (const dir of dirs) {
      found.push(dir);
      found.push(...packagesIn(join(nodeModules, dir, 'node_modules')));
    }
  }
  return found;
}

describe(`client package @vigil/cli (${storeLabel})`, () => {
  let client: PackedClient;
  let server: TestServer;
  let apiKey: string;
  const work = mkdtempSync(join(tmpdir(), 'vigil-client-'));
  const home = join(work, 'home');
  let env: Record<string, string>;

  beforeAll(async () => {
    client = packClient(join(work, 'pack'));
    server = await startServer();
    ({ apiKey } = await server.createTenant('enterprise'));
    mkdirSync(home);
    // A machine without this repository: a fresh home and npm cache, no registry, only the server's address and key.
    env = {
      PATH: process.env.PATH!,
      HOME: home,
      ...OFFLINE_NPM_ENV,
      npm_config_cache: join(home, '.npm'),
      VIGIL_URL: server.vigil.url!,
      VIGIL_API_KEY: apiKey,
    };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('packs one bundled file with no dependencies, the version of the release', () => {
    expect(client.files.sort()).toEqual(['README.md', 'dist/vigil.js', 'package.json']);
    const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) expect(manifest[field], field).toBeUndefined();
    expect(manifest.bin).toEqual({ vigil: 'dist/vigil.js' });
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    // Installing the repository itself brings hundreds of MB; the client is a few hundred kB, and docs/ci.md says how many.
    expect(client.unpackedSize).toBeLessThan(1_000_000);
    const quoted = /a (\d+) kB tarball,\s+(\d+) kB installed/.exec(readFileSync(join(ROOT, 'docs/ci.md'), 'utf8'));
    expect(quoted, 'docs/ci.md quotes the package size').not.toBeNull();
    const [tarball, installed] = [Number(quoted![1]) * 1000, Number(quoted![2]) * 1000];
    expect(Math.abs(client.size - tarball) / client.size, `tarball ${client.size} B, docs/ci.md says ${tarball} B`).toBeLessThan(0.1);
    expect(Math.abs(client.unpackedSize - installed) / client.unpackedSize, `installed ${client.unpackedSize} B, docs/ci.md says ${installed} B`).toBeLessThan(
      0.1,
    );
    expect(readFileSync(join(CLIENT_DIR, 'dist/vigil.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('bundles no server code: no store, engines, HTTP server, browser driver or payment SDK', () => {
    const meta = JSON.parse(readFileSync(join(CLIENT_DIR, 'dist/meta.json'), 'utf8'));
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain('src/cli/commands/scan.ts');
    expect(serverInputs(meta)).toEqual([]);
    expect(inputs.filter((i) => /node_modules\/(playwright-core|stripe|fastify|better-sqlite3|pg|kysely|ioredis)\//.test(i))).toEqual([]);
    // The guard itself notices server code.
    expect(
      serverInputs({
        inputs: {
          'src/cli/main.ts': {},
          'src/http/server.ts': {},
          'node_modules/stripe/esm/index.js': {},
          'node_modules/@fastify/swagger/index.js': {},
          'node_modules/yaml/dist/index.js': {},
        },
      }),
    ).toEqual(['src/http/server.ts', 'node_modules/stripe/esm/index.js', 'node_modules/@fastify/swagger/index.js']);
  });

  it('`npx @vigil/cli scan` from an empty directory runs a scan against the server and exits with its verdict', async () => {
    const clean = join(work, 'clean');
    mkdirSync(clean);
    const npx = (args: string[]) => run('npx', ['--yes', `--package=${client.tarball}`, 'vigil', ...args], clean, env);

    const red = await npx([
      'scan',
      'http://target.test/?outcome=findings&delay_ms=50',
      '--fail-on',
      'high',
      '--poll-interval',
      '0.1',
      '--output',
      'vigil.sarif',
    ]);
    expect(red.code, red.out).toBe(1);
    const sarif = JSON.parse(readFileSync(join(clean, 'vigil.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results.length).toBeGreaterThan(0);

    const green = await npx(['scan', 'http://target.test/?outcome=pass&delay_ms=50', '--fail-on', 'high', '--poll-interval', '0.1', '--output', 'report.html']);
    expect(green.code, green.out).toBe(0);
    expect(readFileSync(join(clean, 'report.html'), 'utf8')).toMatch(/<html/i);

    const failed = await npx(['scan', 'http://target.test/?outcome=fail&delay_ms=20', '--poll-interval', '0.1']);
    expect(failed.code, failed.out).toBe(2);

    // Only the reports it was asked for land in the directory (no node_modules, no lockfile).
    expect(readdirSync(clean).sort()).toEqual(['report.html', 'vigil.sarif']);
  }, 180_000);

  it('installed into a clean project: one package, no dependency tree; client commands work, server commands say where they live', async () => {
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-team-project', version: '1.0.0', private: true }));
    const install = await run('npm', ['install', '--no-audit', '--no-fund', client.tarball], project, env);
    expect(install.code, install.out).toBe(0);
    const nodeModules = join(project, 'node_modules');
    expect(packagesIn(nodeModules)).toEqual(['@vigil/cli']);
    expect(sizeOf(nodeModules)).toBeLessThan(1_000_000);

    const bin = join(nodeModules, '.bin', 'vigil');
    const list = await run(bin, ['scans', 'list', '--json'], project, env);
    expect(list.code, list.out).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveProperty('scans');

    const usage = await run(bin, ['usage', '--json'], project, env);
    expect(usage.code, usage.out).toBe(0);

    const refused = await run(bin, ['usage'], project, { ...env, VIGIL_API_KEY: 'svc_pk_wrong' });
    expect(refused.code, refused.out).toBe(4);

    for (const command of [['serve'], ['tenants', 'list'], ['keys', 'rotate', '--tenant', 'x']]) {
      const res = await run(bin, command, project, env);
      expect(res.code, res.out).toBe(3);
      expect(res.out).toContain(`"vigil ${command[0]}" is a server command`);
    }
  }, 180_000);
});
