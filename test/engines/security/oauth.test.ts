/** OAuth2 client credentials: one fetch under concurrency, refresh on expiry and on 401, and the hosted address guard on token fetches. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '../../../src/net/address-guard.js';
import { TargetClient } from '../../../src/engines/security/client.js';
import { ScanSession } from '../../../src/engines/security/session.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { DEFAULT_TUNING, type ApiModel } from '../../../src/engines/security/types.js';
import type { TargetAuth } from '../../../src/domain/scan.js';
import { OAUTH_CLIENT, startFixture, type Fixture } from '../../fixtures/vulnerable-api/server.js';
import { fixtureLookup, makeCtx } from './helpers.js';

let fx: Fixture;
const clients: TargetClient[] = [];
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await fx?.close();
});

const EMPTY: ApiModel = { title: '', apiVersion: '', specVersion: '3.0.3', serverPath: '', serverSchemes: [], operations: [] };
const oauth = (tokenUrl: string): TargetAuth => ({
  type: 'oauth2',
  oauth2_token_url: tokenUrl,
  oauth2_client_id: OAUTH_CLIENT.id,
  oauth2_client_secret: OAUTH_CLIENT.secret,
});
const fetches = () => fx.hits.get('fixed/oauth/token') ?? 0;

function session(auth: TargetAuth, opts: { hosted?: boolean; lookup?: typeof fixtureLookup } = {}) {
  const client = new TargetClient({
    allowPrivate: !opts.hosted,
    concurrency: 4,
    timeoutMs: 5000,
    signal: new AbortController().signal,
    maxBodyBytes: 1 << 20,
    lookup: opts.lookup as never,
  });
  clients.push(client);
  return new ScanSession(client, EMPTY, `${fx.url}/fixed`, auth, DEFAULT_TUNING, new AbortController().signal);
}
const me = { method: 'GET', path: '/jwt/me', query: [] as [string, string][], headers: {} };

describe('OAuth2 client credentials', () => {
  it('fetches the token once for many concurrent requests and caches it', async () => {
    const before = fetches();
    const s = session(oauth(`${fx.url}/fixed/oauth/token`));
    const first = await Promise.all(Array.from({ length: 8 }, () => s.send(me)));
    const again = await Promise.all(Array.from({ length: 8 }, () => s.send(me)));
    expect([...first, ...again].map((r) => r.status)).toEqual(Array(16).fill(200));
    expect(fetches() - before).toBe(1);
    // The fetched token is a secret: masked in evidence.
    expect(s.mask(`token ${fx.issued.at(-1)}`)).not.toContain(fx.issued.at(-1));
  });

  it('refreshes the token when it expires', async () => {
    const before = fetches();
    // expires_in 31 s: cached until 30 s before expiry, i.e. for 1 s.
    const s = session(oauth(`${fx.url}/fixed/oauth/token?ttl=31`));
    expect((await s.send(me)).status).toBe(200);
    expect((await s.send(me)).status).toBe(200);
    expect(fetches() - before).toBe(1);
    const used = fx.issued.at(-1);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await s.send(me)).status).toBe(200);
    expect(fetches() - before).toBe(2);
    expect(fx.issued.at(-1)).not.toBe(used);
  });

  it('refreshes once on a 401 and retries; a 401 that a fresh token does not cure stops refreshing there', async () => {
    const s = session(oauth(`${fx.url}/fixed/oauth/token`));
    expect((await s.send(me)).status).toBe(200);
    const before = fetches();
    fx.revoked.add(fx.issued.at(-1)!);
    const after = await Promise.all(Array.from({ length: 4 }, () => s.send(me)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(fetches() - before).toBe(1);
    // A login answering 401 for a wrong password: one refresh, then none for that operation.
    const login = {
      method: 'POST',
      path: '/auth/login',
      query: [] as [string, string][],
      headers: { 'content-type': 'application/json' },
      body: '{"username":"alice","password":"wrong"}',
    };
    const b2 = fetches();
    for (let i = 0; i < 3; i++) expect([401, 429]).toContain((await s.send(login)).status);
    expect(fetches() - b2).toBeLessThanOrEqual(1);
    expect((await s.send(me)).status).toBe(200);
  });

  it('a whole scan fetches the token once (spec discovery included)', async () => {
    const before = fetches();
    const out = await createSecurityEngine({ tuning: { onlyChecks: ['server-errors', 'misconfiguration', 'bola'] } }).run(
      makeCtx({ url: `${fx.url}/fixed`, auth: oauth(`${fx.url}/fixed/oauth/token`), options: { exclude: ['*/login'] } as never }),
    );
    expect(out.tasks.length).toBeGreaterThan(10);
    expect(fetches() - before).toBe(1);
  });
});

describe('OAuth2 token fetch in hosted mode', () => {
  it('is blocked when the token URL is a loopback address', async () => {
    const before = fetches();
    const s = session(oauth(`${fx.url}/fixed/oauth/token`), { hosted: true });
    await expect(s.authHeaders()).rejects.toMatchObject({ code: 'TARGET_BLOCKED' });
    expect(fetches()).toBe(before);
  });

  it('is blocked when a public token URL redirects to loopback (IP literal or a name resolving to it)', async () => {
    // api.vigil-fixture.test stands for a public host (the test hook resolves it to the fixture);
    // any other name goes through the real guarded lookup.
    const lookup = ((host: string, o: object, cb: never) =>
      host.endsWith('.vigil-fixture.test') ? fixtureLookup(host, o, cb) : guardedLookup(false)(host, o, cb)) as typeof fixtureLookup;
    const port = new URL(fx.url).port;
    for (const to of [`${fx.url}/fixed/oauth/token`, `http://localhost:${port}/fixed/oauth/token`]) {
      const before = fetches();
      const redirects = fx.hits.get('vuln/oauth/redirect') ?? 0;
      const s = session(oauth(`http://api.vigil-fixture.test:${port}/vuln/oauth/redirect?to=${encodeURIComponent(to)}`), { hosted: true, lookup });
      await expect(s.authHeaders()).rejects.toMatchObject({ code: 'TARGET_BLOCKED' });
      expect(fx.hits.get('vuln/oauth/redirect')).toBe(redirects + 1);
      expect(fetches()).toBe(before);
    }
  });

  it('fails a hosted scan with TARGET_BLOCKED before any token reaches loopback', async () => {
    const before = fetches();
    const err = await createSecurityEngine()
      .run(
        makeCtx(
          {
            url: `${fx.url}/fixed`,
            spec_text: JSON.stringify({
              openapi: '3.0.3',
              info: { title: 't', version: '1' },
              paths: { '/jwt/me': { get: { responses: { '200': { description: 'ok' } } } } },
            }),
            auth: oauth(`${fx.url}/fixed/oauth/token`),
          },
          { deployment: 'hosted' },
        ),
      )
      .catch((e) => e);
    expect(err.code).toBe('TARGET_BLOCKED');
    expect(fetches()).toBe(before);
  });
});
