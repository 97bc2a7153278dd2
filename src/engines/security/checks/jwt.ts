/** API2:2023 JWT weaknesses: alg none, stripped signature, expired token accepted, weak HMAC secret. */
import { createHmac } from 'node:crypto';
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest } from '../synth.js';
import { fail, ok, pass } from './util.js';

export const WEAK_SECRETS = ['secret', 'password', '123456', 'changeme', 'jwt', 'jwtsecret', 'jwt_secret', 'secretkey', 'secret123', 'key', 'admin', 'test', 'default', 'mysecret', 'your-256-bit-secret', 'supersecret', 'qwerty', 'letmein', 'token', 'private'];

const b64u = (s: string | Buffer) => Buffer.from(s).toString('base64url');

export function signHs(header: object, payload: object, secret: string, alg = 'HS256'): string {
  const h = b64u(JSON.stringify(header));
  const p = b64u(JSON.stringify(payload));
  const algo = alg === 'HS384' ? 'sha384' : alg === 'HS512' ? 'sha512' : 'sha256';
  return `${h}.${p}.${createHmac(algo, secret).update(`${h}.${p}`).digest('base64url')}`;
}

export const jwt: CheckDefinition = {
  id: 'jwt',
  title: 'JWT weaknesses',
  owasp: 'API2:2023',
  cwe: 'CWE-347',
  scope: 'target',
  async run(scan) {
    const auth = await scan.authHeaders('primary');
    const m = /^Bearer\s+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/.exec(auth.authorization ?? '');
    if (!m) return [];
    let header: any, payload: any;
    try {
      header = JSON.parse(Buffer.from(m[1], 'base64url').toString());
      payload = JSON.parse(Buffer.from(m[2], 'base64url').toString());
    } catch {
      return [];
    }
    // A secured read-only operation without path parameters is the probe.
    const op = scan.model.operations.find((o) => o.secured && o.method === 'GET' && !o.path.includes('{')) ?? scan.model.operations.find((o) => o.secured && o.method === 'GET');
    if (!op) return [];
    const base = buildRequest(op);
    const withToken = (t: string) => scan.send({ ...base, headers: { ...base.headers, authorization: `Bearer ${t}` } });
    const good = await scan.send(base);
    const garbage = await withToken(`${m[1]}.${m[2]}.${b64u('vigil-not-a-signature')}`);
    // Only meaningful when the valid token works and a bad signature is refused.
    if (!ok(good) || ok(garbage)) return [];
    const out: CheckResult[] = [];
    const endpoint = op.key;
    const none = `${b64u(JSON.stringify({ ...header, alg: 'none' }))}.${m[2]}.`;
    const rNone = await withToken(none);
    out.push(ok(rNone) ? fail('JWT with alg "none" accepted', 'critical', scan.evidence(rNone, `Unsigned token (alg none) answered ${rNone.status}`), { endpoint }) : pass('JWT with alg "none" accepted', { endpoint }));
    const stripped = await withToken(`${m[1]}.${m[2]}.`);
    out.push(ok(stripped) ? fail('JWT with stripped signature accepted', 'critical', scan.evidence(stripped, `Token without signature answered ${stripped.status}`), { endpoint }) : pass('JWT with stripped signature accepted', { endpoint }));
    let secret: string | undefined;
    if (/^HS(256|384|512)$/.test(header.alg)) {
      const algo = header.alg === 'HS384' ? 'sha384' : header.alg === 'HS512' ? 'sha512' : 'sha256';
      secret = WEAK_SECRETS.find((s) => createHmac(algo, s).update(`${m[1]}.${m[2]}`).digest('base64url') === m[3]);
    }
    out.push(
      secret
        ? fail('JWT signed with a weak HMAC secret', 'critical', `The token's ${header.alg} signature verifies with the well-known secret "${secret.slice(0, 2)}****" from Vigil's wordlist; anyone can forge tokens.`, { endpoint, cwe: 'CWE-521' })
        : pass('JWT signed with a weak HMAC secret', { endpoint, cwe: 'CWE-521' }),
    );
    if (secret) {
      const expired = signHs(header, { ...payload, exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 }, secret, header.alg);
      const rExp = await withToken(expired);
      out.push(ok(rExp) ? fail('Expired JWT accepted', 'high', scan.evidence(rExp, `Token expired an hour ago answered ${rExp.status}`), { endpoint, cwe: 'CWE-613' }) : pass('Expired JWT accepted', { endpoint, cwe: 'CWE-613' }));
    }
    return out;
  },
};
