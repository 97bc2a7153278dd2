/** Server errors and verbose errors: 5xx on valid or malformed input, stack traces in error bodies. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest, describePoint, inject, injectionPoints } from '../synth.js';
import { STACK_TRACE, fail, pass } from './util.js';

function malformed(type: string | undefined): unknown {
  return type === 'integer' || type === 'number' ? 'vigil-not-a-number' : type === 'boolean' ? 'maybe' : '\u0000%%{{[';
}

export const serverErrors: CheckDefinition = {
  id: 'server-errors',
  title: 'Server errors',
  owasp: 'API8:2023',
  cwe: 'CWE-209',
  scope: 'operation',
  async run(scan, op) {
    const out: CheckResult[] = [];
    const valid = await scan.send(buildRequest(op!));
    out.push(
      valid.status >= 500
        ? fail('Server error on a valid request', 'medium', scan.evidence(valid, scan.excerpt(valid, 300)), { cwe: 'CWE-755' })
        : pass('Server error on a valid request', { cwe: 'CWE-755' }),
    );
    let worst: { res: typeof valid; where: string } | undefined;
    for (const point of injectionPoints(op!)) {
      const res = await scan.send(buildRequest(op!, inject(op!, point, malformed(point.schema?.type))));
      if (res.status >= 500 && (!worst || (STACK_TRACE.test(res.body) && !STACK_TRACE.test(worst.res.body)))) worst = { res, where: describePoint(point) };
    }
    if (op!.body && /json/i.test(op!.body.contentType)) {
      const res = await scan.send(buildRequest(op!, { rawBody: '{"vigil": [', contentType: 'application/json' }));
      if (res.status >= 500 && !worst) worst = { res, where: 'a truncated JSON body' };
    }
    out.push(
      worst
        ? fail('Server error on malformed input', 'medium', scan.evidence(worst.res, `${worst.where}: ${scan.excerpt(worst.res, 300)}`), { cwe: 'CWE-755' })
        : pass('Server error on malformed input', { cwe: 'CWE-755' }),
    );
    const trace = [valid, worst?.res].find((r) => r && r.status >= 400 && STACK_TRACE.test(r.body));
    out.push(
      trace
        ? fail('Stack trace in error response', 'medium', scan.evidence(trace, STACK_TRACE.exec(scan.shownBody(trace))?.[0] ?? 'a stack trace'))
        : pass('Stack trace in error response'),
    );
    return out;
  },
};
