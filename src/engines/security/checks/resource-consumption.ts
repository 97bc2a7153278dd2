/** API4:2023 Unrestricted resource consumption: oversized page sizes whose cost grows with the value. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest, describePoint, inject, injectionPoints } from '../synth.js';
import { fail, ok, pass } from './util.js';

const SIZE_NAME = /^(limit|size|per_?page|page_?size|count|max|max_?results|top|take|first)$/i;

export const resourceConsumption: CheckDefinition = {
  id: 'resource-consumption',
  title: 'Unrestricted resource consumption',
  owasp: 'API4:2023',
  cwe: 'CWE-770',
  scope: 'operation',
  applies: (op) => injectionPoints(op).some((p) => p.kind === 'query' && SIZE_NAME.test(p.name)),
  async run(scan, op) {
    const out: CheckResult[] = [];
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) samples.push((await scan.send(buildRequest(op!))).elapsedMs);
    const base = samples.sort((a, b) => a - b)[1];
    for (const point of injectionPoints(op!).filter((p) => p.kind === 'query' && SIZE_NAME.test(p.name))) {
      const name = `Oversized page size accepted in ${describePoint(point)}`;
      const r1 = await scan.send(buildRequest(op!, inject(op!, point, 100000)));
      const r2 = ok(r1) && r1.elapsedMs > base + 250 ? await scan.send(buildRequest(op!, inject(op!, point, 200000))) : undefined;
      // Differential: the cost must rise with the requested size, not just be slow once.
      if (r2 && ok(r2) && r2.elapsedMs > r1.elapsedMs + (r1.elapsedMs - base) * 0.5) {
        out.push(fail(name, 'medium', scan.evidence(r2, `Baseline ${Math.round(base)} ms; ${point.name}=100000 took ${Math.round(r1.elapsedMs)} ms, ${point.name}=200000 took ${Math.round(r2.elapsedMs)} ms`), { parameter: point.name }));
      } else out.push(pass(name, { parameter: point.name }));
    }
    return out;
  },
};
