/** Scan credentials in log lines (app/logger.ts): path redaction cannot know them; the finished line is checked for them. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, logRedaction } from '../../src/app/logger.js';
import { REDACTED, Redactor } from '../../src/domain/redaction.js';
import { leaks } from '../helpers/secret-forms.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('debug', sink) };
}

const SECRET = 'tok"en/with\\ünï 😀';

describe('log redaction of scan credentials', () => {
  it('masks a registered secret in messages, fields, nested values, keys and errors of every child logger, while registered', () => {
    const { lines, logger } = capture();
    const redactor = new Redactor();
    const remove = logRedaction(logger)!.add(redactor);
    // Registered later, as a fetched OAuth2 token is: the same redactor object covers it.
    redactor.add(SECRET);
    const child = logger.child({ scan_id: 'scn_1' });
    child.info(
      { url: `https://t.example/?q=${encodeURIComponent(SECRET)}`, nested: { deep: [`Bearer ${SECRET}`] }, [SECRET]: 1 },
      `target said ${JSON.stringify({ token: SECRET })}`,
    );
    child.warn({ err: new Error(`refused ${Buffer.from(`alice:${SECRET}`).toString('base64')}`) }, 'check failed');
    remove();
    logger.info(`after the scan: ${SECRET}`);

    expect(lines).toHaveLength(3);
    for (const line of lines.slice(0, 2)) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line.endsWith('\n')).toBe(true);
      expect(leaks(line, SECRET)).toEqual([]);
      expect(line).toContain(REDACTED);
    }
    expect(JSON.parse(lines[0]!)).toMatchObject({ scan_id: 'scn_1', level: 30, nested: { deep: [`Bearer ${REDACTED}`] }, [REDACTED]: 1 });
    // Only while the scan runs: other lines are written untouched (no cost when no scan runs).
    expect(lines[2]).toContain(JSON.stringify(SECRET).slice(1, -1));
  });

  it('leaves lines without a secret as pino wrote them, and is absent from loggers made elsewhere', () => {
    const { lines, logger } = capture();
    logRedaction(logger)!.add(new Redactor([SECRET]));
    logger.info({ a: 1 }, 'nothing secret here');
    expect(JSON.parse(lines[0]!)).toMatchObject({ a: 1, msg: 'nothing secret here' });
    expect(logRedaction(pino({ level: 'silent' }))).toBeUndefined();
  });
});
