import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';

/** A local OpenAI-compatible service: the edge of the outside world, so a fake is right here. */
function fakeModel(): Promise<{ server: Server; url: string; requests: any[]; mode: { fail: boolean } }> {
  const requests: any[] = [];
  const mode = { fail: false };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      requests.push({ path: req.url, auth: req.headers.authorization, body: JSON.parse(raw) });
      if (mode.fail) return res.writeHead(500).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          model: 'fake-1',
          choices: [{ message: { role: 'assistant', content: 'Use parameterised queries.' } }],
          usage: { prompt_tokens: 11, completion_tokens: 4 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, mode })),
  );
}

describe(`POST /llm/generate (${storeLabel})`, () => {
  let model: Awaited<ReturnType<typeof fakeModel>>;
  let server: TestServer;
  beforeAll(async () => {
    model = await fakeModel();
    server = await startServer({ env: { VIGIL_LLM_URL: model.url, VIGIL_LLM_MODEL: 'fake-1', VIGIL_LLM_API_KEY: 'llm-key' } });
  });
  afterAll(async () => {
    await server?.stop();
    model?.server.close();
  });

  it('sends the prompt with the finding as quoted context, never the target credentials', async () => {
    const t = await server.createTenant('pro');
    const headers = { 'X-API-Key': t.apiKey };
    const scan = await call(`${server.api}/scan`, {
      headers,
      json: { url: 'http://target.test/?outcome=findings', auth: { type: 'bearer', token: 'target-secret-token' } },
    });
    await waitForScan(server.api, t.apiKey, scan.body.scan_id);
    const res = await call(`${server.api}/llm/generate`, {
      headers,
      json: { prompt: 'How do I fix this?', scan_id: scan.body.scan_id, task_id: 'security-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: 'Use parameterised queries.', model: 'fake-1', usage: { prompt_tokens: 11, completion_tokens: 4 } });
    const sent = model.requests.at(-1);
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.auth).toBe('Bearer llm-key');
    expect(sent.body.model).toBe('fake-1');
    const text = JSON.stringify(sent.body.messages);
    expect(text).toContain('security check 1');
    expect(text).toContain('How do I fix this?');
    expect(text).not.toContain('target-secret-token');
  });

  it("404 for another tenant's scan or an unknown task, 422 for bad input, 502 when the model fails", async () => {
    const a = await server.createTenant('pro');
    const b = await server.createTenant('pro');
    const scan = await call(`${server.api}/scan`, { headers: { 'X-API-Key': a.apiKey }, json: { url: 'http://target.test/' } });
    await waitForScan(server.api, a.apiKey, scan.body.scan_id);
    expect((await call(`${server.api}/llm/generate`, { headers: { 'X-API-Key': b.apiKey }, json: { prompt: 'x', scan_id: scan.body.scan_id } })).status).toBe(
      404,
    );
    expect(
      (await call(`${server.api}/llm/generate`, { headers: { 'X-API-Key': a.apiKey }, json: { prompt: 'x', scan_id: scan.body.scan_id, task_id: 'nope' } }))
        .status,
    ).toBe(404);
    for (const json of [{}, { prompt: '' }, { prompt: 'x', task_id: 'security-1' }, { prompt: 'x', max_tokens: 0 }]) {
      const res = await call(`${server.api}/llm/generate`, { headers: { 'X-API-Key': a.apiKey }, json });
      expect(res.status, JSON.stringify(json)).toBe(422);
    }
    model.mode.fail = true;
    const failed = await call(`${server.api}/llm/generate`, { headers: { 'X-API-Key': a.apiKey }, json: { prompt: 'x' } });
    model.mode.fail = false;
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('LLM_UNAVAILABLE');
  });

  it('503 LLM_NOT_CONFIGURED without VIGIL_LLM_URL', async () => {
    const bare = await startServer();
    try {
      const t = await bare.createTenant('pro');
      const res = await call(`${bare.api}/llm/generate`, { headers: { 'X-API-Key': t.apiKey }, json: { prompt: 'hello' } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'LLM_NOT_CONFIGURED', status: 503 });
    } finally {
      await bare.stop();
    }
  });
});
