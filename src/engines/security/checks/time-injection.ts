/** OS command and SQL time-based injection, confirmed by differential timing with rising delays. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest, describePoint, inject } from '../synth.js';
import { stringPoints } from './payload-check.js';
import { fail, pass } from './util.js';
import { medianBaseline } from './timing.js';

const FAMILIES: { label: string; cwe: string; make: (v: string, s: number) => string[] }[] = [
  { label: 'OS command injection (time-based)', cwe: 'CWE-78', make: (v, s) => [`${v};sleep ${s}`, `${v}|sleep ${s}`, `${v}$(sleep ${s})`] },
  {
    label: 'SQL injection (time-based)',
    cwe: 'CWE-89',
    make: (v, s) => [`${v}' AND SLEEP(${s})-- -`, `${v}'; SELECT pg_sleep(${s})--`, `${v}'; WAITFOR DELAY '0:0:${s}'--`],
  },
];

export const timeInjection: CheckDefinition = {
  id: 'time-injection',
  title: 'Time-based injection',
  owasp: 'API8:2023',
  cwe: 'CWE-78',
  scope: 'operation',
  applies: (op) => stringPoints(op).length > 0,
  async run(scan, op) {
    const d1 = scan.tuning.timeDelayMs;
    const secs = (ms: number) => Number((ms / 1000).toFixed(2));
    const out: CheckResult[] = [];
    // Baseline: the median of three normal requests (one hiccup neither hides nor fakes a delay);
    // the rising-delay confirmation below is what rules out jitter.
    const base = (await medianBaseline(scan, buildRequest(op!))).ms;
    for (const fam of FAMILIES) {
      for (const point of stringPoints(op!)) {
        const name = `${fam.label} in ${describePoint(point)}`;
        let found: CheckResult | undefined;
        const shapes = fam.make(point.value, 1).length;
        for (let i = 0; i < shapes && !found; i++) {
          const at = (ms: number) => scan.send({ ...buildRequest(op!, inject(op!, point, fam.make(point.value, secs(ms))[i])), timeoutMs: base + ms * 3 + 2000 });
          const r1 = await at(d1);
          if (r1.elapsedMs < base + d1 * 0.8) continue;
          // Confirm twice with rising delays: each must add about its own delay.
          const r2 = await at(d1 * 2);
          if (r2.elapsedMs < base + d1 * 1.6 || r2.elapsedMs < r1.elapsedMs + d1 * 0.6) continue;
          const r3 = await at(d1 * 3);
          if (r3.elapsedMs < base + d1 * 2.4 || r3.elapsedMs < r2.elapsedMs + d1 * 0.6) continue;
          found = fail(
            name,
            'critical',
            scan.evidence(r3, `Response time followed the injected delay: baseline ${Math.round(base)} ms; delays ${d1}/${d1 * 2}/${d1 * 3} ms gave ${Math.round(r1.elapsedMs)}/${Math.round(r2.elapsedMs)}/${Math.round(r3.elapsedMs)} ms`),
            { parameter: point.name, cwe: fam.cwe },
          );
        }
        out.push(found ?? pass(name, { parameter: point.name, cwe: fam.cwe }));
      }
    }
    return out;
  },
};
