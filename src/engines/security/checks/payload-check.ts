/**
 * A payload check: per injection point, send payloads in the operation's real request (harvested
 * ids in its path) and judge each answer against the engine's baseline of the operation.
 */
import type { CheckContext, CheckMeta, CheckResult, Operation, OperationCheck, RequestSpec, TargetResponse } from '../types.js';
import { describePoint, inject, injectionPoints, type InjectionPoint } from '../synth.js';
import { fail, pass } from './util.js';

export interface PayloadCheckSpec extends Omit<CheckMeta, 'timing'> {
  severity: CheckResult['severity'];
  /** Result name before the point, e.g. "SQL injection (error-based) in" (then "query parameter q"). */
  label: string;
  /** Points to try (default all). */
  points?(op: Operation): InjectionPoint[];
  /** Why an operation without such a point is not tested, e.g. "no string parameter or body field". */
  nothingToTest: string;
  /** Payloads for a point; `value` is what the operation's request really carries there (a harvested id, say). */
  payloads(point: InjectionPoint, value: string): unknown[];
  /** The proof when the answer shows the flaw and the baseline does not (bodies quoted through `ctx.excerpt`/`ctx.shownBody`). */
  judge(res: TargetResponse, baseline: TargetResponse, payload: unknown, ctx: CheckContext, point: InjectionPoint): string | undefined;
  /** Request fields every probe carries (open redirect: redirects are not followed). */
  probe?: Pick<RequestSpec, 'followRedirects'>;
}

export function payloadCheck(s: PayloadCheckSpec): OperationCheck {
  const { severity, label, points, nothingToTest, payloads, judge, probe, ...meta } = s;
  const pointsOf = (op: Operation) => (points ? points(op) : injectionPoints(op));
  return {
    ...meta,
    scope: 'operation',
    applies: (op) => pointsOf(op).length > 0 || nothingToTest,
    async run(ctx, op) {
      const baseline = await ctx.baseline(op);
      const request = ctx.request(op);
      const invented = ctx.invented(op);
      const out: CheckResult[] = [];
      for (const point of pointsOf(op)) {
        const name = `${label} ${describePoint(point)}`;
        let found: CheckResult | undefined;
        for (const payload of payloads(point, pointValue(request, op, point))) {
          const res = await ctx.send({ ...ctx.request(op, inject(op, point, payload)), ...probe });
          const proof = res.status ? judge(res, baseline, payload, ctx, point) : undefined;
          if (proof) {
            found = fail(name, severity, ctx.evidence(res, proof), { parameter: point.name });
            break;
          }
        }
        // A pass on an operation addressed with an invented id may only mean "not found": said so.
        out.push(found ?? pass(name, { parameter: point.name, ...(invented ? { invented } : {}) }));
      }
      return out;
    },
  };
}

/** Points whose value is a string (or untyped). */
export function stringPoints(op: Operation): InjectionPoint[] {
  return injectionPoints(op).filter((p) => {
    const t = p.schema?.type;
    return t === undefined || t === 'string' || (Array.isArray(t) && t.includes('string'));
  });
}

/**
 * The value a request carries at an injection point: the harvested id the engine put in the path
 * or query, else the spec's value. Payloads built on it (`<id>'`) reach the code behind a real resource.
 */
export function pointValue(req: RequestSpec, op: Operation, point: InjectionPoint): string {
  switch (point.kind) {
    case 'query':
      return req.query.find(([k]) => k === point.name)?.[1] ?? point.value;
    case 'header':
      return req.headers[point.name.toLowerCase()] ?? point.value;
    case 'path':
      return pathParam(op.path, req.path, point.name) ?? point.value;
    case 'body':
      return point.value;
  }
}

/** The value of `{name}` in a concrete path built from `template`. */
export function pathParam(template: string, path: string, name: string): string | undefined {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]*)';
    })
    .join('');
  const match = new RegExp(`^${source}$`).exec(path.split('?')[0]);
  const at = names.indexOf(name);
  if (!match || at < 0) return undefined;
  try {
    return decodeURIComponent(match[at + 1]);
  } catch {
    return match[at + 1];
  }
}
