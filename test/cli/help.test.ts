import { describe, expect, it } from 'vitest';
import { SCAN_HELP, WAIT_HELP } from '../../src/cli/scan/help.js';

describe('vigil scan --help', () => {
  it('quotes every example value a shell would read as a redirection or a glob (pasted, > creates a file)', () => {
    for (const help of [SCAN_HELP, WAIT_HELP]) {
      const values = [...help.matchAll(/--budget\s+(\S+)/g)].map((m) => m[1]!);
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) if (/[<>*?]/.test(value.replace(/^'.*'$/, ''))) expect.fail(`unquoted --budget ${value}`);
    }
    expect(SCAN_HELP).toContain("--budget 'performance>=90:warn'");
  });
});

describe('terminal tables', () => {
  it('align columns on what the terminal shows: colour codes count nothing, wide characters two columns', async () => {
    const { table, painter } = await import('../../src/cli/render.js');
    const out = table([
      ['page', 'result'],
      ['/商品/一覧', painter(true)('red', 'FAILED')],
      ['/cart', 'passed'],
    ]).split('\n');
    // "/商品/一覧" is 6 characters but 10 columns wide: the next column starts at the same column on every line.
    const column = (line: string) => stringWidthOf(line.slice(0, line.search(/(result|FAILED|passed)/)));
    expect(new Set(out.map(column)).size).toBe(1);
    expect(column(out[1]!)).toBe(12);
  });
});

/** Columns of a prefix the test computes itself: 2 for CJK ideographs, 0 for escape codes, 1 otherwise. */
function stringWidthOf(text: string): number {
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].reduce((n, c) => n + (/[\u3000-\u9fff]/.test(c) ? 2 : 1), 0);
}
