import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildClient, type Metafile, serverInputs } from '../../packages/cli/build.mjs';
import { CLIENT_DIR } from './pack.js';

/**
 * The client package's build (packages/cli/build.mjs) from the client's own entry, src/cli/main.ts:
 * no stub stands in for the server, so what the bundle holds is what the client imports. Its `vigil`
 * offers the client's commands only and sends a user who asks for a server command to where it lives.
 */
describe('client build: the client entry alone', () => {
  const outfile = join(mkdtempSync(join(tmpdir(), 'vigil-client-build-')), 'vigil.js');
  let metafile: Metafile;
  const vigil = (...args: string[]) => spawnSync(process.execPath, [outfile, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmpdir() } });

  beforeAll(async () => {
    ({ metafile } = await buildClient({ outfile }));
  });

  it('bundles the client entry and nothing of the server: no server folder of src/, no server package, no stub', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('src/cli/main.ts');
    expect(inputs).toContain('src/cli/commands/scan.ts');
    expect(serverInputs(metafile)).toEqual([]);
    expect(inputs.filter((i) => /^src\/(app|http|queue|store|engines|scans|billing|sso|events|net|llm|observability|operator)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => !i.startsWith('src/') && !i.includes('node_modules/'))).toEqual([]);
    expect(readFileSync(join(CLIENT_DIR, 'build.mjs'), 'utf8')).not.toMatch(/stub/i);
  });

  it("prints the client package's version, written in by the build (the bundle reads no package.json)", () => {
    const version = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')).version;
    const res = vigil('--version');
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe(version);
    expect(readFileSync(outfile, 'utf8')).not.toContain('package.json');
  });

  it('lists the client commands in --help and no server command', () => {
    const res = vigil('--help');
    expect(res.status, res.stderr).toBe(0);
    for (const command of ['scan', 'scans', 'baselines', 'init', 'usage', 'billing', 'live']) expect(res.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(res.stdout).not.toMatch(/\b(serve|tenants|keys)\b/);
    expect(res.stdout).toContain('docs/deploy.md');
  });

  it('answers a server command with where it lives, exit 3, and starts nothing', () => {
    for (const command of [['serve'], ['serve', '--role', 'api'], ['tenants', 'list'], ['keys', 'rotate', '--tenant', 'acme']]) {
      const res = vigil(...command);
      expect(res.status, command.join(' ')).toBe(3);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(`vigil: "vigil ${command[0]}" is a server command: it is not in this client. Run it where Vigil runs (see docs/deploy.md).\n`);
    }
  });
});
