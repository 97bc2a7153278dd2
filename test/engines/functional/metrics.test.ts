import { describe, expect, it } from 'vitest';
import { blockingMetrics } from '../../../src/engines/functional/performance/metrics.js';

describe('blocking metrics (Lighthouse TBT, TTI, max potential FID)', () => {
  it('counts a long task that straddles FCP from FCP on, like Lighthouse clips it', () => {
    // A 300 ms task started 30 ms before the first frame was presented: 270 ms after FCP block 220.
    expect(blockingMetrics([[1000, 300]], 1030, 900)).toEqual({ tbt: 220, fid: 300, tti: 1300 });
  });

  it('ignores tasks that end before FCP for TBT and FID, and TTI is at least FCP and DOMContentLoaded', () => {
    expect(blockingMetrics([[100, 200]], 500, 450)).toEqual({ tbt: 0, fid: 0, tti: 500 });
    expect(blockingMetrics([], 500, 700)).toEqual({ tbt: 0, fid: 0, tti: 700 });
  });

  it('sums the part beyond 50 ms of every task after FCP; TTI is the end of the last one', () => {
    const tasks: Array<[number, number]> = [
      [600, 120],
      [900, 50],
      [2000, 260],
      [3160, 260],
    ];
    expect(blockingMetrics(tasks, 500, 450)).toEqual({ tbt: 70 + 0 + 210 + 210, fid: 260, tti: 3420 });
  });

  it('a straddling task whose part after FCP is under 50 ms blocks nothing but still bounds TTI', () => {
    expect(blockingMetrics([[400, 120]], 490, 300)).toEqual({ tbt: 0, fid: 120, tti: 520 });
  });
});
