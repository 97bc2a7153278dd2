/**
 * Differential timing shared by the time-based checks: a median baseline and a rising-cost judge.
 * Those checks are flagged `timing: true`: the engine runs them alone against the target, so the
 * times measured here are not inflated by the scan's other requests.
 */
import type { CheckContext, RequestSpec, TargetResponse } from '../types.js';
import { ok } from './util.js';

/**
 * Median time of `n` normal requests: one hiccup under load neither hides nor fakes a delay.
 * Measured by the timing check itself, not taken from the engine's shared baseline: that one was
 * sent while other checks had requests in flight, so its time says nothing about a quiet target.
 */
export async function medianBaseline(ctx: Pick<CheckContext, 'send'>, req: RequestSpec, n = 3): Promise<{ ms: number; responses: TargetResponse[] }> {
  const responses: TargetResponse[] = [];
  for (let i = 0; i < n; i++) responses.push(await ctx.send(req));
  const times = responses.map((r) => r.elapsedMs).sort((a, b) => a - b);
  return { ms: times[Math.floor((n - 1) / 2)], responses };
}

/**
 * Rising cost: the small probe must be accepted and more than `minExtraMs` slower than the
 * baseline; only then is the large probe (about twice the input) sent, and it must be accepted and
 * slower again by at least half the small probe's extra time. The pair is then sent a second time
 * and must rise again: one burst of CPU contention during a large upload makes a single pair look
 * like rising cost, while a server whose work grows with the input rises every time. Returns the
 * first pair's responses when the cost grows both times, else undefined.
 */
export interface CostGrowsOptions {
  /** The small probe must be this much slower than the baseline (default 250 ms). */
  minExtraMs?: number;
  accepted?: (r: TargetResponse) => boolean;
  /** The time judged (default: the whole exchange). */
  timeOf?: (r: TargetResponse) => number;
}

export async function costGrows(
  baseMs: number,
  small: () => Promise<TargetResponse>,
  large: () => Promise<TargetResponse>,
  { minExtraMs = 250, accepted = ok, timeOf = (r) => r.elapsedMs }: CostGrowsOptions = {},
): Promise<{ small: TargetResponse; large: TargetResponse } | undefined> {
  const rises = async () => {
    const r1 = await small();
    if (!accepted(r1) || timeOf(r1) <= baseMs + minExtraMs) return undefined;
    const r2 = await large();
    if (!accepted(r2) || timeOf(r2) <= timeOf(r1) + (timeOf(r1) - baseMs) * 0.5) return undefined;
    return { small: r1, large: r2 };
  };
  const first = await rises();
  return first && (await rises()) ? first : undefined;
}
