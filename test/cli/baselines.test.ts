/**
 * `vigil baselines`: approve the pages a scan saw change (named, or all of them), list and delete
 * baselines, from a shell or CI job, against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContext } from '../../src/engines/engine.js';
import { runVigil } from '../helpers/process.js';
import { screenshotEngine } from '../helpers/screenshot-engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';

describe(`vigil baselines (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  const seen: EngineContext[] = [];

  async function scan(url: string): Promise<string> {
    const res = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': env.VIGIL_API_KEY! },
      json: { url, mode: 'functional', options: { pages: ['/', '/pricing', '/docs'] } },
    });
    expect(res.status, res.text).toBe(202);
    expect((await waitForScan(server.api, env.VIGIL_API_KEY!, res.body.scan_id)).status).toBe('completed');
    return res.body.scan_id;
  }
  const vigil = async (args: string[]) => {
    const run = runVigil(['baselines', ...args], env);
    return { code: await run.exited, output: run.output() };
  };

  beforeAll(async () => {
    server = await startServer({ engines: { functional: screenshotEngine(seen, {}), security: testEngine('security') } });
    const { apiKey } = await server.createTenant('pro');
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => server?.stop());

  it('approves a named page, then every page the scan saw change; lists and deletes them', async () => {
    const first = await scan('http://shop.test/');
    const named = await vigil(['approve', first, '--page', '/pricing', '--json']);
    expect(named.code, named.output).toBe(0);
    const approved = JSON.parse(named.output.slice(named.output.indexOf('{'))).approved;
    expect(approved.map((b: { page_key: string; scan_id: string }) => [b.page_key, b.scan_id])).toEqual([['/pricing', first]]);

    const changed = await scan('http://shop.test/?changed=/docs&changed=/');
    const all = await vigil(['approve', changed, '--all-changed']);
    expect(all.code, all.output).toBe(0);
    expect(all.output.match(/^approved \S+/gm)).toEqual(['approved /', 'approved /docs']);

    const listed = await vigil(['list', '--json']);
    const baselines = JSON.parse(listed.output.slice(listed.output.indexOf('{'))).baselines as Array<{
      baseline_id: string;
      page_key: string;
      scan_id: string;
    }>;
    expect(Object.fromEntries(baselines.map((b) => [b.page_key, b.scan_id]))).toEqual({ '/pricing': first, '/': changed, '/docs': changed });

    const gone = baselines.find((b) => b.page_key === '/docs')!;
    expect((await vigil(['delete', gone.baseline_id])).output).toMatch(`baseline ${gone.baseline_id} deleted`);
    const after = await call(`${server.api}/baselines`, { headers: { 'X-API-Key': env.VIGIL_API_KEY! } });
    expect(after.body.baselines.map((b: { page_key: string }) => b.page_key).sort()).toEqual(['/', '/pricing']);
  });

  it("a scan with no change approves nothing; an unknown page or scan is the server's answer, exit 3 like any bad input", async () => {
    const quiet = await scan('http://quiet.test/');
    const none = await vigil(['approve', quiet, '--all-changed']);
    expect(none.code).toBe(0);
    expect(none.output).toMatch(`scan ${quiet} saw no visual change: nothing to approve`);
    const unknownPage = await vigil(['approve', quiet, '--page', '/nowhere']);
    expect(unknownPage.code).toBe(3);
    expect(unknownPage.output).toMatch(/^error \w+: .*\/nowhere/m);
    const unknownScan = await vigil(['approve', 'scn_doesnotexist', '--page', '/']);
    expect(unknownScan.code).toBe(3);
    expect(unknownScan.output).toMatch(/^error NOT_FOUND: /m);
  });

  it('usage errors exit 3 and say what is missing', async () => {
    expect(await vigil(['approve', 'scn_x'])).toMatchObject({ code: 3, output: expect.stringMatching(/needs --page <page> \(repeatable\) or --all-changed/) });
    expect(await vigil(['approve', 'scn_x', '--page', '/', '--all-changed'])).toMatchObject({ code: 3, output: expect.stringMatching(/not both/) });
    expect(await vigil(['aprove'])).toMatchObject({
      code: 3,
      output: expect.stringMatching(/unknown baselines subcommand "aprove" \(did you mean approve\?\)/),
    });
    expect(await vigil(['list', '--page', 'two'])).toMatchObject({ code: 3, output: expect.stringMatching(/--page <number>/) });
  });
});
