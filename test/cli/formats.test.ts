import { describe, expect, it } from 'vitest';
import { formatFor, REPORT_FORMATS as CLI_FORMATS } from '../../src/cli/scan/report-formats.js';
import { REPORT_FORMAT_IDS, reportFormat } from '../../src/reports/formats/index.js';

describe('the CLI and the report registry', () => {
  it('offers exactly the registry formats for --output and --format, each found from its registry extension', () => {
    expect([...CLI_FORMATS]).toEqual(REPORT_FORMAT_IDS);
    for (const id of REPORT_FORMAT_IDS) expect(formatFor(`report.${reportFormat(id)!.extension}`), id).toBe(id);
  });
});
