/** OS command and SQL time-based injection, confirmed by differential timing with rising delays. */
import type { CheckResult, OperationCheck } from '../types.js';
import { describePoint } from '../synth.js';
import { pointValue, probeRequest, stringPoints } from './payload-check.js';
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

export const timeInjection: OperationCheck = {
  id: 'time-injection',
  title: 'Time-based injection',
  description:
    'Appends shell (;sleep, |sleep, $(sleep)) and SQL (SLEEP, pg_sleep, WAITFOR DELAY) delays to each string parameter and body field; a delay counts only when the answer is late by about the delay asked, then by twice and three times as much, each against the same probe asking for no delay sent just before it.',
  risk: 'Input reaches a shell command or an SQL statement as code without any visible error: an attacker runs commands on the server or extracts the database one bit at a time from response times.',
  remediation:
    'Never pass input to a shell: call programs with an argument array (execFile, subprocess without shell=True) or use a library instead of a command, and allow-list values such as host names; for SQL use parameterised queries for every value.',
  owasp: 'API8:2023',
  cwe: 'CWE-78',
  references: [
    {
      title: 'OWASP OS Command Injection Defense Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/OS_Command_Injection_Defense_Cheat_Sheet.html',
    },
    { title: 'OWASP SQL Injection Prevention Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html' },
  ],
  timing: true,
  scope: 'operation',
  applies: (op) => stringPoints(op).length > 0 || 'no string parameter or body field',
  async run(ctx, op) {
    const d1 = ctx.tuning.timeDelayMs;
    const secs = (ms: number) => Number((ms / 1000).toFixed(2));
    const out: CheckResult[] = [];
    const request = ctx.request(op);
    // Baseline: the median of three normal requests (one hiccup neither hides nor fakes a delay);
    // the rising-delay confirmation below is what rules out jitter.
    const base = (await medianBaseline(ctx, request)).ms;
    for (const fam of FAMILIES) {
      for (const point of stringPoints(op)) {
        const name = `${fam.label} in ${describePoint(point)}`;
        const value = pointValue(request, op, point);
        let found: CheckResult | undefined;
        const shapes = fam.make(value, 1).length;
        for (let i = 0; i < shapes && !found; i++) {
          const at = (ms: number) => ctx.send({ ...probeRequest(ctx, op, point, fam.make(value, secs(ms))[i]), timeoutMs: base + ms * 3 + 2000 });
          const r1 = await at(d1);
          if (r1.elapsedMs < base + d1 * 0.8) continue;
          // Confirm twice with rising delays, each measured against a zero-delay twin of the same
          // probe sent just before it: a target that slows down as the scan writes to it (a JSON
          // file rewritten on every request) is later, not slower by the delay asked.
          const pairs: { control: number; probe: number; ms: number }[] = [];
          let last = r1;
          for (const k of [2, 3]) {
            const control = await at(0);
            const probe = await at(d1 * k);
            if (probe.elapsedMs - control.elapsedMs < d1 * k * 0.8) break;
            pairs.push({ control: control.elapsedMs, probe: probe.elapsedMs, ms: d1 * k });
            last = probe;
          }
          if (pairs.length < 2) continue;
          const confirmations = pairs.map((p) => `${p.ms} ms gave ${Math.round(p.probe)} ms against ${Math.round(p.control)} ms for 0 ms`).join('; ');
          found = fail(
            name,
            'critical',
            ctx.evidence(
              last,
              `Response time followed the injected delay: baseline ${Math.round(base)} ms; a delay of ${d1} ms gave ${Math.round(r1.elapsedMs)} ms; ${confirmations}`,
            ),
            { parameter: point.name, cwe: fam.cwe, invented: false },
          );
        }
        out.push(found ?? pass(name, { parameter: point.name, cwe: fam.cwe }));
      }
    }
    return out;
  },
};
