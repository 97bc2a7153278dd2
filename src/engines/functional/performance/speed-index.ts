/**
 * Speed index from screencast frames, by Lighthouse's method (speedline, "fast mode" off): each
 * frame's visual progress is the histogram distance (per RGB channel, near-white pixels ignored)
 * between the first frame (a synthetic white frame at navigation start) and the last frame,
 * SI = first paint + sum over frames of (time to next frame) x (1 - progress).
 */
import type { CDPSession, Page } from 'playwright-core';
import { decodePng, type RawImage } from '../visual/png.js';

export type Histogram = [Uint32Array, Uint32Array, Uint32Array];

/** speedline's convertPixelsToHistogram: pixels with r, g and b all >= 249 are skipped. */
export function histogram(img: RawImage): Histogram {
  const h: Histogram = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  const d = img.data;
  const n = img.width * img.height * 4;
  for (let i = 0; i < n; i += 4) {
    const r = d[i];
    const g = d[i + 1];
    const b = d[i + 2];
    if (r >= 249 && g >= 249 && b >= 249) continue;
    h[0][r]++;
    h[1][g]++;
    h[2][b]++;
  }
  return h;
}

/** speedline's calculateFrameProgress: 0..100 (floored). */
export function frameProgress(current: Histogram, initial: Histogram, target: Histogram): number {
  let total = 0;
  let match = 0;
  for (let c = 0; c < 3; c++) {
    for (let v = 0; v < 256; v++) {
      const currentDiff = Math.abs(current[c][v] - initial[c][v]);
      const targetDiff = Math.abs(target[c][v] - initial[c][v]);
      match += Math.min(currentDiff, targetDiff);
      total += targetDiff;
    }
  }
  if (match === 0 && total === 0) return 100;
  return Math.floor((match / total) * 100);
}

/**
 * Speed index (ms from `startMs`) of frames given as [time ms, histogram], sorted by time, the
 * first being the state at `startMs`. Mirrors speedline's calculateSpeedIndexes.
 */
export function speedIndex(
  frames: Array<{ t: number; hist: Histogram }>,
  startMs: number,
): { speedIndex: number; firstPaint: number; visuallyComplete: number } {
  if (frames.length === 0) return { speedIndex: 0, firstPaint: 0, visuallyComplete: 0 };
  const initial = frames[0].hist;
  const target = frames[frames.length - 1].hist;
  const progress = frames.map((f) => frameProgress(f.hist, initial, target));
  let firstPaintTs: number | undefined;
  let completeTs: number | undefined;
  for (let i = 0; i < frames.length; i++) {
    if (firstPaintTs === undefined && progress[i] > 0) firstPaintTs = frames[i].t;
    if (completeTs === undefined && progress[i] >= 100) completeTs = frames[i].t;
  }
  firstPaintTs ??= frames[frames.length - 1].t;
  completeTs ??= frames[frames.length - 1].t;
  let si = firstPaintTs - startMs;
  let prevTs = frames[0].t;
  let prevProgress = progress[0] / 100;
  for (let i = 0; i < frames.length; i++) {
    if (frames[i].t > firstPaintTs) si += (frames[i].t - prevTs) * (1 - prevProgress);
    prevTs = frames[i].t;
    prevProgress = progress[i] / 100;
  }
  return { speedIndex: si, firstPaint: firstPaintTs - startMs, visuallyComplete: completeTs - startMs };
}

/** Screencast frame size: small frames keep encoding off the page's critical path. */
const FRAME_MAX = { maxWidth: 400, maxHeight: 300 };

/**
 * Records screencast frames of a page from before its navigation until `stop()`. Frames are
 * PNGs (decodable without a JPEG codec) at most 400x300; their timestamps are wall-clock
 * seconds, compared with the document's `performance.timeOrigin`.
 */
export class ScreencastRecorder {
  private frames: Array<{ t: number; data: string }> = [];
  private stopped = false;
  private constructor(private readonly cdp: CDPSession) {}

  static async start(page: Page): Promise<ScreencastRecorder> {
    const cdp = await page.context().newCDPSession(page);
    const rec = new ScreencastRecorder(cdp);
    cdp.on('Page.screencastFrame', (f) => {
      const ts = f.metadata.timestamp;
      if (!rec.stopped && ts !== undefined) rec.frames.push({ t: ts * 1000, data: f.data });
      cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
    });
    await cdp.send('Page.startScreencast', { format: 'png', everyNthFrame: 1, ...FRAME_MAX });
    return rec;
  }

  /** Stops recording; later frames (axe, screenshot) are ignored. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.cdp.send('Page.stopScreencast').catch(() => undefined);
    await this.cdp.detach().catch(() => undefined);
  }

  /**
   * Speed index in ms for a navigation that started at `timeOriginMs` (epoch ms), or undefined
   * when no frame was painted after it.
   */
  speedIndex(timeOriginMs: number): number | undefined {
    const after: Array<{ t: number; data: string }> = [];
    for (const f of this.frames) {
      if (f.t < timeOriginMs) continue;
      if (after.length && after[after.length - 1].data === f.data) continue;
      after.push(f);
    }
    if (after.length === 0) return undefined;
    const decoded = after.map((f) => ({ t: f.t, img: decodePng(Buffer.from(f.data, 'base64')) }));
    const { width, height } = decoded[0].img;
    const white: RawImage = { width, height, data: Buffer.alloc(width * height * 4, 255) };
    const frames = [{ t: timeOriginMs, hist: histogram(white) }, ...decoded.map((f) => ({ t: f.t, hist: histogram(f.img) }))];
    return speedIndex(frames, timeOriginMs).speedIndex;
  }
}
