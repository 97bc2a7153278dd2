/**
 * Security engine: load the spec, discover real resources per identity, then run every registered
 * check phase by phase (reads, creates, updates, deletes, destructive last), timing probes alone,
 * clean up what the scan created, and report coverage.
 */
import { EngineFailure, targetBlocked, type EngineContext, type ScanEngine } from '../engine.js';
import { thresholdReached, type EngineOutcome, type SecurityOutcome, type Severity, type Task } from '../../domain/scan.js';
import { TargetClient, type LookupFn } from './client.js';
import { loadSpec } from './spec/index.js';
import { ScanSession, compileExclude } from './session.js';
import { buildRequest } from './synth.js';
import { CHECKS } from './checks/index.js';
import { PHASES, phaseOf } from './phases.js';
import { discover, eachLimited } from './discovery.js';
import { cleanUp } from './cleanup.js';
import { checkInfo } from './catalog.js';
import { declaredRedirect, loginExecuted, reachedVerdict, type Attempt } from './verdict.js';
import { isAuthOperation } from './unique-values.js';
import { TargetWatch } from './watch.js';
import { ScanCeiling } from './ceiling.js';
import { isSelfRead, lossCause } from './identities.js';
import { notApplicable } from './coverage.js';
import {
  DEFAULT_TUNING,
  type CheckDefinition,
  type CheckResult,
  type Operation,
  type OperationPhase,
  type SecurityTuning,
  type TargetResponse,
} from './types.js';

export interface SecurityEngineOptions {
  tuning?: Partial<SecurityTuning>;
  lookup?: LookupFn;
  checks?: CheckDefinition[];
}

/** True when a failed task reaches the fail_on threshold (the one rule of domain/scan.ts). */
export function failOnReached(tasks: Task[], failOn: Severity | undefined): boolean {
  return thresholdReached(tasks, failOn);
}

type Unit = { check: CheckDefinition; op?: Operation };

/** Below this share of operations answering 2xx, the results warn that the scan mostly saw errors. */
const FEW_2XX_SHARE = 0.25;
/** A liveness probe at least every this many checks (besides after timing probes and unanswered checks). */
const LIVENESS_EVERY = 25;

export function createSecurityEngine(opts: SecurityEngineOptions = {}): ScanEngine {
  const tuning: SecurityTuning = { ...DEFAULT_TUNING, ...opts.tuning };
  return {
    kind: 'security',
    async run(ctx: EngineContext): Promise<EngineOutcome> {
      const input = ctx.input;
      let target: URL;
      try {
        target = new URL(input.url);
      } catch {
        throw new EngineFailure('INVALID_TARGET', `The target URL ${input.url} is not a valid URL.`);
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new EngineFailure('INVALID_TARGET', 'The target URL must use http or https.');
      // The API normalised the options (http/scan-request.ts): every default is already filled in.
      const concurrency = input.options.concurrency;
      const ceiling = new ScanCeiling(tuning.maxScanSeconds);
      const client = new TargetClient({
        allowPrivate: ctx.deployment !== 'hosted',
        concurrency,
        timeoutMs: input.options.timeout * 1000,
        signal: ctx.signal,
        maxBodyBytes: tuning.maxBodyBytes,
        lookup: opts.lookup,
      });
      try {
        // Discovery: the spec, the reachability probe and the resources the checks will use.
        ctx.progress(0, { phase: 'discovery' });
        // One session from the start: spec fetches and the scan share one OAuth2 token.
        const session = new ScanSession(
          client,
          { title: '', apiVersion: '', specVersion: '', serverPath: '', serverSchemes: [], operations: [] },
          input.url,
          input.auth,
          tuning,
          ctx.signal,
          ctx.redactor,
          { safeMode: input.options.safe_mode === true },
        );
        const { model } = await loadSpec(
          client,
          { specText: input.spec_text, specUrl: input.spec_url, targetUrl: input.url, maxOperations: tuning.maxOperations, maxBytes: tuning.maxSpecBytes },
          () => session.specHeaders(),
        );
        session.model = model;
        session.ceiling = ceiling;
        const coverage = session.coverage;
        coverage.operations(model.operations);
        const excluded = compileExclude(input.options.exclude);
        const ops: Operation[] = [];
        for (const op of model.operations) {
          if (excluded(op, session.url(buildRequest(op).path))) coverage.skipped(op, 'excluded');
          else if (session.safeMode && phaseOf(op) === 'destructive') coverage.skipped(op, 'safe mode: destructive or global');
          else ops.push(op);
        }

        session.operations = ops;

        // Reachability: one read that gets no response at all fails the scan clearly (never a write: a reset must not run first).
        // Not cached as a baseline: before discovery an item read would carry the spec's example id.
        const firstRead = ops.find((op) => phaseOf(op) === 'read' && !op.params.some((p) => p.in === 'path')) ?? ops.find((op) => phaseOf(op) === 'read');
        const probe = firstRead ? await session.send(session.request(firstRead)) : await client.send({ method: 'GET', url: input.url, headers: {} });
        // (Cut or withheld by the scan's ceiling, it says nothing about reachability: the scan ends with what it measured.)
        if (probe.status === 0 && !ceiling.reached()) {
          if (probe.error === 'blocked') throw targetBlocked(`The target ${target.host}`);
          throw new EngineFailure('TARGET_UNREACHABLE', `The target ${target.origin} could not be reached: ${probe.errorMessage ?? probe.error}.`);
        }

        // Each identity the user gave, logged in (when it logs in) and verified before anything relies on it.
        if (session.hasAuth) {
          const candidates = ops
            .filter((op) => op.method === 'GET' && !op.publicByDesign && !op.params.some((p) => p.in === 'path' || p.required) && !isAuthOperation(op))
            .sort((a, b) => Number(isSelfRead(b)) - Number(isSelfRead(a)) || Number(b.secured) - Number(a.secured));
          for (const identity of session.hasSecondary ? (['primary', 'secondary'] as const) : (['primary'] as const)) {
            if ((await session.logIn(identity)) !== undefined) continue;
            await session.identities.verify(identity, candidates, (op, as) => session.send({ ...session.request(op, undefined, as), identity: as }));
            // A login counts only when its credential then works: refused (401) where authentication is needed, it does not.
            const st = session.identities.state(identity);
            if (session.logsIn(identity) && st.unverified && st.refusedWith?.length && st.refusedWith.every((s) => s === 401)) {
              session.identities.loginFailed(
                identity,
                `the login yielded a credential, but the target refused it where authentication is needed (${st.unverified.replace(/^refused where authentication is needed \((.*)\)$/, '$1')}): a login counts only when its credential works`,
                true,
              );
            }
          }
        }
        await discover(session, ops, concurrency);
        const watch = new TargetWatch(session, {
          recoveryWaitMs: tuning.recoveryWaitMs,
          probeTimeoutMs: Math.min(input.options.timeout * 1000, 10_000),
          every: LIVENESS_EVERY,
        });
        watch.choose(ops);
        ctx.progress(5, { phase: 'discovery', findings: 0 });

        const checks = (opts.checks ?? CHECKS).filter((c) => !tuning.onlyChecks || tuning.onlyChecks.includes(c.id));
        const byPhase = new Map<OperationPhase, { stateful: Unit[]; normal: Unit[]; timing: Unit[] }>(
          PHASES.map((p) => [p, { stateful: [], normal: [], timing: [] }]),
        );
        const place = (phase: OperationPhase, unit: Unit) =>
          byPhase.get(phase)![unit.check.timing ? 'timing' : unit.check.stateful || unit.check.early ? 'stateful' : 'normal'].push(unit);
        for (const check of checks) {
          coverage.check(check.id, check.title);
          if (check.scope === 'target') {
            const verdict = check.applies ? check.applies(session) : true;
            if (verdict === true) place('read', { check });
            else coverage.notRun(check.id, notApplicable(verdict));
            continue;
          }
          for (const op of model.operations) {
            if (!ops.includes(op)) {
              coverage.notRun(
                check.id,
                session.safeMode && phaseOf(op) === 'destructive' ? { code: 'safe_mode', text: 'safe mode' } : { code: 'excluded', text: 'excluded' },
                op.key,
              );
              continue;
            }
            const verdict = check.applies ? check.applies(op, session) : true;
            if (verdict === true) place(phaseOf(op), { check, op });
            else coverage.notRun(check.id, notApplicable(verdict), op.key);
          }
        }
        const total = [...byPhase.values()].reduce((n, p) => n + p.stateful.length + p.normal.length + p.timing.length, 0);

        const tasks: Task[] = [];
        let done = 0;
        let failed = 0;
        let current: OperationPhase = PHASES[0]!;
        const runUnit = async (unit: Unit) => {
          let results: CheckResult[];
          let notTested = false;
          if (watch.down) {
            // The target went down and did not come back: nothing after that was tested.
            coverage.notRun(unit.check.id, watch.reason(), unit.op?.key);
            done++;
            return;
          }
          if (ceiling.reached()) {
            coverage.notRun(unit.check.id, ceiling.reason, unit.op?.key);
            done++;
            return;
          }
          try {
            const attempt = () => session.track(unit.op, (ctx) => (unit.check.scope === 'target' ? unit.check.run(ctx) : unit.check.run(ctx, unit.op!)));
            let { value: outcome, attempts, last } = await attempt();
            let dos: CheckResult | undefined;
            // Is the target still there? After every timing or size probe, after no answer, and every so often.
            const noAnswer = (a: Attempt[], l: TargetResponse | undefined) =>
              a.some((x) => x.status === 0 && x.withheld === undefined) || (l?.status === 0 && l.error !== 'withheld');
            if (!ceiling.reached() && watch.due(!!unit.check.timing, noAnswer(attempts, last))) {
              const stall = await watch.after(unit.check.id, unit.op);
              if (stall && !stall.recovered) dos = watch.finding(stall, last);
              else if (stall) {
                // The target came back: the unit again, so that only a stall its requests cause again is reported.
                ({ value: outcome, attempts, last } = await attempt());
                const again = await watch.after(unit.check.id, unit.op);
                if (again) dos = watch.finding(stall, last, again);
              }
            }
            if (ceiling.reached() && !dos) {
              // The check ran into the ceiling (its last requests cut or withheld): what it concluded proves nothing.
              coverage.notRun(unit.check.id, ceiling.reason, unit.op?.key);
              done++;
              return;
            }
            if (!Array.isArray(outcome)) {
              coverage.notRun(unit.check.id, { code: outcome.code, text: outcome.notTested }, unit.op?.key);
              notTested = true;
              results = [];
            } else results = outcome;
            // A pass stands only where the check's requests reached the code it tests (verdict.ts).
            if (unit.op && results.some((r) => r.status === 'passed')) {
              const op = unit.op;
              const check = unit.check;
              const login = loginExecuted(op, isAuthOperation);
              const verdict = reachedVerdict(
                attempts,
                coverage.answered2xx(op),
                (s) => (check.executedBy?.(s, op) ?? false) || (login?.(s) ?? false) || declaredRedirect(op, s),
              );
              if (verdict !== true) {
                results = results.filter((r) => r.status !== 'passed');
                if (!results.length) {
                  coverage.notRun(unit.check.id, verdict, op.key);
                  notTested = true;
                }
              }
            }
            if (dos) {
              // What the check concluded while the target went away proves nothing; the outage is the finding.
              results = [...results.filter((r) => r.status === 'failed'), dos];
              notTested = false;
            }
          } catch (err) {
            if (ctx.signal.aborted) throw ctx.signal.reason;
            if (err instanceof EngineFailure) throw err;
            ctx.logger.warn({ err, check: unit.check.id, op: unit.op?.key }, 'security check failed to run');
            results = [];
            // An error in the check says nothing about the target: not tested, never "nothing to test".
            coverage.notRun(unit.check.id, { code: 'check_error', text: 'the check failed to run (an error in Vigil; the worker logged it)' }, unit.op?.key);
            notTested = true;
          }
          if (results.length) coverage.ran(unit.check.id);
          else if (!notTested) coverage.notRun(unit.check.id, { code: 'not_applicable', text: 'nothing to test' }, unit.op?.key);
          const invented = unit.op ? session.invented(unit.op) : false;
          for (const r of results) {
            if (r.status === 'failed') failed++;
            tasks.push({
              task_id: '',
              kind: 'security',
              name: r.name,
              status: r.status,
              severity: r.severity,
              evidence: r.evidence === undefined ? undefined : session.mask(r.evidence),
              check: unit.check.id,
              owasp: unit.check.owasp,
              cwe: r.cwe ?? unit.check.cwe,
              endpoint: r.endpoint ?? unit.op?.key ?? r.endpoints?.[0],
              parameter: r.parameter,
              ...(r.endpoints?.length ? { endpoints: r.endpoints } : {}),
              ...((r.invented ?? invented) ? { invented_values: true } : {}),
            });
          }
          done++;
          ctx.progress(Math.min(99, 5 + Math.round((done / Math.max(total, 1)) * 94)), { phase: current, findings: failed });
        };
        let deleted = 0;
        for (const phase of PHASES) {
          current = phase;
          ctx.progress(Math.min(99, 5 + Math.round((done / Math.max(total, 1)) * 94)), { phase, findings: failed });
          // The scan's own resources go before anything destructive runs (which may wipe them anyway).
          if (phase === 'destructive' && !watch.down) deleted = await cleanUp(session, ops);
          const { stateful, normal, timing } = byPhase.get(phase)!;
          // Authorization checks (and probes that need a fresh target) first, on resources nothing else has touched yet.
          await eachLimited(stateful, concurrency, ctx.signal, runUnit);
          await eachLimited(normal, concurrency, ctx.signal, runUnit);
          // Timing probes alone against the target: nothing else of the scan in flight.
          for (const unit of timing) {
            ctx.signal.throwIfAborted();
            await runUnit(unit);
          }
        }
        ctx.signal.throwIfAborted();

        for (const op of ops) if (op.params.some((p) => p.in === 'path') && session.invented(op)) coverage.invented(op);
        tasks.sort(
          (a, b) => (a.check ?? '').localeCompare(b.check ?? '') || (a.endpoint ?? '').localeCompare(b.endpoint ?? '') || a.name.localeCompare(b.name),
        );
        tasks.forEach((t, i) => (t.task_id = `sec-${String(i + 1).padStart(4, '0')}`));
        const reached = coverage.reached();
        const warnings: string[] = [];
        if (ceiling.reachedAt) {
          const stopped = coverage.checkCoverage().reduce((n, c) => n + (c.not_run.find((r) => r.reason_code === 'time_ceiling')?.count ?? 0), 0);
          warnings.push(
            `The target was too slow: the scan reached its ceiling of ${ceiling.seconds} s spent on the target (VIGIL_SCAN_MAX_SECONDS) at ${ceiling.reachedAt} and stopped there; what it measured before is reported, and ${stopped ? `${stopped} check${stopped === 1 ? '' : 's'} after it ${stopped === 1 ? 'is' : 'are'}` : 'everything after it is'} not tested (coverage: "${ceiling.reason.text}").`,
          );
        }
        if (watch.down) {
          const d = watch.down;
          warnings.push(
            `The target stopped answering at ${d.at}, after the ${d.check} check's probe${d.endpoint ? ` on ${d.endpoint}` : ''}, and did not answer again within ${Math.round(d.waitedMs / 1000)} s: the scan stopped there, and everything after it is not tested (coverage: "${watch.reason().text}").`,
          );
        }
        // Identities first: a login that failed is the cause of most of what follows.
        for (const [identity, state] of session.identities.states) {
          const who = identity === 'primary' ? 'The first identity (auth)' : 'The second identity (auth.secondary)';
          if (state.lost?.initial) {
            warnings.push(`${who} could not log in: ${state.lost.reason}. It was not used: what needed it is not tested.`);
            continue;
          }
          // An identity refused where authentication is needed is a warning; one nothing could verify is only said in coverage.identities.
          if (state.unverified && /^refused/.test(state.unverified))
            warnings.push(`${who} could not be verified before discovery: ${state.unverified}. Checks that need it may be not tested.`);
          if (state.lost)
            warnings.push(
              `${who} stopped being accepted at ${state.lost.at} (${lossCause(state.lost, state.verified?.op)}): it was not used after that, and what needed it is not tested.`,
            );
        }
        if (reached.total > 0 && reached.ok / reached.total < FEW_2XX_SHARE) {
          warnings.push(
            `${reached.ok} of ${reached.total} operations answered 2xx: is the base URL right${session.hasAuth ? ' and are the credentials valid' : ''}? Checks on operations that only answered errors tested little.`,
          );
        }
        const left = session.createdResources.filter((r) => !r.deleted);
        if (!session.hasSecondary && model.operations.some((op) => op.secured || op.params.some((p) => p.in === 'path'))) {
          warnings.push('No second identity (auth.secondary): object- and function-level authorization (BOLA, BFLA) were not tested.');
        }
        const security: SecurityOutcome = {
          warnings,
          ...(watch.down
            ? {
                target_down: {
                  at: watch.down.at,
                  check: watch.down.check,
                  ...(watch.down.endpoint ? { endpoint: watch.down.endpoint } : {}),
                  waited_seconds: Math.round(watch.down.waitedMs / 1000),
                },
              }
            : {}),
          coverage: {
            operations: coverage.operationCoverage(),
            checks: coverage.checkCoverage(),
            operations_2xx: reached.ok,
            operations_total: reached.total,
            resources_created: session.createdResources.length,
            resources_deleted: deleted,
            ...(left.length
              ? {
                  resources_left: left.slice(0, 200).map((r) => ({
                    created_by: r.op.key,
                    identity: r.identity,
                    ...(r.id !== undefined ? { id: String(r.id) } : {}),
                    ...(r.path ? { path: r.path } : {}),
                  })),
                }
              : {}),
            ...(session.hasAuth
              ? {
                  identities: [...session.identities.states].map(([identity, st]) => ({
                    identity,
                    verified: !!st.verified,
                    ...(st.verified ? { verified_on: st.verified.op } : {}),
                    ...(st.unverified ? { unverified: st.unverified } : {}),
                    ...(st.lost
                      ? { lost_at: st.lost.at, lost_reason: st.lost.initial ? `could not log in: ${st.lost.reason}` : lossCause(st.lost, st.verified?.op) }
                      : {}),
                    ...session.loginCounts(identity),
                  })),
                }
              : {}),
          },
          checks: checks.map(checkInfo),
        };
        ctx.progress(100, { findings: failed });
        return { tasks, agent_count: client.peakConcurrency || 1, security };
      } finally {
        await client.close();
      }
    },
  };
}
