/**
 * Layout moves by element: the pixel diff says where pixels changed, the text snapshots say which
 * elements moved. Elements are aligned across the baseline's and the current snapshot by their tag
 * and text (the same alignment as text changes); an aligned element whose box moved or changed size
 * is a move, and a run of consecutive elements shifted alike (everything under an inserted banner)
 * is one move, named by its first element.
 */
import type { VisualLayoutMove, VisualRect } from '../../../domain/scan.js';
import type { Rect } from './regions.js';
import { commonPairs, keyOf, type TextSnapshot } from './text-snapshot.js';

/** Under this many pixels, a shift is sub-pixel rounding or font hinting, not a move. */
export const MOVE_TOLERANCE_PX = 3;
/** Moves kept per page (largest runs first). */
export const MAX_LAYOUT_MOVES = 20;

const quote = (s: string) => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;

function union(a: VisualRect, b: VisualRect): VisualRect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

const overlaps = (r: VisualRect, q: Rect) => r.x < q.x + q.width && q.x < r.x + r.width && r.y < q.y + q.height && q.y < r.y + r.height;

function offsetWords(dx: number, dy: number): string {
  const parts: string[] = [];
  if (Math.abs(dy) >= MOVE_TOLERANCE_PX) parts.push(`${dy > 0 ? 'down' : 'up'} ${Math.abs(dy)} px`);
  if (Math.abs(dx) >= MOVE_TOLERANCE_PX) parts.push(`${dx > 0 ? 'right' : 'left'} ${Math.abs(dx)} px`);
  return parts.join(' and ');
}

/** One move in words: "h2 'Features' and the 11 elements after it moved down 40 px (main > h2)". */
export function describeLayoutMove(m: Omit<VisualLayoutMove, 'description'>): string {
  const who = `${m.tag} ${quote(m.text)}${m.elements > 1 ? ` and the ${m.elements - 1} element(s) after it` : ''}`;
  const what: string[] = [];
  const moved = offsetWords(m.dx, m.dy);
  if (moved) what.push(`moved ${moved}`);
  if (Math.abs(m.width_change) >= MOVE_TOLERANCE_PX || Math.abs(m.height_change) >= MOVE_TOLERANCE_PX) {
    what.push(`${moved ? 'and was' : 'was'} resized from ${m.before.width}x${m.before.height} to ${m.after.width}x${m.after.height}`);
  }
  return `${who} ${what.join(' ')} (${m.selector})`;
}

/**
 * The moves from `before` to `after`: aligned elements whose box moved or changed size by at least
 * MOVE_TOLERANCE_PX, consecutive ones with the same offset and size change (within 1 px) as one run.
 * Runs touching `ignore` (ignored and moving areas) are left out; the largest runs come first.
 */
export function compareLayout(before: TextSnapshot, after: TextSnapshot, ignore: readonly Rect[] = []): VisualLayoutMove[] {
  const a = before.elements;
  const b = after.elements;
  const runs: Array<Omit<VisualLayoutMove, 'description'>> = [];
  let run: (typeof runs)[number] | undefined;
  let lastJ = -2;
  for (const [i, j] of commonPairs(a.map(keyOf), b.map(keyOf))) {
    const was = a[i].box;
    const now = b[j].box;
    const dx = now.x - was.x;
    const dy = now.y - was.y;
    const dw = now.width - was.width;
    const dh = now.height - was.height;
    const shifted = [dx, dy, dw, dh].some((d) => Math.abs(d) >= MOVE_TOLERANCE_PX);
    if (!shifted) {
      run = undefined;
      continue;
    }
    const alike =
      run &&
      j === lastJ + 1 &&
      Math.abs(run.dx - dx) <= 1 &&
      Math.abs(run.dy - dy) <= 1 &&
      Math.abs(run.width_change - dw) <= 1 &&
      Math.abs(run.height_change - dh) <= 1;
    if (run && alike) {
      run.elements++;
      run.before = union(run.before, was);
      run.after = union(run.after, now);
    } else {
      run = {
        selector: b[j].selector,
        tag: b[j].tag,
        text: b[j].text,
        elements: 1,
        dx,
        dy,
        width_change: dw,
        height_change: dh,
        before: { ...was },
        after: { ...now },
      };
      runs.push(run);
    }
    lastJ = j;
  }
  return runs
    .filter((r) => !ignore.some((q) => overlaps(r.before, q) || overlaps(r.after, q)))
    .sort((x, y) => y.elements - x.elements)
    .slice(0, MAX_LAYOUT_MOVES)
    .map((r) => ({ ...r, description: describeLayoutMove(r) }));
}
