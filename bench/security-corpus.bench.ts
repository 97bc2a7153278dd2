/**
 * `npm run bench security-corpus`: the security engine against the corpus of real applications
 * (test/corpus/apps.ts; docs/security-checks.md, "The corpus of real shapes"). Per app: the unpatched
 * twin (its high and critical findings are false positives, each listed, unless true of the app: its
 * `trueFindings`, counted apart) and each injected flaw
 * (found: a failed task of the flaw's check on the flaw's operation), with coverage (operations
 * reached 2xx / declared) and the time of each run, then the totals and the load average.
 * CORPUS_APPS=drf-tutorial,... and CORPUS_FLAWS=id,... (or "none") narrow the run.
 */
import { loadLine } from './lib/procs.js';
import { CORPUS } from '../test/corpus/apps.js';
import { coverageOf, findingsOf, scanVariant, trueFindingsOf, twinHighs } from '../test/corpus/run.js';

const only = (name: string) => (process.env[name] ? process.env[name]!.split(',') : undefined);

export async function run(): Promise<void> {
  const apps = only('CORPUS_APPS');
  const flaws = only('CORPUS_FLAWS');
  let found = 0;
  let injected = 0;
  let falsePositives = 0;
  process.stdout.write(`load before: ${loadLine()}\n`);
  for (const app of CORPUS.filter((a) => !apps || apps.includes(a.name))) {
    process.stdout.write(`\n${app.name} (${app.framework})\n`);
    const twin = await scanVariant(app);
    const highs = twinHighs(twin.outcome, app);
    falsePositives += highs.length;
    const cov = coverageOf(twin.outcome);
    const truth = trueFindingsOf(twin.outcome, app);
    const known = app.trueFindings?.length ? `; true of the app: ${truth.raised.length}/${app.trueFindings.length} raised` : '';
    process.stdout.write(`  twin: ${highs.length} false high/critical${known}; coverage ${cov.reached}/${cov.total}; ${twin.seconds.toFixed(0)} s\n`);
    for (const h of highs) process.stdout.write(`    false positive: ${h}\n`);
    for (const m of truth.missed) process.stdout.write(`    true of the app, not raised: ${m}\n`);
    for (const flaw of app.flaws.filter((f) => !flaws || flaws.includes(f.id))) {
      injected += 1;
      const result = await scanVariant(app, flaw);
      const hits = findingsOf(result.outcome, flaw);
      if (hits.length > 0) found += 1;
      const c = coverageOf(result.outcome);
      const verdict = hits.length > 0 ? `found (${hits.map((t) => `[${t.severity}] ${t.check} ${t.endpoint}`).join('; ')})` : 'MISSED';
      process.stdout.write(`  ${flaw.id}: ${verdict}; coverage ${c.reached}/${c.total}; ${result.seconds.toFixed(0)} s\n`);
      if (hits.length === 0) {
        const near = result.outcome.tasks.filter((t) => flaw.endpoints.includes(t.endpoint ?? '') && flaw.checks.includes(t.check ?? ''));
        for (const t of near) process.stdout.write(`    ${t.status} ${t.check} ${t.endpoint}: ${t.name}\n`);
        for (const c of result.outcome.security!.coverage.checks.filter((k) => flaw.checks.includes(k.check)))
          for (const n of c.not_run.filter((r) => r.endpoints.some((e) => flaw.endpoints.includes(e))))
            process.stdout.write(`    not tested by ${c.check}: ${n.reason}\n`);
      }
    }
  }
  process.stdout.write(`\ninjected flaws found: ${found}/${injected}; false positives (high/critical on twins): ${falsePositives}\n`);
  process.stdout.write(`load after: ${loadLine()}\n`);
}
