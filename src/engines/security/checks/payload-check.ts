/** A reflected-payload check: inject payloads per injection point, judge against the baseline. */
import type { CheckDefinition, CheckResult, Operation, TargetResponse } from '../types.js';
import type { ScanSession } from '../session.js';
import { buildRequest, describePoint, inject, injectionPoints, type InjectionPoint } from '../synth.js';
import { fail, pass } from './util.js';

export interface PayloadCheckSpec {
  id: string;
  title: string;
  owasp: string;
  cwe: string;
  severity: CheckResult['severity'];
  /** Which points to try (default all). */
  points?(op: Operation): InjectionPoint[];
  payloads(point: InjectionPoint): unknown[];
  /** Returns the proof when the response shows the flaw and the baseline does not (quoting bodies through `scan.excerpt`). */
  judge(res: TargetResponse, baseline: TargetResponse, payload: unknown, scan: ScanSession): string | undefined;
  label: string;
}

export function payloadCheck(s: PayloadCheckSpec): CheckDefinition {
  const pointsOf = (op: Operation) => (s.points ? s.points(op) : injectionPoints(op));
  return {
    id: s.id,
    title: s.title,
    owasp: s.owasp,
    cwe: s.cwe,
    scope: 'operation',
    applies: (op) => pointsOf(op).length > 0,
    async run(scan: ScanSession, op) {
      const baseline = await scan.send(buildRequest(op!));
      const out: CheckResult[] = [];
      for (const point of pointsOf(op!)) {
        const name = `${s.label} in ${describePoint(point)}`;
        let found: CheckResult | undefined;
        for (const payload of s.payloads(point)) {
          const res = await scan.send(buildRequest(op!, inject(op!, point, payload)));
          const proof = res.status ? s.judge(res, baseline, payload, scan) : undefined;
          if (proof) {
            found = fail(name, s.severity, scan.evidence(res, proof), { parameter: point.name });
            break;
          }
        }
        out.push(found ?? pass(name, { parameter: point.name }));
      }
      return out;
    },
  };
}

export function stringPoints(op: Operation): InjectionPoint[] {
  return injectionPoints(op).filter((p) => {
    const t = p.schema?.type;
    return t === undefined || t === 'string' || (Array.isArray(t) && t.includes('string'));
  });
}
