import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContext } from '../../src/engines/engine.js';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { screenshotEngine } from '../helpers/screenshot-engine.js';
import { testEngine } from '../helpers/test-engine.js';

const TARGET = 'http://pr-12.preview.example.test:3000/app';
const PAGES = ['/', '/pricing?plan=pro', { label: 'checkout', url: '/checkout/step-1?session=abc' }];

describe(`baselines API (${storeLabel})`, () => {
  let server: TestServer;
  const seen: EngineContext[] = [];
  const gate: { held?: Promise<void> } = {};
  let pro: { tenantId: string; apiKey: string };
  let other: { tenantId: string; apiKey: string };
  let free: { tenantId: string; apiKey: string };
  let scanId: string;

  const as = (apiKey: string) => ({ 'X-API-Key': apiKey });
  const approve = (apiKey: string, json: unknown) => call(`${server.api}/baselines/approve`, { method: 'POST', headers: as(apiKey), json });
  const list = (apiKey: string, query = '') => call(`${server.api}/baselines${query}`, { headers: as(apiKey) });
  /** A list without its signed links (their expiry moves with the clock). */
  const listed = async (apiKey: string) => (await list(apiKey)).body.baselines.map(({ screenshot: _, ...b }: Record<string, unknown>) => b);
  const remove = (apiKey: string, id: string) => call(`${server.api}/baselines/${id}`, { method: 'DELETE', headers: as(apiKey) });
  async function scan(apiKey: string, body: Record<string, unknown>): Promise<string> {
    const res = await call(`${server.api}/scan`, { headers: as(apiKey), json: { url: TARGET, mode: 'functional', ...body } });
    expect(res.status, res.text).toBe(202);
    await waitForScan(server.api, apiKey, res.body.scan_id);
    return res.body.scan_id;
  }

  beforeAll(async () => {
    server = await startServer({ engines: { functional: screenshotEngine(seen, gate), security: testEngine('security') } });
    pro = await server.createTenant('pro');
    other = await server.createTenant('pro');
    free = await server.createTenant('free');
    scanId = await scan(pro.apiKey, { options: { pages: PAGES } });
  });
  afterAll(async () => server?.stop());

  it('hands labelled pages to the engine as URLs plus labels, with the default branch filled in', () => {
    const options = seen[0].input.options;
    expect(options.pages).toEqual(['/', '/pricing?plan=pro', '/checkout/step-1?session=abc']);
    expect(options.page_labels).toEqual([{ label: 'checkout', url: '/checkout/step-1?session=abc' }]);
    expect(options.default_branch).toBe('main');
    expect(options.branch).toBeUndefined();
  });

  it("the visual regression report names each page's key (what approve takes) and the baseline's branch", async () => {
    const report = await call(`${server.api}/scan/${scanId}/visual-regression`, { headers: as(pro.apiKey) });
    expect(report.status).toBe(200);
    expect(report.body.pages.map((p: any) => [p.page_key, p.baseline_branch])).toEqual([
      ['/', 'main'],
      ['/pricing?plan=pro', 'main'],
      ['checkout', 'main'],
    ]);
  });

  it('approves one page by page key, by page URL (same baseline, same id) and by label', async () => {
    const byKey = await approve(pro.apiKey, { scan_id: scanId, page: '/pricing?plan=pro' });
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body).toMatchObject({
      page_key: '/pricing?plan=pro',
      viewport: '1280x800',
      device: 'desktop',
      branch: 'main',
      page_url: 'http://pr-12.preview.example.test:3000/pricing?plan=pro',
      scan_id: scanId,
    });
    expect(byKey.body.baseline_id).toMatch(/^bln_/);
    const image = await fetch(byKey.body.screenshot);
    expect(image.status).toBe(200);
    expect(await image.text()).toBe(`png of http://pr-12.preview.example.test:3000/pricing?plan=pro by ${scanId}`);

    const byUrl = await approve(pro.apiKey, { scan_id: scanId, page: 'http://pr-12.preview.example.test:3000/pricing?plan=pro' });
    expect(byUrl.status).toBe(200);
    expect(byUrl.body.baseline_id).toBe(byKey.body.baseline_id);

    const byLabel = await approve(pro.apiKey, { scan_id: scanId, page: 'checkout' });
    expect(byLabel.status).toBe(200);
    expect(byLabel.body).toMatchObject({
      page_key: 'checkout',
      branch: 'main',
      page_url: 'http://pr-12.preview.example.test:3000/checkout/step-1?session=abc',
    });
  });

  it("approves on the scan's branch, or on the branch asked for", async () => {
    const onBranch = await scan(pro.apiKey, { options: { pages: ['/pricing?plan=pro'], branch: 'feature/new-pricing' } });
    const own = await approve(pro.apiKey, { scan_id: onBranch, page: '/pricing?plan=pro' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ page_key: '/pricing?plan=pro', branch: 'feature/new-pricing', scan_id: onBranch });
    const toRelease = await approve(pro.apiKey, { scan_id: onBranch, page: '/pricing?plan=pro', branch: 'release-1.2' });
    expect(toRelease.body).toMatchObject({ branch: 'release-1.2' });
    expect(toRelease.body.baseline_id).not.toBe(own.body.baseline_id);
  });

  it('lists baselines paged, ordered by branch and page key, filtered by branch and page key', async () => {
    const all = await list(pro.apiKey);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 4, page: 1, per_page: 20, total_pages: 1 });
    expect(all.body.baselines.map((b: any) => [b.branch, b.page_key])).toEqual([
      ['feature/new-pricing', '/pricing?plan=pro'],
      ['main', '/pricing?plan=pro'],
      ['main', 'checkout'],
      ['release-1.2', '/pricing?plan=pro'],
    ]);
    expect(all.body.baselines[0].screenshot).toContain('/api/v1/artifacts/');
    expect(all.headers.get('x-ratelimit-limit')).not.toBeNull();

    const main = await list(pro.apiKey, '?branch=main');
    expect(main.body.baselines.map((b: any) => b.page_key)).toEqual(['/pricing?plan=pro', 'checkout']);
    const pricing = await list(pro.apiKey, `?page_key=${encodeURIComponent('/pricing?plan=pro')}`);
    expect(pricing.body.total).toBe(3);
    const second = await list(pro.apiKey, '?per_page=1&page=2');
    expect(second.body).toMatchObject({ total: 4, page: 2, per_page: 1, total_pages: 4 });
    expect(second.body.baselines.map((b: any) => [b.branch, b.page_key])).toEqual([['main', '/pricing?plan=pro']]);
  });

  it('deletes a baseline; the second delete is 404', async () => {
    const target = (await list(pro.apiKey, '?branch=release-1.2')).body.baselines[0];
    const gone = await remove(pro.apiKey, target.baseline_id);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await list(pro.apiKey, '?branch=release-1.2')).body.total).toBe(0);
    const again = await remove(pro.apiKey, target.baseline_id);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
  });

  it('another tenant sees none of them: its list is empty, their ids and scans are 404, and nothing changes', async () => {
    const before = await listed(pro.apiKey);
    expect((await list(other.apiKey)).body).toMatchObject({ baselines: [], total: 0 });
    const theirs = before[0].baseline_id;
    const del = await remove(other.apiKey, theirs);
    expect(del.status).toBe(404);
    expect(del.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
    const app = await approve(other.apiKey, { scan_id: scanId, page: '/pricing?plan=pro' });
    expect(app.status).toBe(404);
    expect(app.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
    expect(await listed(pro.apiKey)).toEqual(before);
    expect((await list(other.apiKey)).body.total).toBe(0);
  });

  it('refuses bad input in the error shape and changes nothing', async () => {
    const before = await listed(pro.apiKey);
    expect(before).toHaveLength(3);
    const security = await call(`${server.api}/scan`, { headers: as(pro.apiKey), json: { url: TARGET, mode: 'security' } });
    await waitForScan(server.api, pro.apiKey, security.body.scan_id);
    const cases: Array<[unknown, number, string]> = [
      [{ scan_id: scanId }, 422, 'VALIDATION_ERROR'],
      [{ page: '/' }, 422, 'VALIDATION_ERROR'],
      [{ scan_id: scanId, page: '' }, 422, 'VALIDATION_ERROR'],
      [{ scan_id: scanId, page: '/', branch: 'has space' }, 422, 'VALIDATION_ERROR'],
      [{ scan_id: scanId, page: '/', extra: 1 }, 422, 'VALIDATION_ERROR'],
      [{ scan_id: scanId, page: '/nowhere' }, 404, 'NOT_FOUND'],
      [{ scan_id: scanId, page: 'http://pr-12.preview.example.test:3000/nowhere' }, 404, 'NOT_FOUND'],
      [{ scan_id: 'scn_missing', page: '/' }, 404, 'NOT_FOUND'],
      [{ scan_id: 'scn_a\u0000b', page: '/' }, 404, 'NOT_FOUND'],
      [{ scan_id: security.body.scan_id, page: '/' }, 409, 'NOT_A_FUNCTIONAL_SCAN'],
    ];
    for (const [json, status, error] of cases) {
      const res = await approve(pro.apiKey, json);
      expect({ json, status: res.status, body: res.body }).toMatchObject({ json, status, body: { error, status } });
    }
    const notJson = await call(`${server.api}/baselines/approve`, {
      method: 'POST',
      headers: { ...as(pro.apiKey), 'content-type': 'application/json' },
      body: '[1]',
    });
    expect(notJson.status).toBe(400);
    for (const query of ['?per_page=0', '?page=0', '?branch=a%20b', '?per_page=101']) {
      const res = await list(pro.apiKey, query);
      expect({ query, status: res.status, error: res.body.error }).toEqual({ query, status: 422, error: 'VALIDATION_ERROR' });
    }
    for (const id of ['bln_missing', '%00', 'bln_a%00b']) {
      const res = await remove(pro.apiKey, id);
      expect({ id, status: res.status, error: res.body.error }).toEqual({ id, status: 404, error: 'NOT_FOUND' });
    }
    // A NUL in a filter is malformed (nul-text.ts): 400, and nothing listed or changed.
    expect((await list(pro.apiKey, `?page_key=a%00b`)).status).toBe(400);
    expect(await listed(pro.apiKey)).toEqual(before);
  });

  it('a running scan has nothing to approve yet (409 SCAN_NOT_COMPLETE)', async () => {
    let release!: () => void;
    gate.held = new Promise<void>((r) => (release = r));
    try {
      const started = await call(`${server.api}/scan`, { headers: as(pro.apiKey), json: { url: `${TARGET}?hold`, mode: 'functional' } });
      await waitForScan(server.api, pro.apiKey, started.body.scan_id, ['running']);
      const res = await approve(pro.apiKey, { scan_id: started.body.scan_id, page: '/' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'SCAN_NOT_COMPLETE', status: 409 });
    } finally {
      release();
    }
  });

  it('free plan: every baseline operation is 402 FEATURE_NOT_AVAILABLE with upgrade_url', async () => {
    const freeScan = await scan(free.apiKey, { options: { pages: ['/'] } });
    for (const res of [await list(free.apiKey), await approve(free.apiKey, { scan_id: freeScan, page: '/' }), await remove(free.apiKey, 'bln_any')]) {
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: 'FEATURE_NOT_AVAILABLE', status: 402 });
      expect(res.body.upgrade_url).toMatch(/^https?:\/\//);
    }
  });
});

describe(`options.pages labels and branches in the start request (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startServer();
    ({ apiKey } = await server.createTenant('pro'));
  });
  afterAll(async () => server?.stop());

  it.each([
    ['duplicate labels', [{ label: 'home', url: '/' }, '/a', { label: 'home', url: '/b' }], 'options.pages.2.label'],
    ['a label that looks like a path', [{ label: '/home', url: '/' }], 'options.pages.0.label'],
    ['a label with a control character', [{ label: 'ho\u0007me', url: '/' }], 'options.pages.0.label'],
    ['an empty label', [{ label: '', url: '/' }], 'options.pages.0.label'],
    ['a labelled page without a url', [{ label: 'home' }], 'options.pages.0.url'],
    ['a labelled page with another field', [{ label: 'home', url: '/', title: 'x' }], 'options.pages.0.title'],
    ['a labelled page whose url is relative', [{ label: 'home', url: 'home.html' }], 'options.pages.0.url'],
  ])('422 for %s, and no scan is started', async (_name, pages, field) => {
    const before = (await call(`${server.api}/scans`, { headers: { 'X-API-Key': apiKey } })).body.total;
    const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: TARGET, mode: 'functional', options: { pages } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect((await call(`${server.api}/scans`, { headers: { 'X-API-Key': apiKey } })).body.total).toBe(before);
  });

  it.each([
    ['branch', 'has space'],
    ['branch', ''],
    ['default_branch', 'x'.repeat(256)],
    ['default_branch', 'a\u0000b'],
  ])('422 for options.%s = %j', async (name, value) => {
    const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url: TARGET, mode: 'functional', options: { [name]: value } } });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(`options.${name}`);
  });
});
