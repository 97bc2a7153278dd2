/**
 * API2:2023 JWT weaknesses, on the JWTs the scan holds or saw: signature not verified, alg none,
 * stripped signature, algorithm confusion with an exposed public key, a weak HMAC secret
 * (dictionary and exhaustive search off the main thread), expired and not-yet-valid tokens; when
 * a token can be forged, the access a forged one gives (another user, an administrator).
 */
import type { CheckContext, CheckOutcome, CheckResult, TargetCheck } from '../types.js';
import { fail, pass } from './util.js';
import { demonstrateAccess } from './jwt/demonstrate.js';
import { loadDictionary } from './jwt/dictionary.js';
import type { Signer } from './jwt/forge.js';
import { findProbe, type Probe } from './jwt/probe.js';
import { exposedPublicKeys } from './jwt/public-keys.js';
import { describeSearch, searchHmacSecret, type SecretSearchResult } from './jwt/secret-search.js';
import {
  b64uJson,
  compact,
  hmacDigest,
  isAsymmetric,
  maskFoundSecret,
  nowSeconds,
  parseJwt,
  randomSignature,
  signHmac,
  type Claims,
  type ParsedJwt,
} from './jwt/token.js';

const NONE_SPELLINGS = ['none', 'None', 'NONE', 'nOnE'];
/** Tokens tried as the probe's subject, at most (the identities' own come first). */
const MAX_SUBJECTS = 3;

const NO_PROBE = 'no operation where the JWT is required (2xx with it, 401/403 without)';

const NAMES = {
  signature: 'JWT with a random signature accepted',
  none: 'JWT with alg "none" accepted',
  stripped: 'JWT with stripped signature accepted',
  confusion: 'JWT algorithm confusion accepted (HS256 signed with the public key)',
  secret: 'JWT signed with a weak HMAC secret',
  expired: 'Expired JWT accepted',
  notYetValid: 'Not-yet-valid JWT accepted (nbf in the future)',
};

type Token = { entry: ReturnType<CheckContext['jwts']>[number]; jwt: ParsedJwt };

interface Subject {
  jwt: ParsedJwt;
  probe?: Probe;
}

/** A failed result whose evidence later gains the demonstration or claim-check notes. */
interface Root {
  result: CheckResult;
  signer: Signer;
}

type SearchOutcome = { result: SecretSearchResult; note?: string } | { error: unknown };

async function startSearch(ctx: CheckContext, jwt: ParsedJwt, signal: AbortSignal): Promise<SearchOutcome> {
  try {
    let note: string | undefined;
    const dictionary = await loadDictionary().catch((err: unknown) => {
      note = `The dictionary could not be read (${err instanceof Error ? err.message : String(err)}): only the exhaustive search ran.`;
      return Buffer.alloc(0);
    });
    return { result: await searchHmacSecret(jwt, { budgetMs: ctx.tuning.jwtSecretSearchMs, signal, dictionary }), note };
  } catch (error) {
    return { error };
  }
}

/** The first of the scan's JWTs that opens an operation no credentials open. */
async function findSubject(ctx: CheckContext, tokens: Token[]): Promise<Subject> {
  for (const t of tokens.slice(0, MAX_SUBJECTS)) {
    const probe = await findProbe(ctx, t.entry);
    if (probe) return { jwt: t.jwt, probe };
  }
  return { jwt: tokens[0].jwt };
}

const appendEvidence = (root: Root, text: string) => {
  root.result.evidence = `${root.result.evidence}\n\n${text}`;
};

async function run(ctx: CheckContext): Promise<CheckOutcome> {
  const tokens = ctx
    .jwts()
    .map((entry) => ({ entry, jwt: parseJwt(entry.token) }))
    .filter((t): t is Token => !!t.jwt);
  if (!tokens.length) return [];

  // The secret search runs in its worker thread while the requests below go on; it ends with the
  // scan, or with this check when a request of the check fails.
  const hmacToken = tokens.find((t) => hmacDigest(t.jwt.header.alg));
  const done = new AbortController();
  const searching = hmacToken ? startSearch(ctx, hmacToken.jwt, AbortSignal.any([ctx.signal, done.signal])) : undefined;
  try {
    return await probeAndJudge(ctx, tokens, hmacToken, searching);
  } finally {
    done.abort();
  }
}

async function probeAndJudge(
  ctx: CheckContext,
  tokens: Token[],
  hmacToken: Token | undefined,
  searching: Promise<SearchOutcome> | undefined,
): Promise<CheckOutcome> {
  const { jwt, probe } = await findSubject(ctx, tokens);
  // Without such an operation only the offline secret search can say anything.
  if (!probe && !searching) return { code: 'prerequisite_missing', notTested: NO_PROBE };
  const { header } = jwt;
  const endpoint = probe?.op.key;
  const results: CheckResult[] = [];
  const roots: Root[] = [];
  const addRoot = (result: CheckResult, signer: Signer) => {
    results.push(result);
    roots.push({ result, signer });
    return signer;
  };
  let validSigner: Signer | undefined;

  if (probe) {
    const bogus = `${jwt.signingInput}.${randomSignature(jwt.signature)}`;
    const rSig = await probe.send(bogus);
    if (probe.accepted(rSig)) {
      // Every other forgery follows from this one: alg none, stripped and confused tokens add nothing.
      addRoot(
        fail(
          NAMES.signature,
          'critical',
          ctx.evidence(
            rSig,
            `The real token with its signature replaced by random bytes answered ${rSig.status}, as the real token does (${probe.valid.status}): the signature is not verified, anyone can write any claims.`,
          ),
          { endpoint },
        ),
        { how: 'with a random signature', valid: false, sign: (h, p) => compact(h, p, randomSignature(jwt.signature)) },
      );
    } else {
      results.push(pass(NAMES.signature, { endpoint }));
      results.push(...(await algNone(ctx, probe, jwt, addRoot)));
      results.push(await stripped(ctx, probe, jwt, addRoot));
      if (isAsymmetric(header.alg)) {
        const confusion = await algorithmConfusion(ctx, probe, jwt);
        if (confusion?.signer) validSigner = addRoot(confusion.result, confusion.signer);
        else if (confusion) results.push(confusion.result);
      }
    }
  }

  const searched = searching ? await searching : undefined;
  if (searched && 'error' in searched) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw searched.error;
  }
  if (searched && hmacToken) {
    const { result: r, note } = searched;
    if (r.secret !== undefined) {
      const secret = r.secret;
      const alg = hmacToken.jwt.header.alg;
      const signer: Signer = {
        how: `signed with the found secret "${maskFoundSecret(secret)}"`,
        valid: true,
        sign: (h, p) => signHmac({ ...h, alg: hmacDigest(h.alg) ? h.alg : alg }, p, secret),
      };
      const whose = hmacToken.entry.source === 'auth' ? `the ${hmacToken.entry.identity} identity's token` : `a token from ${hmacToken.entry.source}`;
      const result = fail(
        NAMES.secret,
        'critical',
        `The ${String(alg)} signature of ${whose} verifies with the secret "${maskFoundSecret(secret)}" (${[...secret].length} characters, found in ${r.foundIn} after ${r.tried.toLocaleString('en-US')} candidates, ${(r.elapsedMs / 1000).toFixed(1)} s). Anyone can sign tokens with any claims.${note ? ` ${note}` : ''}`,
        { endpoint, cwe: 'CWE-1391' },
      );
      // It forges the probe's token only when that is the token it was found on.
      if (probe && hmacToken.jwt === jwt) {
        validSigner ??= signer;
        addRoot(result, signer);
      } else results.push(result);
      if (!probe)
        appendEvidence({ result, signer }, `There is ${NO_PROBE}, so the access a forged token gives was not shown, and the other JWT sub-checks did not run.`);
    } else {
      const how = describeSearch(r) + (note ? ` ${note}` : '');
      results.push(
        pass(NAMES.secret, { endpoint, cwe: 'CWE-1391', evidence: probe ? how : `${how} The other JWT sub-checks did not run: there is ${NO_PROBE}.` }),
      );
    }
  }

  if (probe) {
    const claimSigner = validSigner ?? roots[0]?.signer;
    if (claimSigner) results.push(...(await claimChecks(ctx, probe, jwt, claimSigner, roots)));
    const demoRoot = roots[0];
    if (demoRoot) {
      const demo = await demonstrateAccess(ctx, probe, jwt, demoRoot.signer);
      appendEvidence(demoRoot, [`What a forged token gives: ${demo.summary.join(' ')}`, ...demo.evidence].join('\n\n'));
      for (const other of roots.slice(1)) appendEvidence(other, `A token forged this way gives the same access (see "${demoRoot.result.name}").`);
    }
  }
  return results;
}

async function algNone(ctx: CheckContext, probe: Probe, jwt: ParsedJwt, addRoot: (r: CheckResult, s: Signer) => Signer): Promise<CheckResult[]> {
  const endpoint = probe.op.key;
  const body = b64uJson(jwt.payload);
  for (const alg of NONE_SPELLINGS) {
    for (const dot of [true, false]) {
      const res = await probe.send(`${b64uJson({ ...jwt.header, alg })}.${body}${dot ? '.' : ''}`);
      if (!probe.accepted(res)) continue;
      const form = dot ? 'an empty signature' : 'no signature segment';
      addRoot(
        fail(
          NAMES.none,
          'critical',
          ctx.evidence(res, `An unsigned token (alg "${alg}", ${form}) answered ${res.status}, as the real token does: anyone can write any claims.`),
          { endpoint },
        ),
        {
          how: `unsigned (alg "${alg}")`,
          valid: false,
          sign: (h, p) => `${b64uJson({ ...h, alg })}.${b64uJson(p)}${dot ? '.' : ''}`,
        },
      );
      return [];
    }
  }
  return [
    pass(NAMES.none, {
      endpoint,
      evidence: `Refused: alg ${NONE_SPELLINGS.map((s) => `"${s}"`).join(', ')}, each with an empty signature and without the signature segment.`,
    }),
  ];
}

async function stripped(ctx: CheckContext, probe: Probe, jwt: ParsedJwt, addRoot: (r: CheckResult, s: Signer) => Signer): Promise<CheckResult> {
  const endpoint = probe.op.key;
  const res = await probe.send(`${jwt.signingInput}.`);
  if (!probe.accepted(res)) return pass(NAMES.stripped, { endpoint });
  const result = fail(
    NAMES.stripped,
    'critical',
    ctx.evidence(res, `The real token with its signature removed (alg still ${String(jwt.header.alg)}) answered ${res.status}: anyone can write any claims.`),
    { endpoint },
  );
  addRoot(result, { how: 'with the signature removed', valid: false, sign: (h, p) => compact(h, p, '') });
  return result;
}

/** HS256 signed with each exposed public key's text. Undefined when the target exposes no key (not tested). */
async function algorithmConfusion(ctx: CheckContext, probe: Probe, jwt: ParsedJwt): Promise<{ result: CheckResult; signer?: Signer } | undefined> {
  const endpoint = probe.op.key;
  const { keys, looked } = await exposedPublicKeys(ctx, jwt);
  if (!keys.length) return undefined;
  const header = { ...jwt.header, alg: 'HS256' };
  for (const key of keys) {
    for (const text of key.secrets) {
      const res = await probe.send(signHmac(header, jwt.payload, text));
      if (!probe.accepted(res)) continue;
      const form = `${text.includes('RSA PUBLIC KEY') ? 'PKCS#1' : text.includes('CERTIFICATE') ? 'certificate' : 'SPKI'} PEM ${text.endsWith('\n') ? 'with' : 'without'} its final newline`;
      return {
        result: fail(
          NAMES.confusion,
          'critical',
          ctx.evidence(
            res,
            `A token signed with HS256, using the ${key.type} public key published at ${key.url}${key.kid ? ` (kid ${key.kid})` : ''} as the HMAC secret (${form}), answered ${res.status}: anyone can sign tokens with the public key.`,
          ),
          { endpoint },
        ),
        signer: { how: `signed HS256 with the public key from ${key.url}`, valid: true, sign: (h, p) => signHmac({ ...h, alg: 'HS256' }, p, text) },
      };
    }
  }
  const tried = keys.map((k) => `${k.type}${k.kid ? ` ${k.kid}` : ''} from ${k.url}`).join('; ');
  return {
    result: pass(NAMES.confusion, {
      endpoint,
      evidence: `Refused: HS256 tokens signed with the text of each public key the target exposes (${tried}); looked at ${looked.length} locations.`,
    }),
  };
}

/**
 * exp and nbf. With a valid signature (the found secret, the public key) they are findings of
 * their own; with a forgery the target accepts anyway (no signature check, alg none) they only
 * tell more about that finding, so they go into its evidence.
 */
async function claimChecks(ctx: CheckContext, probe: Probe, jwt: ParsedJwt, signer: Signer, roots: Root[]): Promise<CheckResult[]> {
  const endpoint = probe.op.key;
  const now = nowSeconds();
  const cases: { name: string; payload: Claims; what: string; severity: CheckResult['severity'] }[] = [
    { name: NAMES.expired, payload: { ...jwt.payload, iat: now - 7200, exp: now - 3600 }, what: 'expired an hour ago (exp)', severity: 'high' },
    {
      name: NAMES.notYetValid,
      payload: { ...jwt.payload, iat: now, nbf: now + 3600, exp: Math.max(now + 7200, typeof jwt.payload.exp === 'number' ? jwt.payload.exp : 0) },
      what: 'valid only from an hour from now (nbf)',
      severity: 'medium',
    },
  ];
  const out: CheckResult[] = [];
  for (const c of cases) {
    const res = await probe.send(signer.sign(jwt.header, c.payload));
    const accepted = probe.accepted(res);
    if (signer.valid) {
      out.push(
        accepted
          ? fail(
              c.name,
              c.severity,
              ctx.evidence(res, `A token ${c.what}, ${signer.how} (so only that claim differs from a valid token), answered ${res.status}.`),
              { endpoint, cwe: 'CWE-613' },
            )
          : pass(c.name, { endpoint, cwe: 'CWE-613' }),
      );
    } else {
      const root = roots.find((r) => r.signer === signer);
      if (root)
        appendEvidence(
          root,
          `A token ${c.what} forged the same way ${accepted ? `was accepted too (${res.status}): that claim is not checked either` : `was refused (${res.status}): that claim is checked`}.`,
        );
    }
  }
  return out;
}

export const jwt: TargetCheck = {
  id: 'jwt',
  title: 'JWT weaknesses',
  scope: 'target',
  owasp: 'API2:2023',
  cwe: 'CWE-347',
  description:
    'Tests the JWTs the scan holds (the identities\' bearer tokens) or saw (tokens in login answers) on an operation that the real token opens and no credentials do: a random signature, alg "none" in every spelling, a stripped signature, HS256 signed with a public key the target exposes (algorithm confusion), a weak HMAC secret (a dictionary of common secrets, then every short number and lowercase word within a time budget), and expired or not-yet-valid tokens. When a token can be forged, it forges one for another user and one with an administrator role and shows the access they give.',
  risk: 'Whoever can forge a token is whoever they claim to be: any user, any role, for as long as they like. An unchecked expiry lets a stolen token work forever.',
  remediation:
    'Verify every token with a maintained JWT library, pinning the expected algorithm (never taken from the token header) and key; refuse alg "none" and unsigned tokens; use a long random HMAC secret (256 bits or more) kept out of the code, or asymmetric keys; check exp and nbf; rotate the secret or keys once a weak one was found.',
  references: [
    { title: 'RFC 8725: JSON Web Token Best Current Practices', url: 'https://www.rfc-editor.org/rfc/rfc8725' },
    { title: 'OWASP JSON Web Token Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/JSON_Web_Token_for_Java_Cheat_Sheet.html' },
    { title: 'PortSwigger: JWT attacks', url: 'https://portswigger.net/web-security/jwt' },
    { title: 'PortSwigger: algorithm confusion attacks', url: 'https://portswigger.net/web-security/jwt/algorithm-confusion' },
  ],
  applies(ctx) {
    return ctx.jwts().some((t) => parseJwt(t.token)) || { code: 'prerequisite_missing', text: 'no JWT seen' };
  },
  run,
};
