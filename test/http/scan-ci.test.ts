/**
 * CI metadata of a scan (`ci` in the start request): validated, stored, returned by the status, list and
 * results bodies and every report format; GET /scan/{id}/changes tells new, fixed and still-open findings
 * against the previous completed scan of the target and branch, with the tenant's suppressions, never
 * another tenant's scans.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineFailure, type ScanEngine } from '../../src/engines/engine.js';
import type { EngineOutcome, Task } from '../../src/domain/scan.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/** A security engine whose next run finds the checks in `plan.next` (one failed task per check on GET /items/{id}). */
function plannedEngine(plan: { next: string[] }): { security: ScanEngine; functional: ScanEngine } {
  const run = async (): Promise<EngineOutcome> => {
    if (plan.next.includes('!fail')) throw new EngineFailure('TARGET_UNREACHABLE', 'The target could not be reached.');
    const tasks: Task[] = plan.next.map((check, i) => ({
      task_id: `t${i}`,
      name: `${check} on GET /items/{id}`,
      status: 'failed',
      severity: 'high',
      check,
      endpoint: 'GET /items/{id}',
      evidence: 'GET /items/1 -> 200',
    }));
    tasks.push({ task_id: 'ok', name: 'passing check', status: 'passed', severity: 'info', check: 'ok', endpoint: 'GET /items' });
    return { tasks, agent_count: 1 };
  };
  return { security: { kind: 'security', run }, functional: { kind: 'functional', run } };
}

const CI = {
  provider: 'github',
  repository: 'acme/shop',
  repository_url: 'https://github.com/acme/shop',
  branch: 'refs/heads/feature/checkout',
  base_branch: 'main',
  commit: '9FCEB02D0AE598E95DC970B74767F19372D61AF8',
  pr: 42,
  run_url: 'https://github.com/acme/shop/actions/runs/123',
};
const STORED = { ...CI, branch: 'feature/checkout', commit: CI.commit.toLowerCase(), pr: '42' };

describe(`scan CI metadata and changes (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  let otherKey: string;
  const plan = { next: [] as string[] };
  const headers = () => ({ 'X-API-Key': key });

  beforeAll(async () => {
    server = await startServer({ engines: plannedEngine(plan) });
    key = (await server.createTenant('enterprise')).apiKey;
    otherKey = (await server.createTenant('enterprise')).apiKey;
  });
  afterAll(async () => server?.stop());

  async function scan(url: string, checks: string[], ci?: unknown, apiKey = key, status = 'completed'): Promise<string> {
    plan.next = checks;
    const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url, mode: 'security', ...(ci ? { ci } : {}) } });
    expect(res.status, res.text).toBe(202);
    const done = await waitForScan(server.api, apiKey, res.body.scan_id);
    expect(done.status).toBe(status);
    return res.body.scan_id as string;
  }

  it.each([
    ['a commit that is not hex', { commit: 'not-a-sha' }, 'ci.commit'],
    ['a commit shorter than 7', { commit: 'abc12' }, 'ci.commit'],
    ['a commit longer than 64', { commit: 'a'.repeat(65) }, 'ci.commit'],
    ['a pr of 0', { pr: 0 }, 'ci.pr'],
    ['a pr id with a space', { pr: '4 2' }, 'ci.pr'],
    ['a branch with ..', { branch: 'feature..x' }, 'ci.branch'],
    ['a branch ending in .lock', { branch: 'main.lock' }, 'ci.branch'],
    ['a branch with a space', { branch: 'my branch' }, 'ci.branch'],
    ['a base branch starting with -', { base_branch: '-main' }, 'ci.base_branch'],
    ['a run_url that is not http', { run_url: 'ftp://ci.test/run/1' }, 'ci.run_url'],
    ['an unknown field', { sha: 'abcdef1' }, 'ci'],
  ])('refuses %s with 422 VALIDATION_ERROR naming the field', async (_what, ci, field) => {
    const res = await call(`${server.api}/scan`, { headers: headers(), json: { url: 'https://shop.test', ci } });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', status: 422 });
    expect(res.body.fields.map((f: { field: string }) => f.field).some((f: string) => f === field || f.startsWith(`${field}.`))).toBe(true);
  });

  it('stores the metadata and returns it in the status, list, results and every report format', async () => {
    const id = await scan('https://report.test', ['bola'], CI);
    const status = await call(`${server.api}/scan/${id}`, { headers: headers() });
    expect(status.body.ci).toEqual(STORED);

    const list = await call(`${server.api}/scans?target=${encodeURIComponent('https://report.test')}&branch=feature/checkout`, { headers: headers() });
    expect(list.body.scans.map((s: { scan_id: string }) => s.scan_id)).toEqual([id]);
    expect(list.body.scans[0].ci).toEqual(STORED);
    const otherBranch = await call(`${server.api}/scans?target=${encodeURIComponent('https://report.test')}&branch=main`, { headers: headers() });
    expect(otherBranch.body.total).toBe(0);

    const results = await call(`${server.api}/scan/${id}/results`, { headers: headers() });
    expect(results.body.ci).toEqual(STORED);
    const json = await call(`${server.api}/scan/${id}/export?format=json`, { headers: headers() });
    expect(JSON.parse(json.text).ci).toEqual(STORED);

    const csv = (await call(`${server.api}/scan/${id}/export?format=csv`, { headers: headers() })).text.split('\r\n');
    const columns = csv[0]!.split(',');
    const row = csv[1]!.split(',');
    expect(row[columns.indexOf('branch')]).toBe('feature/checkout');
    expect(row[columns.indexOf('commit')]).toBe(STORED.commit);
    expect(row[columns.indexOf('pull_request')]).toBe('42');

    const html = (await call(`${server.api}/scan/${id}/export?format=html`, { headers: headers() })).text;
    expect(html).toContain(
      '<div data-ci="pr"><dt>Pull request</dt><dd>#42 <span class="url mono muted">https://github.com/acme/shop/pull/42</span></dd></div>',
    );
    expect(html).toContain(
      `<div data-ci="commit"><dt>Commit</dt><dd class="mono">${STORED.commit} <span class="url mono muted">https://github.com/acme/shop/commit/${STORED.commit}</span></dd></div>`,
    );
    expect(html).toContain('<div data-ci="branch"><dt>Branch</dt><dd class="mono">feature/checkout (into main)</dd></div>');
    // The report still links only inside itself.
    expect(html).not.toMatch(/href="(https?|javascript):/);

    const sarif = JSON.parse((await call(`${server.api}/scan/${id}/reports/sarif`, { headers: headers() })).text);
    expect(sarif.runs[0].versionControlProvenance).toEqual([
      { repositoryUri: 'https://github.com/acme/shop', revisionId: STORED.commit, branch: 'feature/checkout' },
    ]);
    expect(sarif.runs[0].properties.ci).toEqual(STORED);

    const junit = (await call(`${server.api}/scan/${id}/reports/junit`, { headers: headers() })).text;
    expect(junit).toContain('<property name="vigil.ci.branch" value="feature/checkout"/>');
    expect(junit).toContain(`<property name="vigil.ci.commit" value="${STORED.commit}"/>`);
    expect(junit).toContain('<property name="vigil.ci.pr" value="42"/>');
  });

  it('the multipart upload takes ci as JSON text or dotted fields (what the CLI sends with a local spec file)', async () => {
    const spec = JSON.stringify({
      openapi: '3.0.0',
      info: { title: 'x', version: '1' },
      paths: { '/items': { get: { responses: { 200: { description: 'ok' } } } } },
    });
    const upload = async (fields: Array<[string, string]>) => {
      const form = new FormData();
      form.set('base_url', 'https://upload.test');
      for (const [name, value] of fields) form.append(name, value);
      form.set('spec_file', new Blob([spec]), 'openapi.json');
      const res = await fetch(`${server.api}/scan/upload`, { method: 'POST', headers: headers(), body: form });
      return { status: res.status, body: (await res.json()) as { scan_id: string; fields?: Array<{ field: string }> } };
    };
    const json = await upload([['ci', JSON.stringify(CI)]]);
    expect(json.status).toBe(202);
    expect((await call(`${server.api}/scan/${json.body.scan_id}`, { headers: headers() })).body.ci).toEqual(STORED);
    const dotted = await upload([
      ['ci.branch', 'main'],
      ['ci.pr', '12'],
    ]);
    expect(dotted.status).toBe(202);
    expect((await call(`${server.api}/scan/${dotted.body.scan_id}`, { headers: headers() })).body.ci).toEqual({ branch: 'main', pr: '12' });
    const bad = await upload([['ci.commit', 'xyz']]);
    expect(bad.status).toBe(422);
    expect(bad.body.fields?.map((f) => f.field)).toContain('ci.commit');
  });

  it('a scan without metadata has none in any body', async () => {
    const id = await scan('https://plain.test', []);
    expect((await call(`${server.api}/scan/${id}`, { headers: headers() })).body).not.toHaveProperty('ci');
    expect((await call(`${server.api}/scan/${id}/results`, { headers: headers() })).body).not.toHaveProperty('ci');
    const sarif = JSON.parse((await call(`${server.api}/scan/${id}/reports/sarif`, { headers: headers() })).text);
    expect(sarif.runs[0]).not.toHaveProperty('versionControlProvenance');
  });

  it('GET /scan/{id}/changes: new, fixed and still open against the previous scan of the target and branch, with suppressions marked', async () => {
    const target = 'https://changes.test';
    const fp = async (id: string, check: string) =>
      ((await call(`${server.api}/scan/${id}/results`, { headers: headers() })).body.tasks as Array<{ check: string; fingerprint?: string }>).find(
        (t) => t.check === check,
      )!.fingerprint!;
    const changes = async (id: string, apiKey = key) => call(`${server.api}/scan/${id}/changes`, { headers: { 'X-API-Key': apiKey } });
    const checks = (list: Array<{ check: string }>) => list.map((f) => f.check).sort();

    // Another tenant's scan of the same target on main is never compared with.
    await scan(target, ['x-other'], { branch: 'main' }, otherKey);
    const main = await scan(target, ['a', 'b'], { branch: 'main', commit: 'aaaaaaa' });
    const first = await changes(main);
    expect(first.status, first.text).toBe(200);
    expect(first.body.previous).toBeNull();
    expect(checks(first.body.new)).toEqual(['a', 'b']);

    // A branch's first scan is compared with its base branch.
    const feature1 = await scan(target, ['b', 'c'], { branch: 'feature/x', base_branch: 'main', commit: 'bbbbbbb' });
    const suppression = await call(`${server.api}/suppressions`, {
      headers: headers(),
      json: { fingerprint: await fp(feature1, 'b'), reason: 'Accepted (SEC-1)' },
    });
    expect(suppression.status, suppression.text).toBe(201);
    const second = await changes(feature1);
    expect(second.body).toMatchObject({
      scan_id: feature1,
      url: target,
      mode: 'security',
      branch: 'feature/x',
      commit: 'bbbbbbb',
      previous: { scan_id: main, branch: 'main', commit: 'aaaaaaa', basis: 'base_branch' },
    });
    expect(checks(second.body.new)).toEqual(['c']);
    expect(checks(second.body.fixed)).toEqual(['a']);
    expect(checks(second.body.still_open)).toEqual(['b']);
    expect(second.body.still_open[0].suppressed).toMatchObject({
      reason: 'Accepted (SEC-1)',
      source: 'server',
      suppression_id: suppression.body.suppression_id,
      author: suppression.body.author,
    });
    expect(second.body.new[0]).not.toHaveProperty('suppressed');
    expect(second.body.counts).toEqual({ new: 1, fixed: 1, still_open: 1, suppressed: 1 });

    // A later scan on main does not change what the branch compares with: its own previous scan.
    await scan(target, ['a'], { branch: 'main' });
    const feature2 = await scan(target, ['c', 'd'], { branch: 'feature/x', base_branch: 'main' });
    const third = await changes(feature2);
    expect(third.body.previous).toMatchObject({ scan_id: feature1, basis: 'same_branch' });
    expect(checks(third.body.new)).toEqual(['d']);
    expect(checks(third.body.fixed)).toEqual(['b']);
    expect(third.body.fixed[0].suppressed).toMatchObject({ suppression_id: suppression.body.suppression_id });
    expect(checks(third.body.still_open)).toEqual(['c']);

    // A branch without earlier scans and without a base branch: the target's latest scan on any branch.
    const lone = await scan(target, ['d'], { branch: 'hotfix/y' });
    expect((await changes(lone)).body.previous).toMatchObject({ scan_id: feature2, basis: 'target' });

    // Another tenant cannot read the changes of this tenant's scan.
    expect((await changes(feature2, otherKey)).status).toBe(404);

    // A failed scan has no changes (409), and is never the previous scan of another.
    const failed = await scan(target, ['!fail'], { branch: 'hotfix/y' }, key, 'failed');
    expect((await changes(failed)).body).toMatchObject({ error: 'SCAN_NOT_COMPLETE', status: 409 });
    const after = await scan(target, ['d'], { branch: 'hotfix/y' });
    expect((await changes(after)).body.previous).toMatchObject({ scan_id: lone, basis: 'same_branch' });
  });
});
