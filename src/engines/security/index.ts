/** Security engine: load the spec, synthesise requests per operation, run every registered check. */
import { EngineFailure, type EngineContext, type ScanEngine } from '../engine.js';
import { thresholdReached, type EngineOutcome, type Severity, type Task } from '../../domain/scan.js';
import { TargetClient, type LookupFn } from './client.js';
import { loadSpec } from './spec.js';
import { ScanSession, compileExclude } from './session.js';
import { buildRequest } from './synth.js';
import { CHECKS } from './checks/index.js';
import { DEFAULT_TUNING, type CheckDefinition, type Operation, type SecurityTuning } from './types.js';

export interface SecurityEngineOptions {
  tuning?: Partial<SecurityTuning>;
  lookup?: LookupFn;
  checks?: CheckDefinition[];
}

/** True when a failed task reaches the fail_on threshold (the one rule of domain/scan.ts). */
export function failOnReached(tasks: Task[], failOn: Severity | undefined): boolean {
  return thresholdReached(tasks, failOn);
}

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
      const concurrency = Math.max(1, Math.floor(input.options.concurrency || 5));
      const client = new TargetClient({
        allowPrivate: ctx.deployment !== 'hosted',
        concurrency,
        timeoutMs: Math.max(1, input.options.timeout || 30) * 1000,
        signal: ctx.signal,
        maxBodyBytes: tuning.maxBodyBytes,
        lookup: opts.lookup,
      });
      try {
        ctx.progress(0);
        // One session from the start: spec fetches and the scan share one OAuth2 token.
        const session = new ScanSession(client, { title: '', apiVersion: '', specVersion: '', serverPath: '', serverSchemes: [], operations: [] }, input.url, input.auth, tuning, ctx.signal, ctx.redactor);
        const { model } = await loadSpec(client, { specText: input.spec_text, specUrl: input.spec_url, targetUrl: input.url, maxOperations: tuning.maxOperations }, () => session.authHeaders());
        session.model = model;
        const excluded = compileExclude(input.options.exclude ?? []);
        const ops = model.operations.filter((op) => !excluded(op, session.url(buildRequest(op).path)));

        // Reachability: one baseline request that gets no response at all fails the scan clearly.
        const probe = ops[0] ? await session.send(buildRequest(ops[0])) : await client.send({ method: 'GET', url: input.url, headers: {} });
        if (probe.status === 0) {
          if (probe.error === 'blocked') throw new EngineFailure('TARGET_BLOCKED', `The target ${target.host} resolves to a non-public address, which hosted scans may not reach.`);
          throw new EngineFailure('TARGET_UNREACHABLE', `The target ${target.origin} could not be reached: ${probe.errorMessage ?? probe.error}.`);
        }

        const checks = (opts.checks ?? CHECKS).filter((c) => !tuning.onlyChecks || tuning.onlyChecks.includes(c.id));
        type Unit = { check: CheckDefinition; op?: Operation };
        const units: Unit[] = [];
        for (const check of checks) {
          if (check.scope === 'target') units.push({ check });
          else for (const op of ops) if (!check.applies || check.applies(op, session)) units.push({ check, op });
        }
        const tasks: Task[] = [];
        let done = 0;
        let next = 0;
        const workers = Array.from({ length: Math.min(concurrency, Math.max(units.length, 1)) }, async () => {
          while (next < units.length) {
            ctx.signal.throwIfAborted();
            const unit = units[next++];
            let results: import("./types.js").CheckResult[];
            try {
              results = await unit.check.run(session, unit.op);
            } catch (err) {
              if (ctx.signal.aborted) throw ctx.signal.reason;
              if (err instanceof EngineFailure) throw err;
              ctx.logger.warn({ err, check: unit.check.id, op: unit.op?.key }, 'security check failed to run');
              results = [];
            }
            for (const r of results) {
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
                endpoint: r.endpoint ?? unit.op?.key,
                parameter: r.parameter,
              });
            }
            done++;
            ctx.progress(Math.min(99, Math.round((done / units.length) * 100)));
          }
        });
        await Promise.all(workers);
        ctx.signal.throwIfAborted();
        tasks.sort((a, b) => (a.check ?? '').localeCompare(b.check ?? '') || (a.endpoint ?? '').localeCompare(b.endpoint ?? '') || a.name.localeCompare(b.name));
        tasks.forEach((t, i) => (t.task_id = `sec-${String(i + 1).padStart(4, '0')}`));
        ctx.progress(100);
        return { tasks, agent_count: client.peakConcurrency || 1 };
      } finally {
        await client.close();
      }
    },
  };
}
