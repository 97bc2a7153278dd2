/** A real worker (or api, or all) process with the test engine, for crash and distributed tests. Env as for `vigil serve`. */
import { loadConfig } from '../../src/app/config.js';
import { createVigil } from '../../src/app/vigil.js';
import { testEngines } from './test-engine.js';

// A worker refuses to start without VIGIL_PUBLIC_URL (its links must name the API's address); the crash
// and distributed tests check no links, so a worker they start names a placeholder unless they give one.
const env = process.env.VIGIL_ROLE === 'worker' ? { VIGIL_PUBLIC_URL: 'http://api.vigil.test', ...process.env } : process.env;
// Each engine run's start and end, so a test sees which process ran which scan and whether it was stopped.
const vigil = await createVigil(loadConfig(env), {
  engines: testEngines([], {
    started: (run) => process.stdout.write(`test engine run ${run.scanId} started\n`),
    ended: (run) => process.stdout.write(`test engine run ${run.scanId} ${run.aborted ? 'aborted' : 'ended'}\n`),
  }),
});
await vigil.start();
process.stdout.write(`test worker ready ${vigil.worker?.workerId ?? ''}\n`);
const stop = async () => {
  await vigil.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
