/**
 * A loaded machine on demand: one worker thread per core spinning in a busy loop until stopped,
 * so the benchmark's "loaded" rows are loaded whatever else the machine is doing.
 */
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';

const SPIN = `
const { parentPort } = require('node:worker_threads');
let stop = false;
parentPort.on('message', () => { stop = true; });
(function spin() {
  const end = Date.now() + 50;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  if (!stop) setImmediate(spin);
})();
`;

export interface CpuHogs {
  readonly count: number;
  stop(): Promise<void>;
}

/** Starts `count` busy threads (default: one per core). */
export function startCpuHogs(count = cpus().length): CpuHogs {
  const workers = Array.from({ length: count }, () => new Worker(SPIN, { eval: true }));
  return {
    count,
    async stop() {
      await Promise.all(
        workers.map(async (w) => {
          w.postMessage('stop');
          await w.terminate();
        }),
      );
    },
  };
}
