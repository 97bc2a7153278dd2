// The security engine in its own process (dist/, as a worker runs it). On {run: {url, spec, concurrency}}
// it runs one scan with the checks the bench names and answers {ms, cpuUs, tasks}: its wall time and this
// process's CPU time for the scan. {profile: 'start'} starts V8's CPU profiler (after the warm-up, so
// start-up and JIT warm-up are not in it); {profile: 'stop', file} writes the .cpuprofile.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pino from 'pino';
import { createSecurityEngine } from '../../dist/engines/security/index.js';

const CHECKS = ['server-errors', 'misconfiguration', 'data-exposure', 'auth-enforcement', 'sql-injection'];
const logger = pino({ level: 'silent' });

function ctx(url, specText, concurrency) {
  return {
    scanId: 'bench',
    tenantId: 'bench',
    input: {
      url,
      mode: 'security',
      spec_text: specText,
      auth: { type: 'bearer', token: 'bench-token-123456' },
      reset_baseline: false,
      options: {
        concurrency,
        timeout: 10,
        exclude: [],
        max_pages: 10,
        diff_threshold_percent: 0.5,
        min_region_px: 150,
        viewport: { width: 1, height: 1 },
        device: 'desktop',
        accessibility_profile: 'wcag21aa',
        default_branch: 'main',
      },
    },
    signal: new AbortController().signal,
    progress: () => undefined,
    deployment: 'self-hosted',
    artifacts: { put: async () => '', get: async () => undefined },
    baselines: { get: async () => undefined, set: async () => undefined },
    logger,
  };
}

let session;
process.on('message', async (m) => {
  if (m.stop) process.exit(0);
  if (m.profile === 'start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    return process.send({ profiling: true });
  }
  if (m.profile === 'stop') {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(m.file, JSON.stringify(profile));
    return process.send({ written: m.file });
  }
  const { url, spec, concurrency } = m.run;
  const engine = createSecurityEngine({ tuning: { onlyChecks: CHECKS } });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await engine.run(ctx(url, spec, concurrency));
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.send({ ms, cpuUs: c.user + c.system, tasks: out.tasks.length });
});
process.send({ ready: true });
