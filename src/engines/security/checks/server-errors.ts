/**
 * Server errors and verbose errors: 5xx on valid or malformed input, stack traces in error bodies.
 *
 * A 5xx the spec declares for the operation (its exact code, or its range "5XX") is documented
 * behaviour, not a finding; `default` documents no particular status and does not count. A stack
 * trace is a finding whatever the status.
 */
import type { CheckContext, Operation, OperationCheck, TargetResponse } from '../types.js';
import { describePoint, inject, injectionPoints } from '../synth.js';
import { validatorFor } from './schema-conformance.js';
import { STACK_TRACE, fail, pass } from './util.js';

function malformed(type: string | undefined): unknown {
  return type === 'integer' || type === 'number' ? 'vigil-not-a-number' : type === 'boolean' ? 'maybe' : '\u0000%%{{[';
}

/** True when the spec declares `status` for the operation: its exact code or its range ("5XX", any case). Not `default`. */
export function declaresStatus(op: Operation, status: number): boolean {
  const keys = new Set(Object.keys(op.responses).map((k) => k.toUpperCase()));
  return keys.has(String(status)) || keys.has(`${String(status)[0]}XX`);
}

/** A server error the spec does not document. */
function undeclaredServerError(op: Operation, res: TargetResponse): boolean {
  return res.status >= 500 && !declaresStatus(op, res.status);
}

/**
 * Why the scan's "valid" request is not one the schema accepts (the scan could not build a body
 * that satisfies it: a pattern no sample matches, say), or undefined when it is (or cannot be judged).
 */
export function invalidBody(ctx: Pick<CheckContext, 'model'>, op: Operation, sent: string | undefined): string | undefined {
  const schema = op.body?.schema;
  if (!schema || sent === undefined || !/json/i.test(op.body!.contentType)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(sent);
  } catch {
    return 'the body is not JSON';
  }
  const validate = validatorFor(ctx, schema);
  if (validate === 'unusable' || validate(value)) return undefined;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || 'the body'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

export const serverErrors: OperationCheck = {
  id: 'server-errors',
  title: 'Server errors',
  description:
    "Judges each operation's normal response, then sends it with malformed values (a string for a number, control characters, a truncated JSON body) in each parameter and body field, and reports 5xx answers the spec does not declare and stack traces in error responses.",
  risk: 'An input that crashes the server shows a code path without validation, often the entry point of injection or denial of service; stack traces and framework error pages give away file paths, library versions and code structure that make the next attack easier.',
  remediation:
    'Validate input against the schema before it reaches the code and answer invalid input with 400/422; catch errors at one place that logs the details server-side and answers a generic message with a correlation id, with debug output off in production.',
  owasp: 'API8:2023',
  cwe: 'CWE-209',
  references: [
    { title: 'OWASP Error Handling Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Error_Handling_Cheat_Sheet.html' },
    {
      title: 'OWASP WSTG: Testing for Improper Error Handling',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/08-Testing_for_Error_Handling/01-Testing_For_Improper_Error_Handling',
    },
    { title: 'OWASP Input Validation Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Input_Validation_Cheat_Sheet.html' },
  ],
  scope: 'operation',
  async run(ctx, op) {
    const valid = await ctx.baseline(op);
    const validName = 'Server error on a valid request';
    // The scan's own request is "valid" only when the schema accepts it: a 5xx to a body the scan could not make valid is malformed input.
    const invalid = invalidBody(ctx, op, valid.request.body);
    const validError = undeclaredServerError(op, valid);
    const results = invalid
      ? []
      : [
          validError
            ? fail(validName, 'medium', ctx.evidence(valid, ctx.excerpt(valid, 300)), { cwe: 'CWE-755', invented: false })
            : pass(validName, { cwe: 'CWE-755' }),
        ];

    const errors: TargetResponse[] = [];
    let worst: { res: TargetResponse; where: string } | undefined;
    const consider = (res: TargetResponse, where: string) => {
      if (res.status >= 400) errors.push(res);
      if (!undeclaredServerError(op, res)) return;
      // The first undeclared 5xx, unless a later one also shows a stack trace.
      if (!worst || (STACK_TRACE.test(res.body) && !STACK_TRACE.test(worst.res.body))) worst = { res, where };
    };
    for (const point of injectionPoints(op)) {
      consider(await ctx.send(ctx.request(op, inject(op, point, malformed(point.schema?.type)))), describePoint(point));
    }
    if (op.body && /json/i.test(op.body.contentType)) {
      consider(await ctx.send(ctx.request(op, { rawBody: '{"vigil": [', contentType: 'application/json' })), 'a truncated JSON body');
    }
    // A 5xx to malformed input counts when the malformation caused it: not when the valid request failed the same way.
    if (validError && !invalid) worst = undefined;
    // The scan's own request the schema refuses, answered 5xx: malformed input too (said as such).
    else if (invalid && validError && !worst) worst = { res: valid, where: `the scan's request, which the schema refuses (${invalid})` };
    // Failures carry their proof (invented: false); passes on an operation addressed with invented ids say so (the engine's default).
    const malformedName = 'Server error on malformed input';
    results.push(
      worst
        ? fail(malformedName, 'medium', ctx.evidence(worst.res, `${worst.where}: ${ctx.excerpt(worst.res, 300)}`), { cwe: 'CWE-755', invented: false })
        : pass(malformedName, { cwe: 'CWE-755' }),
    );

    const trace = [valid, worst?.res, ...errors].find((r): r is TargetResponse => !!r && r.status >= 400 && STACK_TRACE.test(r.body));
    const traceName = 'Stack trace in error response';
    results.push(
      trace
        ? fail(traceName, 'medium', ctx.evidence(trace, STACK_TRACE.exec(ctx.shownBody(trace))?.[0] ?? 'a stack trace'), { invented: false })
        : pass(traceName),
    );
    return results;
  },
};
