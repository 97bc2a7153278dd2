/**
 * A payload check: per injection point, send payloads in the operation's real request (harvested
 * ids in its path) and judge each answer against the engine's baseline of the operation.
 */
import type { CheckContext, CheckMeta, CheckResult, Operation, OperationCheck, RequestSpec, TargetResponse } from '../types.js';
import { describePoint, getAt, inject, injectionPoints, pointKeys, setAt, type InjectionPoint } from '../synth.js';
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
      const out: CheckResult[] = [];
      for (const point of pointsOf(op)) {
        const name = `${label} ${describePoint(point)}`;
        let found: CheckResult | undefined;
        for (const payload of payloads(point, pointValue(request, op, point))) {
          const res = await ctx.send({ ...probeRequest(ctx, op, point, payload), ...probe });
          const proof = res.status ? judge(res, baseline, payload, ctx, point) : undefined;
          if (proof) {
            // The proof is in the answer, whether or not the operation was addressed with an invented id.
            found = fail(name, severity, ctx.evidence(res, proof), { parameter: point.name, invented: false });
            break;
          }
        }
        // A pass where the engine had to invent an id may only mean "not found": the engine says so.
        out.push(found ?? pass(name, { parameter: point.name }));
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
    case 'body': {
      const v = getAt(bodyObject(req), pointKeys(point));
      return typeof v === 'string' || typeof v === 'number' ? String(v) : point.value;
    }
  }
}

/**
 * The operation's request (harvested ids; for a create or update, a fresh body with unique names,
 * so a probe does not collide with the spec's example or an earlier probe) with `value` at `point`.
 */
export function probeRequest(ctx: Pick<CheckContext, 'request'>, op: Operation, point: InjectionPoint, value: unknown): RequestSpec {
  if (point.kind !== 'body') return ctx.request(op, inject(op, point, value));
  const body = bodyObject(ctx.request(op));
  return ctx.request(op, body ? { body: setAt(body, pointKeys(point), value) } : inject(op, point, value));
}

/** The JSON object or form fields a built request carries (undefined for other bodies). */
export function bodyObject(req: RequestSpec): Record<string, unknown> | undefined {
  if (typeof req.body !== 'string') return undefined;
  const type = req.headers['content-type'] ?? '';
  if (/x-www-form-urlencoded/i.test(type)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(req.body)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return out;
  }
  if (!/json/i.test(type)) return undefined;
  try {
    const parsed: unknown = JSON.parse(req.body);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
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
