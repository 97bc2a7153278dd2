/** Shows what a forgeable token gives: another user's access, and an administrator's. */
import type { CheckContext, Operation } from '../../types.js';
import { phaseOf, words } from '../../phases.js';
import { escalateRole, impersonateToken, impersonateValue, type Impersonation, type Signer } from './forge.js';
import type { Probe } from './probe.js';
import { parseJwt, type ParsedJwt } from './token.js';

const ADMIN_WORDS = new Set([
  'admin',
  'admins',
  'administrator',
  'administration',
  'internal',
  'manage',
  'management',
  'staff',
  'superuser',
  'backoffice',
  'sudo',
]);
/** Admin-looking operations tried with an escalated token, at most. */
const MAX_ADMIN_OPS = 3;

export interface Demonstration {
  /** One sentence per attempt. */
  summary: string[];
  /** Evidence (request and response) of each access gained. */
  evidence: string[];
  /** At least one forged token gained access the real one does not have. */
  shown: boolean;
}

/** Someone else to be: another token the scan holds (the second identity's first), else a harvested user name or id. */
function otherUser(ctx: CheckContext, own: ParsedJwt): Impersonation | undefined {
  const tokens = [...ctx.jwts()].sort((a, b) => Number(b.identity === 'secondary') - Number(a.identity === 'secondary'));
  for (const t of tokens) {
    const other = parseJwt(t.token);
    const imp = other && impersonateToken(own.payload, other.payload);
    if (imp) return imp;
  }
  const ownValues = new Set(Object.values(own.payload).map(String));
  for (const name of ['username', 'login', 'email', 'userid', 'user_id']) {
    const v = ctx.values(name).find((h) => !ownValues.has(String(h.value)));
    const imp = v && impersonateValue(own.payload, v.value);
    if (imp) return imp;
  }
  return undefined;
}

function adminOperations(ctx: CheckContext): Operation[] {
  return ctx.model.operations.filter(
    (op) =>
      op.method === 'GET' && !op.publicByDesign && phaseOf(op) === 'read' && [...words(op.path), ...op.tags.flatMap(words)].some((w) => ADMIN_WORDS.has(w)),
  );
}

export async function demonstrateAccess(ctx: CheckContext, probe: Probe, jwt: ParsedJwt, signer: Signer): Promise<Demonstration> {
  const out: Demonstration = { summary: [], evidence: [], shown: false };
  const imp = otherUser(ctx, jwt);
  if (!imp) {
    out.summary.push('No other user was known (no second identity, no harvested user name), so impersonation was not tried.');
  } else {
    const res = await probe.send(signer.sign(jwt.header, imp.payload));
    const body = ctx.shownBody(res);
    if (probe.accepted(res) && body !== ctx.shownBody(probe.valid)) {
      out.shown = true;
      const names = body.includes(imp.as) ? ` and names ${imp.as}` : '';
      out.summary.push(
        `A token forged for ${imp.as} (${imp.changed.join(', ')}) ${signer.how} read ${probe.op.key}: ${res.status}, an answer unlike the real token's${names}.`,
      );
      out.evidence.push(ctx.evidence(res, `Forged token for ${imp.as} (${imp.changed.join(', ')}), ${signer.how}:\n${ctx.excerpt(res, 300)}`));
    } else {
      const how = probe.accepted(res) ? "the real token's own answer" : String(res.status);
      out.summary.push(
        `A token forged for ${imp.as} (${imp.changed.join(', ')}) got ${how} on ${probe.op.key}: the target does not take the user from those claims.`,
      );
    }
  }

  const admin = escalateRole(jwt.payload);
  let refused = 0;
  let escalated = false;
  for (const op of adminOperations(ctx)) {
    if (refused >= MAX_ADMIN_OPS) break;
    const real = await probe.real(op);
    if (real.status !== 401 && real.status !== 403) continue;
    refused++;
    const res = await probe.send(signer.sign(jwt.header, admin), op);
    if (!probe.accepted(res)) continue;
    escalated = out.shown = true;
    out.summary.push(
      `A token forged with an administrator role (role, roles, admin, is_admin, scope) ${signer.how} opened ${op.key}: ${res.status}, where the real token gets ${real.status}.`,
    );
    out.evidence.push(ctx.evidence(res, `Forged administrator token, ${signer.how} (the real token gets ${real.status} here):\n${ctx.excerpt(res, 300)}`));
    break;
  }
  if (refused === 0) out.summary.push('No admin-looking operation refuses the real token, so a higher role could not be shown.');
  else if (!escalated) out.summary.push(`A token forged with an administrator role was refused on ${refused} admin-looking operation(s).`);
  return out;
}
