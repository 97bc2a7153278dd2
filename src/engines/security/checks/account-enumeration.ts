/** API2:2023 Account enumeration: login, registration and reset answering differently for unknown users. */
import { createHash } from 'node:crypto';
import type { CheckContext, Operation, OperationCheck } from '../types.js';
import { type InjectionPoint, getAt, injectionPoints, pointKeys, sampleBody, setAt } from '../synth.js';
import { fail, ok, pass } from './util.js';

const ACCOUNT_OPERATION = /(log-?in|sign-?in|register|sign-?up|password|reset|forgot)/i;

const USER_FIELD = /^(user(name)?|email|login|account|phone)$/i;

function shape(body: string): string {
  // Compare messages with volatile parts (tokens, ids, times, numbers) removed: a login that answers
  // with a fresh token each time is stable.
  return body
    .replace(/"(?:request_?id|timestamp|time|date|trace_?id)"\s*:\s*"[^"]*"/gi, '')
    .replace(/[\w-]{8,}\.[\w-]{8,}\.[\w-]*/g, '<jwt>')
    .replace(/[A-Za-z0-9+/_-]{24,}={0,2}/g, '<token>')
    .replace(/\d+/g, '#')
    .trim();
}

/**
 * An account that cannot exist, one per operation: a registration creates the name it is sent, so
 * a name shared with the login operation would exist there, with the wrong password as its own.
 */
function unknownAccount(ctx: CheckContext, op: Operation, field: string): string {
  const nobody = `vigil-nobody-${ctx.marker}-${createHash('sha256').update(op.key).digest('hex').slice(0, 6)}`;
  return /email/i.test(field) ? `${nobody}@example.invalid` : nobody;
}

const REGISTRATION = /(register|sign-?up)/i;

/**
 * The operation's sample body and where its account field and password are: at the top, or inside
 * an envelope at any depth (`{"user": {"email", "password"}}`), found by the body-field walk of
 * injection points.
 */
function accountBody(op: Operation): { body: Record<string, unknown>; field: string[]; password?: string[] } | undefined {
  const body = sampleBody(op);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = injectionPoints(op).filter((p) => p.kind === 'body');
  const leaf = (p: InjectionPoint) => pointKeys(p).at(-1)!;
  const user = fields.find((p) => USER_FIELD.test(leaf(p)));
  const pw = fields.find((p) => /pass/i.test(leaf(p)));
  return user ? { body: body as Record<string, unknown>, field: pointKeys(user), ...(pw ? { password: pointKeys(pw) } : {}) } : undefined;
}

/** An account the target knows: the scan's own user, else one harvested from the target; undefined when there is none. */
function knownAccount(ctx: CheckContext, field: string, op: Operation): string | undefined {
  const user = ctx.knownUsername;
  if (user && (!/email/i.test(field) || user.includes('@'))) return user;
  const harvested = ctx.values(field, { op })[0]?.value;
  return harvested === undefined ? user : String(harvested);
}

export const accountEnumeration: OperationCheck = {
  id: 'account-enumeration',
  title: 'Account enumeration',
  description:
    'Sends login, registration and password-reset operations twice with an account the target knows and twice with one that cannot exist (a wrong password both times) and reports when the two answers differ in status or message while each is stable.',
  risk: 'When the API tells "no such user" apart from "wrong password", an attacker can build a list of valid accounts (usernames, emails, phone numbers) and then focus password guessing, credential stuffing and phishing on them.',
  remediation:
    'Answer the same status and message whatever the account ("invalid username or password"; "if the account exists, we sent an email"), with similar timing, and rate-limit these operations.',
  owasp: 'API2:2023',
  cwe: 'CWE-204',
  references: [
    {
      title: 'OWASP Authentication Cheat Sheet: Authentication and error messages',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html#authentication-and-error-messages',
    },
    { title: 'OWASP Forgot Password Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Forgot_Password_Cheat_Sheet.html' },
    {
      title: 'OWASP WSTG: Testing for Account Enumeration and Guessable User Account',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/03-Identity_Management_Testing/04-Testing_for_Account_Enumeration_and_Guessable_User_Account',
    },
  ],
  scope: 'operation',
  early: true,
  applies(op) {
    if (op.method !== 'POST' || !ACCOUNT_OPERATION.test(`${op.path} ${op.operationId ?? ''}`)) return 'not a login, registration or password reset operation';
    if (!op.body || !/json|form/i.test(op.body.contentType)) return 'no JSON or form body';
    return accountBody(op) ? true : 'no username, email or phone field in the body';
  },
  async run(ctx, op) {
    const sample = accountBody(op);
    if (!sample) return [];
    const { body, field: at, password } = sample;
    const field = at.at(-1)!;
    const name = 'Different answers for unknown and known accounts';
    const real = knownAccount(ctx, field, op);
    // Without a known account, the spec's example stands in for one: the verdict says so.
    const known = real ?? String(getAt(body, at));
    const invented = real === undefined ? { invented: true } : {};
    const unknownUser = unknownAccount(ctx, op, field);
    const req = (user: string) => {
      const sent = setAt(body, at, user);
      return ctx.send({ ...ctx.request(op, { body: password ? setAt(sent, password, 'Vigil-wrong-Pa55!') : sent }), identity: 'none' });
    };
    const a1 = await req(known);
    const b1 = await req(unknownUser);
    const a2 = await req(known);
    const b2 = await req(unknownUser);
    // Throttled or failed answers say nothing about the account, and neither do answers that change
    // between two identical requests (a registration that created the unknown account on the first).
    const unusable = [a1, b1, a2, b2].find((r) => r.status === 429 || r.status === 0);
    if (unusable)
      return unusable.status === 429
        ? { code: 'inconclusive', notTested: 'the target throttled the requests (HTTP 429)' }
        : { code: 'no_answer', notTested: `no answer (${unusable.error ?? 'connection failed'})` };
    const stable = a1.status === a2.status && b1.status === b2.status && shape(a1.body) === shape(a2.body) && shape(b1.body) === shape(b2.body);
    if (!stable) {
      const created = REGISTRATION.test(`${op.path} ${op.operationId ?? ''}`) && ok(b1) && !ok(b2);
      return {
        code: 'inconclusive',
        notTested: created
          ? 'the registration created the unknown account on the first request, so its answers cannot be compared'
          : 'the answers changed between identical requests',
      };
    }
    if (a1.status !== b1.status || shape(a1.body) !== shape(b1.body)) {
      return [
        fail(
          name,
          'medium',
          ctx.evidence(b1, `Known account "${known}": HTTP ${a1.status} ${ctx.excerpt(a1, 120)}\nUnknown account: HTTP ${b1.status} ${ctx.excerpt(b1, 120)}`),
          {
            parameter: at.join('.'),
            ...invented,
          },
        ),
      ];
    }
    return [pass(name, { parameter: at.join('.'), ...invented })];
  },
};
