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
import { DEFAULT_TUNING, type CheckDefinition, type CheckResult, type Operation, type OperationPhase, type SecurityTuning } from './types.js';

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
        const { model } = await loadSpec(client, { specText: input.spec_text, specUrl: input.spec_url, targetUrl: input.url, maxOperations: tuning.maxOperations }, () => session.authHeaders());
        session.model = model;
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
        if (probe.status === 0) {
          if (probe.error === 'blocked') throw targetBlocked(`The target ${target.host}`);
          throw new EngineFailure('TARGET_UNREACHABLE', `The target ${target.origin} could not be reached: ${probe.errorMessage ?? probe.error}.`);
        }

        await discover(session, ops, concurrency);
        ctx.progress(5, { phase: 'discovery', findings: 0 });

        const checks = (opts.checks ?? CHECKS).filter((c) => !tuning.onlyChecks || tuning.onlyChecks.includes(c.id));
        const byPhase = new Map<OperationPhase, { stateful: Unit[]; normal: Unit[]; timing: Unit[] }>(PHASES.map((p) => [p, { stateful: [], normal: [], timing: [] }]));
        const place = (phase: OperationPhase, unit: Unit) => byPhase.get(phase)![unit.check.timing ? 'timing' : unit.check.stateful || unit.check.early ? 'stateful' : 'normal'].push(unit);
        for (const check of checks) {
          coverage.check(check.id, check.title);
          if (check.scope === 'target') {
            const verdict = check.applies ? check.applies(session) : true;
            if (verdict === true) place('read', { check });
            else coverage.notRun(check.id, verdict || 'not applicable');
            continue;
          }
          for (const op of model.operations) {
            if (!ops.includes(op)) {
              coverage.notRun(check.id, session.safeMode && phaseOf(op) === 'destructive' ? 'safe mode' : 'excluded', op.key);
              continue;
            }
            const verdict = check.applies ? check.applies(op, session) : true;
            if (verdict === true) place(phaseOf(op), { check, op });
            else coverage.notRun(check.id, verdict || 'not applicable', op.key);
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
          try {
            const outcome = unit.check.scope === 'target' ? await unit.check.run(session) : await unit.check.run(session, unit.op!);
            if (!Array.isArray(outcome)) {
              coverage.notRun(unit.check.id, outcome.notTested, unit.op?.key);
              notTested = true;
              results = [];
            } else results = outcome;
          } catch (err) {
            if (ctx.signal.aborted) throw ctx.signal.reason;
            if (err instanceof EngineFailure) throw err;
            ctx.logger.warn({ err, check: unit.check.id, op: unit.op?.key }, 'security check failed to run');
            results = [];
          }
          if (results.length) coverage.ran(unit.check.id);
          else if (!notTested) coverage.notRun(unit.check.id, 'nothing to test', unit.op?.key);
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
          if (phase === 'destructive') deleted = await cleanUp(session, ops);
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
        tasks.sort((a, b) => (a.check ?? '').localeCompare(b.check ?? '') || (a.endpoint ?? '').localeCompare(b.endpoint ?? '') || a.name.localeCompare(b.name));
        tasks.forEach((t, i) => (t.task_id = `sec-${String(i + 1).padStart(4, '0')}`));
        const reached = coverage.reached();
        const warnings: string[] = [];
        if (reached.total > 0 && reached.ok / reached.total < FEW_2XX_SHARE) {
          warnings.push(`${reached.ok} of ${reached.total} operations answered 2xx: is the base URL right${session.hasAuth ? ' and are the credentials valid' : ''}? Checks on operations that only answered errors tested little.`);
        }
        if (!session.hasSecondary && model.operations.some((op) => op.secured || op.params.some((p) => p.in === 'path'))) {
          warnings.push('No second identity (auth.secondary): object- and function-level authorization (BOLA, BFLA) were not tested.');
        }
        const security: SecurityOutcome = {
          warnings,
          coverage: {
            operations: coverage.operationCoverage(),
            checks: coverage.checkCoverage(),
            operations_2xx: reached.ok,
            operations_total: reached.total,
            resources_created: session.createdResources.length,
            resources_deleted: deleted,
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
