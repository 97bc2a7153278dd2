/**
 * A real OpenID provider on loopback for the tests: `oidc-provider` (a certified OP implementation) with one
 * confidential client, PKCE required, RS256-signed ID tokens, and an interaction that signs in whoever the
 * test names (`idp.user`). `idp.tamper` rewrites the next ID token's claims and signs it again with the
 * provider's own key: a validly signed token with a wrong `aud` or `nonce`, as a hostile or confused IdP
 * would send.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export interface IdpUser {
  sub: string;
  email: string;
  name: string;
  groups: string[];
}

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  user: IdpUser;
  /** Applied to the next ID token the token endpoint issues, then cleared. */
  tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined;
  close(): Promise<void>;
}

export async function startOidcIdp(redirectUris: string[]): Promise<OidcIdp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: OidcIdp = {
    issuer,
    clientId: 'vigil-test',
    clientSecret: 'a-long-client-secret-for-tests-only',
    user: { sub: 'user-1', email: 'ana@example.test', name: 'Ana', groups: [] },
    tamper: undefined,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const provider = new Provider(issuer, {
    clients: [
      { client_id: idp.clientId, client_secret: idp.clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: idp.user.email, email_verified: true, name: idp.user.name, groups: idp.user.groups }),
    }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-cookie-key'] },
  } as never);
  const handle = provider.callback();

  /** Signs in `idp.user` and grants the requested scopes, without a form. */
  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: idp.user.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    grant!.addOIDCScope(String(details.params.scope));
    const grantId = await grant!.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /** The token endpoint's answer with its ID token re-signed after `idp.tamper`. */
  function tamperTokens(res: ServerResponse): void {
    const change = idp.tamper;
    if (!change) return;
    idp.tamper = undefined;
    const chunks: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: Buffer | string) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: Buffer | string) => {
      if (chunk) chunks.push(Buffer.from(chunk));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      void (async () => {
        if (typeof body.id_token === 'string') {
          const claims = change(decodeJwt(body.id_token) as Record<string, unknown>);
          body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(privateKey);
        }
        const text = JSON.stringify(body);
        res.setHeader('content-length', Buffer.byteLength(text));
        write(text);
        end();
      })();
      return res;
    }) as typeof res.end;
  }

  server.on('request', (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path.startsWith('/interaction/')) {
      interaction(req, res).catch((error: Error) => {
        res.statusCode = 500;
        res.end(error.message);
      });
      return;
    }
    if (path === '/token' && req.method === 'POST') tamperTokens(res);
    handle(req, res);
  });
  return idp;
}
