/** API8:2023 Security misconfiguration: TRACE echoing requests, and undeclared write methods answered with success. */
import { randomBytes } from 'node:crypto';
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest } from '../synth.js';
import { fail, ok, pass } from './util.js';

const WRITE_METHODS = ['PUT', 'PATCH', 'DELETE'];

export const httpMethods: CheckDefinition = {
  id: 'http-methods',
  title: 'TRACE and unexpected methods',
  owasp: 'API8:2023',
  cwe: 'CWE-749',
  scope: 'operation',
  // Once per path: on its first documented operation.
  applies: (op, scan) => scan.model.operations.find((o) => o.path === op.path) === op,
  async run(scan, op) {
    const out: CheckResult[] = [];
    const base = buildRequest(op!);
    const probe = { method: 'GET', path: base.path, query: base.query, headers: { accept: base.headers.accept } };

    // TRACE: only an echo of our own marker proves the request is reflected (cross-site tracing).
    const marker = `vigil-${randomBytes(6).toString('hex')}`;
    const trace = await scan.send({ ...probe, method: 'TRACE', headers: { ...probe.headers, 'x-vigil-trace': marker } });
    out.push(
      ok(trace) && trace.body.includes(marker)
        ? fail('TRACE method enabled (request echoed)', 'low', scan.evidence(trace, `The response echoes the request, including the header x-vigil-trace: ${marker}`))
        : pass('TRACE method enabled (request echoed)'),
    );

    // Write methods the spec does not declare for this path, answered with a 2xx. A server that
    // answers an invented method with a 2xx too accepts anything: not judged.
    const declared = new Set(scan.model.operations.filter((o) => o.path === op!.path).map((o) => o.method));
    const undeclared = WRITE_METHODS.filter((m) => !declared.has(m));
    if (undeclared.length === 0) return out;
    const name = 'Undeclared write methods answered with success';
    const control = await scan.send({ ...probe, method: 'VIGILPROBE' });
    if (ok(control)) return out;
    let hit: CheckResult | undefined;
    for (const method of undeclared) {
      const res = await scan.send({ ...probe, method });
      if (ok(res)) {
        hit = fail(name, 'medium', scan.evidence(res, `${method} is not declared for ${op!.path} (declared: ${[...declared].join(', ')}) but answered HTTP ${res.status}; an invented method got HTTP ${control.status || control.error}`), { parameter: method });
        break;
      }
    }
    out.push(hit ?? pass(name));
    return out;
  },
};
