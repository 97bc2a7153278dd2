import { expect } from 'vitest';
import type { DnsTxtServer } from '../helpers/dns-txt-server.js';
import { call } from '../helpers/server.js';

/** Claims `domain` for the key's tenant, publishes its TXT record on the test's DNS server and verifies it. */
export async function proveEmailDomain(api: string, apiKey: string, dns: DnsTxtServer, domain: string): Promise<void> {
  const headers = { 'X-API-Key': apiKey };
  const claimed = await call(`${api}/sso/domains`, { headers, json: { domain } });
  expect([200, 201], claimed.text).toContain(claimed.status);
  dns.setTxt(claimed.body.txt_record.name, [claimed.body.txt_record.value]);
  const verified = await call(`${api}/sso/domains/${domain}/verify`, { method: 'POST', headers });
  expect(verified.status, verified.text).toBe(200);
}
