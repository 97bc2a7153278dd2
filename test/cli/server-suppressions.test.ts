/**
 * `vigil scan` against a real server with a server-side suppression: the finding it names does not fail
 * the gate, even with --fail-on info, and the SARIF, JUnit and JSON the CLI writes show it suppressed by
 * the server; a 12-character prefix in .vigil/ignore.yml suppresses another finding (source file).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { gateEngines } from './gate-engine.js';

describe(`vigil scan with server-side suppressions (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  let apiKey: string;

  beforeAll(async () => {
    server = await startServer({ engines: gateEngines() });
    ({ apiKey } = await server.createTenant('enterprise'));
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => server?.stop());

  async function vigil(args: string[], cwd: string) {
    const p = runVigil([...args, '--poll-interval', '0.1'], env, { cwd });
    const code = await p.exited;
    return { code, out: p.output() };
  }

  it('a server-side suppression and an ignore-file prefix keep findings from failing whatever --fail-on; every output shows them suppressed', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-server-suppress-'));
    const target = 'http://api.test/?findings=critical,high';
    const first = await vigil(['scan', target, '--fail-on', 'info', '--output', 'first.json'], cwd);
    expect(first.code, first.out).toBe(1);
    const tasks = JSON.parse(readFileSync(join(cwd, 'first.json'), 'utf8')).tasks as Array<{ check?: string; fingerprint?: string }>;
    const critical = tasks.find((t) => t.check === 'c-critical')!.fingerprint!;
    const high = tasks.find((t) => t.check === 'c-high')!.fingerprint!;
    expect(critical).toMatch(/^[0-9a-f]{32}$/);

    const created = await call(`${server.api}/suppressions`, {
      headers: { 'X-API-Key': apiKey },
      json: { fingerprint: critical.slice(0, 10), reason: 'Accepted in triage (SEC-7)' },
    });
    expect(created.status, created.text).toBe(201);
    mkdirSync(join(cwd, '.vigil'));
    writeFileSync(
      join(cwd, '.vigil', 'ignore.yml'),
      ['suppressions:', `  - fingerprint: ${high.slice(0, 12)}`, '    reason: "False positive (SEC-8)"', ''].join('\n'),
    );

    const second = await vigil(['scan', target, '--fail-on', 'info', '--output', 'out.sarif', '--output', 'out.xml', '--output', 'out.json'], cwd);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/Suppressed \(2, not failing\)/);
    expect(second.out).toContain(`server (${created.body.author})`);

    const sarif = JSON.parse(readFileSync(join(cwd, 'out.sarif'), 'utf8'));
    const byRule = (id: string) => sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === id);
    expect(byRule('c-critical').suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'Accepted in triage (SEC-7)', properties: { source: 'server', author: created.body.author } },
    ]);
    expect(byRule('c-high').suppressions).toEqual([{ kind: 'external', status: 'accepted', justification: 'False positive (SEC-8)' }]);

    const junit = readFileSync(join(cwd, 'out.xml'), 'utf8');
    expect(junit).toContain('<skipped message="suppressed: Accepted in triage (SEC-7)"');
    expect(junit).toContain('<skipped message="suppressed: False positive (SEC-8)"');
    expect(junit).not.toMatch(/<failure/);

    const json = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8')) as { tasks: Array<{ check?: string; suppressed?: unknown }> };
    expect(json.tasks.find((t) => t.check === 'c-critical')!.suppressed).toEqual({
      reason: 'Accepted in triage (SEC-7)',
      author: created.body.author,
      expires_at: null,
      source: 'server',
    });
    expect(json.tasks.find((t) => t.check === 'c-high')!.suppressed).toEqual({
      reason: 'False positive (SEC-8)',
      author: null,
      expires_at: null,
      source: 'file',
    });
  });
});
