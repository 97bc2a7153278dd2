import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { defaultEngines } from '../../src/app/engines.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('the engines a worker loads', () => {
  it('registers security and functional; without a Chromium it says how to install one', async () => {
    const { logger, lines } = capture();
    const config = loadConfig({ CHROMIUM_PATH: '/nonexistent/chromium', VIGIL_ENCRYPTION_KEY: 'a'.repeat(64) });
    const engines = await defaultEngines(config, logger);
    expect(Object.keys(engines).sort()).toEqual(['functional', 'security']);
    expect(lines.join('')).toMatch(
      /no Chromium found: functional scans will fail with BROWSER_UNAVAILABLE \(install with apt-get install chromium or set CHROMIUM_PATH\)/,
    );
  });

  it('names the Chromium it found', async () => {
    const { logger, lines } = capture();
    const engines = await defaultEngines(loadConfig({ VIGIL_ENCRYPTION_KEY: 'a'.repeat(64) }), logger);
    expect(engines.functional).toBeDefined();
    expect(lines.join('')).toMatch(/"chromium":"\/[^"]+".*functional scans use this Chromium/);
  });
});
