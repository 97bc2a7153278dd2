/**
 * A target that stops answering for a while after a probe: reported as a denial of service only when
 * the same unit, run again once the target is back, stops it again. A single pause (of the target, or of
 * a loaded scanning machine) that the repeat does not bring back is no finding. The target runs in its
 * own process (test/fixtures/stall-api), so its pauses are not the test's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineOutcome } from '../../../src/domain/scan.js';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import { runScript, type VigilProcess } from '../../helpers/process.js';
import { makeCtx } from './helpers.js';

const STALL_MS = 8000;
const running: VigilProcess[] = [];
afterAll(async () => {
  for (const p of running) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
});

async function scanStalling(mode: 'once' | 'every'): Promise<EngineOutcome> {
  const proc = runScript('test/fixtures/stall-api/main.ts', [], { STALL_MODE: mode, STALL_MS: String(STALL_MS) });
  running.push(proc);
  const [, port] = await proc.waitFor(/listening (\d+)/, 60_000);
  const url = `http://127.0.0.1:${port}`;
  const engine = createSecurityEngine({ tuning: { onlyChecks: ['sql-injection'], recoveryWaitMs: 4 * STALL_MS } });
  // Requests and the liveness probe give up after 1 s: the probe after the injection meets the stall.
  return engine.run(makeCtx({ url, spec_url: `${url}/openapi.json`, options: { timeout: 1 } as never }));
}

const dosOf = (outcome: EngineOutcome) => outcome.tasks.filter((t) => t.status === 'failed' && /stopped answering/.test(t.name));

describe('a target that stops answering after a probe', () => {
  it('a pause the same requests do not bring back is no finding, and the unit run again gives the verdict', async () => {
    const outcome = await scanStalling('once');
    expect(dosOf(outcome)).toEqual([]);
    expect(outcome.security!.target_down).toBeUndefined();
    // The repeat reached the operation: the injection check was tested there (passed: quotes change nothing).
    expect(outcome.tasks.filter((t) => t.check === 'sql-injection' && t.endpoint === 'GET /search').map((t) => t.status)).toEqual(['passed']);
  }, 180_000);

  it('a stall the same requests cause again is a high denial-of-service finding that says so', async () => {
    const outcome = await scanStalling('every');
    const [dos, ...more] = dosOf(outcome);
    expect(more).toEqual([]);
    expect(dos?.endpoint).toBe('GET /search');
    expect(dos?.severity).toBe('high');
    expect(dos?.evidence).toMatch(/answered again \d+ s later; the same requests sent again stopped it again/);
    expect(outcome.security!.target_down).toBeUndefined();
  }, 180_000);
});
