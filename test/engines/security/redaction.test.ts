/** The security engine's evidence never quotes part of a credential: excerpts are cut after redaction, fetched tokens join the scan's redactor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../../src/domain/redaction.js';
import { TargetClient } from '../../../src/engines/security/client.js';
import { ScanSession, maskSecret } from '../../../src/engines/security/session.js';
import { DEFAULT_TUNING, type ApiModel, type TargetResponse } from '../../../src/engines/security/types.js';
import { OAUTH_CLIENT, startFixture, type Fixture } from '../../fixtures/vulnerable-api/server.js';
import { fragments, leaks } from '../../helpers/secret-forms.js';

const EMPTY: ApiModel = { title: '', apiVersion: '', specVersion: '3.0.3', serverPath: '', serverSchemes: [], operations: [] };
const TOKEN = 'tok"en/with\\back slash-0123456789';

function response(body: string): TargetResponse {
  return {
    status: 500,
    headers: {},
    body,
    size: body.length,
    elapsedMs: 3,
    request: {
      method: 'GET',
      url: 'http://t.test/x',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-custom': JSON.stringify(TOKEN) },
      body: `{"token":${JSON.stringify(TOKEN)}}`,
    },
  } as TargetResponse;
}

describe('evidence and credentials', () => {
  let fx: Fixture;
  const clients: TargetClient[] = [];
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fx?.close();
  });

  it('an excerpt cut through an echoed credential keeps no part of it', () => {
    const s = new ScanSession({} as never, EMPTY, 'http://t.test', { type: 'bearer', token: TOKEN }, DEFAULT_TUNING, new AbortController().signal);
    const echoed = JSON.stringify({ error: `bad token ${TOKEN}` });
    // Every cut, including those that fall inside the (JSON-escaped) token.
    for (let cut = 1; cut <= echoed.length; cut += 1) {
      const res = response(echoed);
      const quoted = s.excerpt(res, cut);
      expect(fragments(quoted, TOKEN, 6), `cut at ${cut}: ${quoted}`).toEqual([]);
      const evidence = s.evidence(res, `HTTP 500: ${quoted}`);
      expect(leaks(evidence, TOKEN)).toEqual([]);
      expect(fragments(evidence, TOKEN, 6)).toEqual([]);
    }
    expect(s.evidence(response(echoed), 'x')).toContain(`"token":"${REDACTED}"`);
  });

  it('masks other credential-looking values without showing a prefix under 16 characters', () => {
    expect(maskSecret('short-secret-15')).toBe('****');
    expect(maskSecret('a-secret-of-16ch')).toBe('a-se****');
  });

  it('an OAuth2 access token fetched during the scan is added to the redactor the scan was given', async () => {
    const client = new TargetClient({ allowPrivate: true, concurrency: 2, timeoutMs: 5000, signal: new AbortController().signal, maxBodyBytes: 1 << 20 });
    clients.push(client);
    const redactor = new Redactor();
    const s = new ScanSession(
      client,
      EMPTY,
      `${fx.url}/fixed`,
      { type: 'oauth2', oauth2_token_url: `${fx.url}/fixed/oauth/token`, oauth2_client_id: OAUTH_CLIENT.id, oauth2_client_secret: OAUTH_CLIENT.secret },
      DEFAULT_TUNING,
      new AbortController().signal,
      redactor,
    );
    expect(redactor.redact(OAUTH_CLIENT.secret)).toBe(REDACTED);
    await s.authHeaders();
    const token = fx.issued.at(-1)!;
    expect(redactor.redact(`{"access_token":${JSON.stringify(token)}}`)).toBe(`{"access_token":"${REDACTED}"}`);
  });
});
