import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/** RFC 4180 parser, enough to read the export back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

describe(`export through the API (${storeLabel})`, () => {
  let server: TestServer;
  let key: string;
  let scanId: string;
  beforeAll(async () => {
    server = await startServer();
    key = (await server.createTenant('pro')).apiKey;
    const res = await call(`${server.api}/scan`, {
      headers: { 'X-API-Key': key },
      json: { url: 'http://target.test/?outcome=findings&tasks=6', options: { fail_on: 'critical' } },
    });
    scanId = res.body.scan_id;
    await waitForScan(server.api, key, scanId);
  });
  afterAll(async () => server?.stop());

  const get = (query: string) => fetch(`${server.api}/scan/${scanId}/export${query}`, { headers: { 'X-API-Key': key } });

  it('json (the default) is exactly the results body, with every task', async () => {
    for (const query of ['', '?format=json']) {
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-disposition')).toContain(`vigil-scan-${scanId}.json`);
      const body = (await res.json()) as { scan_id: string; tasks: unknown[]; failed: number; threshold_reached: boolean };
      expect(body).toMatchObject({ scan_id: scanId, failed: 1, threshold_reached: true });
      expect(body.tasks).toHaveLength(6);
      const results = await call(`${server.api}/scan/${scanId}/results`, { headers: { 'X-API-Key': key } });
      expect(body).toEqual(results.body);
    }
  });

  it('csv has a header row and one row per task, with formula-looking cells neutralised', async () => {
    const res = await get('?format=csv');
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(await res.text()).filter((r) => r.some((c) => c !== ''));
    const header = rows[0]!;
    expect(header).toContain('task_id');
    expect(rows).toHaveLength(7);
    const evidenceColumn = header.indexOf('evidence');
    expect(evidenceColumn).toBeGreaterThanOrEqual(0);
    for (const row of rows.slice(1)) {
      expect(row[header.indexOf('task_id')]).toMatch(/^security-\d$/);
      for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);
    }
    const formula = rows.find((r) => r[header.indexOf('task_id')] === 'security-2')!;
    expect(formula[header.indexOf('name')]).toBe(`'=HYPERLINK("http://evil.test","click")`);
  });

  it('html is self-contained: no external references', async () => {
    const res = await get('?format=html');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain(scanId);
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import/i);
  });

  it('any other format is 422 VALIDATION_ERROR; an unfinished scan is 409', async () => {
    for (const format of ['xml', 'pdf', 'HTML', '']) {
      const res = await get(`?format=${format}`);
      expect(res.status, format).toBe(422);
      expect(((await res.json()) as { error: string }).error).toBe('VALIDATION_ERROR');
    }
    const running = await call(`${server.api}/scan`, { headers: { 'X-API-Key': key }, json: { url: 'http://target.test/?outcome=hang' } });
    const early = await call(`${server.api}/scan/${running.body.scan_id}/export?format=csv`, { headers: { 'X-API-Key': key } });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('SCAN_NOT_COMPLETE');
    await call(`${server.api}/scan/${running.body.scan_id}/cancel`, { method: 'POST', headers: { 'X-API-Key': key } });
  });
});
