/**
 * API8:2023 Security misconfiguration: TRACE echoing requests, and undeclared write methods
 * answered with success. Probed once per documented path (on its first documented operation, which
 * is what the results name), and reported once for the target listing the paths affected.
 *
 * Paths with an operation that looks destructive (reset, purge...) are not probed with write
 * methods, and in safe mode no DELETE is sent at all.
 */
import type { CheckContext, CheckResult, Operation, TargetCheck } from '../types.js';
import { isDestructive } from '../phases.js';
import { mapLimit, perTargetResult, scannedOperations, type Affected } from './per-target.js';
import { ok } from './util.js';

const WRITE_METHODS = ['PUT', 'PATCH', 'DELETE'];
const PROBES_IN_FLIGHT = 4;
const TRACE_NAME = 'TRACE method enabled (request echoed)';
const UNDECLARED_NAME = 'Undeclared write methods answered with success';

interface PathProbe {
  /** The path's first documented operation: probes use its path values, results name it. */
  op: Operation;
  declared: Set<string>;
  destructive: boolean;
}

function pathsOf(ops: Operation[]): PathProbe[] {
  const byPath = new Map<string, PathProbe>();
  for (const op of ops) {
    const p = byPath.get(op.path);
    if (p) {
      p.declared.add(op.method);
      p.destructive ||= isDestructive(op);
    } else byPath.set(op.path, { op, declared: new Set([op.method]), destructive: isDestructive(op) });
  }
  return [...byPath.values()];
}

/** Write methods to try on a path: undeclared ones, none on a destructive path, no DELETE in safe mode. */
function undeclaredWrites(ctx: CheckContext, p: PathProbe): string[] {
  if (p.destructive) return [];
  return WRITE_METHODS.filter((m) => !p.declared.has(m) && !(m === 'DELETE' && ctx.safeMode));
}

async function probePath(ctx: CheckContext, p: PathProbe): Promise<{ trace?: Affected; undeclared?: Affected }> {
  const base = ctx.request(p.op);
  // Not tied to the operation (another method): coverage does not count these answers as the operation's.
  const probe = {
    method: 'GET',
    path: base.path,
    query: base.query,
    headers: { accept: base.headers.accept ?? '*/*' },
    identity: p.op.publicByDesign ? ('none' as const) : ('primary' as const),
  };
  const out: { trace?: Affected; undeclared?: Affected } = {};

  // TRACE: only an echo of our own marker proves the request is reflected (cross-site tracing).
  const marker = `${ctx.marker}-trace`;
  const trace = await ctx.send({ ...probe, method: 'TRACE', headers: { ...probe.headers, 'x-vigil-trace': marker } });
  if (ok(trace) && trace.body.includes(marker)) {
    out.trace = { op: p.op, res: trace, severity: 'low', detail: `The response echoes the request, including the header x-vigil-trace: ${marker}` };
  }

  // Write methods the spec does not declare for this path, answered with a 2xx. A server that
  // answers an invented method with a 2xx too accepts anything: not judged.
  const undeclared = undeclaredWrites(ctx, p);
  if (undeclared.length === 0) return out;
  const control = await ctx.send({ ...probe, method: 'VIGILPROBE' });
  if (ok(control)) return out;
  for (const method of undeclared) {
    const res = await ctx.send({ ...probe, method });
    if (ok(res)) {
      const declared = [...p.declared].join(', ');
      out.undeclared = {
        op: p.op,
        res,
        severity: 'medium',
        detail: `${method} is not declared for ${p.op.path} (declared: ${declared}) but answered HTTP ${res.status}; an invented method got HTTP ${control.status || control.error}`,
      };
      break;
    }
  }
  return out;
}

export const httpMethods: TargetCheck = {
  id: 'http-methods',
  title: 'TRACE and undeclared methods',
  description:
    'Sends TRACE to every documented path and looks for its own marker header echoed back, then sends the write methods (PUT, PATCH, DELETE) the spec does not declare for the path and reports those answered with a 2xx, when an invented method is refused.',
  risk: 'TRACE echoes request headers, including cookies and credentials, back to whoever can make the browser send it (cross-site tracing). A write method that the documentation does not mention but the server accepts is an unreviewed way to change or delete data, often without the checks the documented methods have.',
  remediation:
    'Disable TRACE on the server and any proxy in front of it. Route only the methods the API documents and answer every other method with 405 Method Not Allowed and an Allow header.',
  owasp: 'API8:2023',
  cwe: 'CWE-749',
  references: [
    {
      title: 'OWASP WSTG: Test HTTP Methods',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/06-Test_HTTP_Methods',
    },
    {
      title: 'OWASP REST Security Cheat Sheet: HTTP methods',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#restrict-http-methods',
    },
  ],
  scope: 'target',
  applies: (ctx) => scannedOperations(ctx).length > 0 || 'no operation to probe',
  async run(ctx) {
    const paths = pathsOf(scannedOperations(ctx));
    const probes = await mapLimit(paths, PROBES_IN_FLIGHT, ctx.signal, (p) => probePath(ctx, p));
    const trace = probes.map((p) => p.trace).filter((a): a is Affected => !!a);
    const undeclared = probes.map((p) => p.undeclared).filter((a): a is Affected => !!a);
    const out: CheckResult[] = [perTargetResult(ctx, TRACE_NAME, trace, `${paths.length} paths`)];
    const probedForWrites = paths.filter((p) => undeclaredWrites(ctx, p).length > 0).length;
    if (probedForWrites > 0) out.push(perTargetResult(ctx, UNDECLARED_NAME, undeclared, `${probedForWrites} paths`));
    return out;
  },
};
