/**
 * The project config file (vigil.config.yaml / .json, profiles, env:NAME secrets, schema errors that
 * name the field, flags over the file), vigil init, several outputs (a failed write is exit 5, SARIF
 * pointing at the local spec file), and the terminal (--version, did you mean, upgrade_url on 402).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProjectConfig } from '../../src/cli/config-file.js';
import { CONFIG_SCHEMA } from '../../src/cli/config-schema.js';
import { CONFIG_TEMPLATE } from '../../src/cli/commands/init.js';
import { runVigil } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';
import type { ScanInput } from '../../src/domain/scan.js';
import { gateEngines } from './gate-engine.js';

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

describe('config file loader', () => {
  it('the published schema is the one the loader validates with', () => {
    expect(JSON.parse(readFileSync(new URL('../../docs/vigil.config.schema.json', import.meta.url), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(CONFIG_SCHEMA)),
    );
  });

  it('vigil init writes a commented YAML that the loader accepts', async () => {
    const cwd = tmp('vigil-init-');
    const p = runVigil(['init'], {}, { cwd });
    expect(await p.exited).toBe(0);
    const text = readFileSync(join(cwd, 'vigil.config.yaml'), 'utf8');
    expect(text).toBe(CONFIG_TEMPLATE);
    expect(text).toMatch(/^# /m);
    const loaded = loadProjectConfig({ cwd, env: { ALICE_TOKEN: 'tok' }, strict: true, profile: 'nightly' });
    expect(loaded.config).toMatchObject({
      target: 'https://staging.example.com',
      mode: 'full',
      auth: { type: 'bearer', token: 'tok' },
      thresholds: { fail_on: 'medium', fail_on_a11y: 'serious' },
    });
    expect(parseYaml(text).profiles.pr.new_only).toBe(true);
    const again = runVigil(['init'], {}, { cwd });
    expect(await again.exited).toBe(3);
    expect(again.output()).toContain('already exists');
  });

  it('refuses literal secrets, names unset variables and the fields that fail the schema', () => {
    const cwd = tmp('vigil-cfg-');
    const write = (text: string) => writeFileSync(join(cwd, 'vigil.config.yaml'), text);
    write('auth:\n  type: bearer\n  token: abc123\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/auth\.token holds a literal secret; .*env:NAME/);
    write('auth2:\n  password: hunter2\n  username: bob\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/auth2\.password holds a literal secret/);
    write('auth:\n  token: env:ALICE_TOKEN\n');
    expect(() => loadProjectConfig({ cwd, env: {}, strict: true })).toThrow(/auth\.token refers to ALICE_TOKEN, which is not set/);
    expect(loadProjectConfig({ cwd, env: { ALICE_TOKEN: 'x' }, strict: true }).config.auth?.token).toBe('x');
    write('thresholds:\n  fail_on: severe\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/thresholds\.fail_on: must be one of critical, high, medium, low, info, none/);
    write('budgets:\n  - { metric: lcp }\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/budgets\.0: give max or min/);
    write('colour: true\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/colour: unknown field/);
    write('suppressions:\n  - check: bola\n');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/suppressions\.0\.reason: required/);
    write('api_key: svc_pk_literal\n');
    expect(loadProjectConfig({ cwd, env: {} }).warnings.join()).toMatch(/api_key is a literal key/);
    writeFileSync(join(cwd, 'vigil.config.json'), '{}');
    expect(() => loadProjectConfig({ cwd, env: {} })).toThrow(/both vigil\.config\.json and vigil\.config\.yaml exist/);
  });
});

describe(`vigil scan with a config file, outputs and terminal (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  let freeKey: string;
  const inputs: ScanInput[] = [];

  beforeAll(async () => {
    server = await startServer({ engines: gateEngines(inputs) });
    const { apiKey } = await server.createTenant('enterprise');
    ({ apiKey: freeKey } = await server.createTenant('free'));
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function vigil(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
    const p = runVigil(args, { ...env, ...opts.env }, { cwd: opts.cwd });
    const code = await p.exited;
    return { code, out: p.output() };
  }

  it('takes the target and options from vigil.config.yaml; flags override the file; profiles select option sets', async () => {
    const cwd = tmp('vigil-proj-');
    writeFileSync(
      join(cwd, 'vigil.config.yaml'),
      [
        'target: http://api.test/?findings=high',
        'poll_interval: 0.1',
        'thresholds:',
        '  fail_on: critical',
        'profiles:',
        '  strict:',
        '    thresholds: { fail_on: medium }',
        '  nightly:',
        '    target: http://shop.test/?lcp=3000',
        '    mode: functional',
        '    budgets: [{ metric: lcp, max: 2500 }]',
        '',
      ].join('\n'),
    );
    const [file, flag, strict, nightly, nightlyFlag, unknown] = await Promise.all([
      vigil(['scan'], { cwd }),
      vigil(['scan', '--fail-on', 'high'], { cwd }),
      vigil(['scan', '--profile', 'strict'], { cwd }),
      vigil(['scan', '--profile', 'nightly'], { cwd }),
      vigil(['scan', '--profile', 'nightly', '--budget', 'lcp=3500'], { cwd }),
      vigil(['scan', '--profile', 'weekly'], { cwd }),
    ]);
    expect(file.code, file.out).toBe(0);
    expect(file.out).toContain('fail on critical');
    expect(flag.code, flag.out).toBe(1);
    expect(strict.code, strict.out).toBe(1);
    expect(nightly.code, nightly.out).toBe(1);
    expect(nightly.out).toMatch(/lcp\s+3000\s+<= 2500\s+error/);
    expect(nightlyFlag.code, nightlyFlag.out).toBe(0);
    expect(unknown.code).toBe(3);
    expect(unknown.out).toContain('--profile weekly: no such profile in vigil.config.yaml (strict, nightly)');
    // --config names another file; a literal secret in it stops the run before anything is sent.
    const other = join(cwd, 'ci.json');
    writeFileSync(other, JSON.stringify({ target: 'http://api.test/', auth: { token: 'plain' } }));
    const refused = await vigil(['scan', '--config', other], { cwd });
    expect(refused.code).toBe(3);
    expect(refused.out).toMatch(/auth\.token holds a literal secret/);
  });

  it('every scan option reaches the engine from the file, env:NAME resolved, flags winning; notifications from the file', async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const hook = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const cwd = tmp('vigil-opts-');
    writeFileSync(
      join(cwd, 'vigil.config.yaml'),
      [
        'target: http://opts.test/',
        'mode: functional',
        'poll_interval: 0.1',
        'auth: { type: bearer, token: env:ALICE_TOKEN }',
        'auth2: { type: basic, username: bob, password: env:BOB_PASSWORD }',
        'concurrency: 2',
        'timeout: 12',
        'pages: [/, /cart]',
        'max_pages: 4',
        'excludes: [/admin]',
        'masks: ["#clock"]',
        'viewport: 1024x700',
        'device: mobile',
        'throttling: devtools',
        'budgets: [{ metric: lcp, max: 1000000 }, { metric: accessibility, min: 0, level: warn }]',
        'a11y_profile: wcag22aa',
        'thresholds: { diff_percent: 1.5 }',
        'notifications:',
        `  - { kind: webhook, url: "http://127.0.0.1:${(hook.address() as { port: number }).port}/hook", secret: env:HOOK_SECRET, headers: { X-Team: blue } }`,
        '',
      ].join('\n'),
    );
    try {
      const r = await vigil(['scan', '--concurrency', '3', '--json'], { cwd, env: { ALICE_TOKEN: 'alice-t', BOB_PASSWORD: 'bob-p', HOOK_SECRET: 'hs' } });
      expect(r.code, r.out).toBe(0);
      const input = inputs.find((i) => i.url === 'http://opts.test/')!;
      expect(input).toBeDefined();
      expect(input.mode).toBe('functional');
      expect(input.auth).toMatchObject({ type: 'bearer', token: 'alice-t', secondary: { type: 'basic', username: 'bob', password: 'bob-p' } });
      expect(input.options).toMatchObject({
        concurrency: 3,
        timeout: 12,
        max_pages: 4,
        exclude: ['/admin'],
        mask: ['#clock'],
        viewport: { width: 1024, height: 700 },
        device: 'mobile',
        throttling: 'devtools',
        accessibility_profile: 'wcag22aa',
        diff_threshold_percent: 1.5,
        fail_on: 'high',
      });
      expect(input.options.pages).toEqual(expect.arrayContaining(['/', '/cart'].map((p) => expect.stringContaining(p))));
      // Every budget goes to the server, accessibility ones too: it judges them (its reports and dashboard show them).
      expect(input.options.budgets).toEqual([
        { metric: 'lcp', max: 1000000, level: 'error' },
        { metric: 'accessibility', min: 0, level: 'warn' },
      ]);
      expect(received.length).toBeGreaterThan(0);
      expect(received[0]!.headers['x-team']).toBe('blue');
      expect(String(received[0]!.headers['x-vigil-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
      // The flag's identity replaces the file's whole.
      const flagged = await vigil(['scan', 'http://opts2.test/', '--username', 'carol', '--password', 'c-p', '--throttling', 'none'], {
        cwd,
        env: { ALICE_TOKEN: 'alice-t', BOB_PASSWORD: 'bob-p', HOOK_SECRET: 'hs' },
      });
      expect(flagged.code, flagged.out).toBe(0);
      expect(inputs.find((i) => i.url === 'http://opts2.test/')!.auth).toMatchObject({ type: 'basic', username: 'carol', password: 'c-p' });
      expect(inputs.find((i) => i.url === 'http://opts2.test/')!.options.throttling).toBe('none');
      const bad = await vigil(['scan', 'http://opts3.test/', '--throttling', 'fast'], {
        cwd,
        env: { ALICE_TOKEN: 'alice-t', BOB_PASSWORD: 'bob-p', HOOK_SECRET: 'hs' },
      });
      expect(bad.code, bad.out).toBe(3);
    } finally {
      hook.close();
    }
  });

  it('writes every --output (format by extension), SARIF pointing at the local spec file; a failed write is exit 5', async () => {
    const cwd = tmp('vigil-out-');
    const spec = [
      'openapi: 3.0.0',
      'info: { title: t, version: "1" }',
      'paths:',
      '  /items:',
      '    get: {}',
      '  /items/{id}:',
      '    get:',
      '      parameters: []',
      '',
    ].join('\n');
    writeFileSync(join(cwd, 'openapi.yaml'), spec);
    const outs = ['r.sarif', 'r.xml', 'r.html', 'r.json', 'r.csv'];
    const ok = await vigil(
      [
        'scan',
        'http://api.test/?findings=high',
        '--spec',
        'openapi.yaml',
        '--poll-interval',
        '0.1',
        '--fail-on',
        'none',
        ...outs.flatMap((o) => ['--output', o]),
      ],
      { cwd },
    );
    expect(ok.code, ok.out).toBe(0);
    for (const o of outs) expect(existsSync(join(cwd, o)), o).toBe(true);
    expect(ok.out).toContain(`reports   ${outs.join(', ')}`);
    const sarif = JSON.parse(readFileSync(join(cwd, 'r.sarif'), 'utf8'));
    const result = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'c-high');
    expect(result.locations[0].physicalLocation).toMatchObject({ artifactLocation: { uri: 'openapi.yaml' }, region: { startLine: 7 } }); // the operation's line: `get:` under /items/{id}
    expect(readFileSync(join(cwd, 'r.xml'), 'utf8')).toMatch(/<testsuites/);
    expect(readFileSync(join(cwd, 'r.html'), 'utf8')).toMatch(/<html/i);
    expect(JSON.parse(readFileSync(join(cwd, 'r.json'), 'utf8'))).toBeTruthy();

    const failed = await vigil(
      ['scan', 'http://api.test/?findings=high', '--poll-interval', '0.1', '--output', join(cwd, 'missing-dir', 'r.html'), '--output', 'ok.sarif'],
      { cwd },
    );
    expect(failed.code, failed.out).toBe(5);
    expect(failed.out).toMatch(/^error OUTPUT_FAILED: could not write .*missing-dir\/r\.html: /m);
    expect(failed.out).toContain('FAILED: 1 report(s) could not be written; and the gate failed');
    expect(existsSync(join(cwd, 'ok.sarif'))).toBe(true);

    const twoFormats = await vigil(['scan', 'http://api.test/', '--output', 'a.out', '--output', 'b.out', '--format', 'csv'], { cwd });
    expect(twoFormats.code).toBe(3);
    // Outputs from the config file.
    writeFileSync(join(cwd, 'vigil.config.json'), JSON.stringify({ outputs: ['cfg.sarif', 'cfg.xml'], poll_interval: 0.1 }));
    expect((await vigil(['scan', 'http://api.test/'], { cwd })).code).toBe(0);
    expect(existsSync(join(cwd, 'cfg.sarif')) && existsSync(join(cwd, 'cfg.xml'))).toBe(true);
  });

  it('--version, did-you-mean for commands, subcommands and flags, upgrade_url on a 402', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const [version, cmd, sub, flag, plan] = await Promise.all([
      vigil(['--version']),
      vigil(['scna', 'http://x.test']),
      vigil(['scans', 'lsit']),
      vigil(['scan', 'http://x.test', '--fial-on', 'high']),
      vigil(['scan', 'http://api.test/'], { env: { VIGIL_API_KEY: freeKey } }),
    ]);
    expect(version.code).toBe(0);
    expect(version.out.trim()).toBe(pkg.version);
    expect(cmd.code).toBe(3);
    expect(cmd.out).toContain('unknown command "scna" (did you mean scan?)');
    expect(sub.code).toBe(3);
    expect(sub.out).toContain('unknown scans subcommand "lsit" (did you mean list?)');
    expect(flag.code).toBe(3);
    expect(flag.out).toContain('unknown option --fial-on (did you mean --fail-on?)');
    expect(plan.code).toBe(4);
    expect(plan.out).toMatch(/^error FEATURE_NOT_AVAILABLE: .+\nupgrade: https?:\/\/\S+\/billing\?upgrade=\w+$/m);
  });
});
