/** A real worker (or api, or all) process with the test engine, for crash and distributed tests. Env as for `vigil serve`. */
import { loadConfig } from '../../src/app/config.js';
import { createVigil } from '../../src/app/vigil.js';
import { testEngines } from './test-engine.js';

const vigil = await createVigil(loadConfig(process.env), { engines: testEngines() });
await vigil.start();
process.stdout.write(`test worker ready ${vigil.worker?.workerId ?? ''}\n`);
const stop = async () => {
  await vigil.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
