/** A multipart upload cut anywhere before its closing delimiter starts no scan (the reader drops a last field cut short silently). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody } from '../fuzz/requests.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';

const BOUNDARY = 'vigiltruncated42';
const SPEC = '{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/items":{"get":{"responses":{"200":{"description":"ok"}}}}}}';

describe(`truncated multipart uploads (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startServer();
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => server?.stop());

  const send = (body: Buffer) =>
    call(`${server.api}/scan/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: body as unknown as string,
    });

  it('refuses a form cut inside its last field, and accepts the whole form', async () => {
    const form = multipartBody(
      [
        { name: 'spec_file', value: SPEC, filename: 'spec.json' },
        { name: 'base_url', value: 'http://127.0.0.1:1/' },
        { name: 'mode', value: 'security' },
      ] as never,
      BOUNDARY,
    );
    const insideLastField = form.indexOf('security') + 3;
    const cut = await send(form.subarray(0, insideLastField));
    expect(cut.status, cut.text).toBe(400);
    expect(cut.body).toMatchObject({ error: 'INVALID_REQUEST', status: 400 });
    expect(cut.body.message).toMatch(/closing boundary/);
    const list = await call(`${server.api}/scans`, { headers: { 'X-API-Key': apiKey } });
    expect(list.body.scans).toEqual([]);
    const whole = await send(form);
    expect(whole.status, whole.text).toBe(202);
  });
});
