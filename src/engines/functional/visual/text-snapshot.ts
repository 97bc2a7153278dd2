/**
 * Text changes by meaning: along with the pixels, the capture records the visible text of the page
 * and the box of each element that shows it (the results' `dom_snapshots`). A changed, added or
 * removed text of a visible element is a change whatever its pixel count: one reworded word of a
 * 24 px heading leaves fewer changed pixels than any threshold that also ignores anti-aliasing
 * noise, but it is a different text.
 *
 * The snapshot travels with the screenshot: it is stored in the PNG itself (an iTXt chunk, which
 * image decoders skip), so a baseline set by a scan or approved later carries the text it showed.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import type { VisualRect, VisualTextChange } from '../../../domain/scan.js';
import type { Rect } from './regions.js';

/**
 * One visible element's text and its box on the page: an element that lays out as a box (not
 * inline) with the texts inside it that no nested box holds, whitespace collapsed.
 */
export interface TextElement {
  selector: string;
  tag: string;
  text: string;
  box: VisualRect;
}

export interface TextSnapshot {
  /** Elements in document order (at most MAX_ELEMENTS). */
  elements: TextElement[];
  /** More elements showed text than were recorded. */
  truncated: boolean;
}

export type TextChange = Omit<VisualTextChange, 'description'>;

/** Elements recorded at most per page, and characters of text per element. */
export const MAX_ELEMENTS = 3000;
export const MAX_TEXT = 300;
/** ' …#' and 8 hex digits: what stands for the rest of a text longer than MAX_TEXT. */
const HASH_MARK_LENGTH = 11;
const HASH_MARK = / …#[0-9a-f]{8}$/;

/**
 * Runs in the page (frozen for its capture): the visible elements that show text of their own, in
 * document order (the text of inline elements counts as their box's). Hidden ones (display, visibility, opacity 0, zero or 1 px boxes as screen-reader
 * only text), and those inside `masks` (options.mask), are left out.
 */
const SNAPSHOT = `({ masks, maxElements, maxText }) => {
  const maskSel = masks.filter((m) => { try { document.querySelector(m); return true; } catch { return false; } }).join(',');
  const sx = window.scrollX, sy = window.scrollY;
  const unique = (sel) => { try { return document.querySelectorAll(sel).length === 1; } catch { return false; } };
  const selectorOf = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const tag = e.localName;
      if (e.id && unique('#' + CSS.escape(e.id))) { parts.unshift('#' + CSS.escape(e.id)); break; }
      if (tag === 'html' || tag === 'body') { parts.unshift(tag); break; }
      let n = 1;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === tag) n++;
      let more = false;
      for (let s = e.nextElementSibling; s && !more; s = s.nextElementSibling) if (s.localName === tag) more = true;
      parts.unshift(n > 1 || more ? tag + ':nth-of-type(' + n + ')' : tag);
    }
    return parts.join(' > ');
  };
  // A text belongs to its nearest element that lays out as a box of its own (not inline): the words
  // of a heading stay one text whatever inline elements (a coloured span, a link) they are split into.
  const containers = new Map();
  const containerOf = (el) => {
    let e = el;
    while (e && e !== document.body) {
      let c = containers.get(e);
      if (c === undefined) { const d = getComputedStyle(e).display; c = d !== 'inline' && d !== 'contents'; containers.set(e, c); }
      if (c) return e;
      e = e.parentElement;
    }
    return e ?? el;
  };
  const visible = (el) => !el.checkVisibility || el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true });
  const own = new Map();
  const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const value = node.nodeValue;
    if (!value || !/\\S/.test(value)) continue;
    const el = node.parentElement;
    if (!el || /^(script|style|noscript|template|title)$/.test(el.localName) || !visible(el)) continue;
    const box = containerOf(el);
    own.set(box, (own.get(box) ?? '') + value);
  }
  // A text over maxText keeps its beginning and a hash of the whole (FNV-1a), so a word changed
  // anywhere in a long paragraph still changes the recorded text.
  const clip = (t) => {
    if (t.length <= maxText) return t;
    let h = 0x811c9dc5;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
    return t.slice(0, maxText - ${HASH_MARK_LENGTH}) + ' …#' + (h >>> 0).toString(16).padStart(8, '0');
  };
  const out = [];
  let truncated = false;
  for (const [el, raw] of own) {
    if (maskSel && el.closest(maskSel)) continue;
    if (!visible(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if (out.length >= maxElements) { truncated = true; break; }
    const text = clip(raw.replace(/\\s+/g, ' ').trim());
    out.push({ selector: selectorOf(el), tag: el.localName, text, box: { x: Math.round(r.left + sx), y: Math.round(r.top + sy), width: Math.round(r.width), height: Math.round(r.height) } });
  }
  return { elements: out, truncated };
}`;

/** The page's visible text and boxes, as it is now (call once it is frozen for its capture). */
export async function snapshotText(page: { evaluate(expr: string): Promise<unknown> }, masks: readonly string[] = []): Promise<TextSnapshot> {
  const arg = JSON.stringify({ masks, maxElements: MAX_ELEMENTS, maxText: MAX_TEXT });
  return (await page.evaluate(`(${SNAPSHOT})(${arg})`)) as TextSnapshot;
}

const KEYWORD = 'vigil:text';

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

/** The PNG with `snap` stored in it (a compressed iTXt chunk before IEND); pixels untouched. */
export function embedTextSnapshot(png: Buffer, snap: TextSnapshot): Buffer {
  const iend = png.length - 12;
  if (iend < 8 || png.toString('latin1', iend + 4, iend + 8) !== 'IEND') return png;
  // keyword, NUL, compressed, method, language NUL, translated keyword NUL, text.
  const data = Buffer.concat([Buffer.from(`${KEYWORD}\0`, 'latin1'), Buffer.from([1, 0, 0, 0]), deflateSync(Buffer.from(JSON.stringify(snap), 'utf8'))]);
  return Buffer.concat([png.subarray(0, iend), pngChunk('iTXt', data), png.subarray(iend)]);
}

/** The PNG without its text snapshot (the bytes of the screenshot as taken, for the identical-bytes shortcut). */
export function stripTextSnapshot(png: Buffer): Buffer {
  const iend = png.length - 12;
  if (iend < 8 || png.toString('latin1', iend + 4, iend + 8) !== 'IEND') return png;
  let off = 8;
  while (off + 12 <= iend) {
    const len = png.readUInt32BE(off);
    if (
      off + 12 + len === iend &&
      png.toString('latin1', off + 4, off + 8) === 'iTXt' &&
      png.toString('latin1', off + 8, off + 8 + KEYWORD.length + 1) === `${KEYWORD}\0`
    ) {
      return Buffer.concat([png.subarray(0, off), png.subarray(iend)]);
    }
    off += 12 + len;
  }
  return png;
}

/** The text snapshot stored in a PNG, if any (a baseline captured before snapshots has none). */
export function readTextSnapshot(png: Buffer): TextSnapshot | undefined {
  let off = 8;
  while (off + 12 <= png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('latin1', off + 4, off + 8);
    if (type === 'IEND') return undefined;
    if (type === 'iTXt') {
      const data = png.subarray(off + 8, off + 8 + len);
      const prefix = `${KEYWORD}\0`;
      if (data.toString('latin1', 0, prefix.length) === prefix && data[prefix.length] === 1) {
        const rest = data.subarray(prefix.length + 2);
        const lang = rest.indexOf(0);
        const translated = rest.indexOf(0, lang + 1);
        try {
          const snap = JSON.parse(inflateSync(rest.subarray(translated + 1)).toString('utf8')) as TextSnapshot;
          return Array.isArray(snap?.elements) ? snap : undefined;
        } catch {
          return undefined;
        }
      }
    }
    off += 12 + len;
  }
  return undefined;
}

/** An element's identity across two snapshots: its tag and text. */
export const keyOf = (e: TextElement) => `${e.tag}\0${e.text}`;

/** Indices of `a` and `b` paired by a longest common subsequence of their keys. */
export function commonPairs(a: string[], b: string[]): Array<[number, number]> {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length,
    endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  const n = endA - start,
    m = endB - start;
  if (n > 0 && m > 0) {
    // Lengths of the LCS of a[i..] and b[j..] over the middle part only (usually small).
    const w = m + 1;
    const len = new Uint16Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        len[i * w + j] = a[start + i] === b[start + j] ? len[(i + 1) * w + j + 1] + 1 : Math.max(len[(i + 1) * w + j], len[i * w + j + 1]);
      }
    }
    let i = 0,
      j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) {
        pairs.push([start + i, start + j]);
        i++;
        j++;
      } else if (len[(i + 1) * w + j] >= len[i * w + j + 1]) i++;
      else j++;
    }
  }
  for (let k = 0; endA + k < a.length; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

/**
 * The text changes from `before` to `after`: elements are aligned by their texts in document order
 * (a longest common subsequence), and between two aligned ones, an element of the same tag on both
 * sides is a changed text, the others added or removed. Changes whose box touches `ignore`
 * (options.ignore_regions, areas that keep moving) are left out.
 */
export function compareText(before: TextSnapshot, after: TextSnapshot, ignore: readonly Rect[] = []): TextChange[] {
  const a = before.elements,
    b = after.elements;
  const pairs = commonPairs(a.map(keyOf), b.map(keyOf));
  const changes: TextChange[] = [];
  let pa = 0,
    pb = 0;
  const gap = (toA: number, toB: number) => {
    const removed = a.slice(pa, toA);
    const added = b.slice(pb, toB);
    for (const old of removed) {
      const k = added.findIndex((n) => n.tag === old.tag);
      if (k >= 0) {
        const now = added.splice(k, 1)[0];
        changes.push({ kind: 'changed', selector: now.selector, tag: now.tag, before: old.text, after: now.text, box: now.box });
      } else changes.push({ kind: 'removed', selector: old.selector, tag: old.tag, before: old.text, after: null, box: old.box });
    }
    for (const now of added) changes.push({ kind: 'added', selector: now.selector, tag: now.tag, before: null, after: now.text, box: now.box });
  };
  for (const [i, j] of pairs) {
    gap(i, j);
    pa = i + 1;
    pb = j + 1;
  }
  gap(a.length, b.length);
  const touches = (r: VisualRect) => ignore.some((q) => r.x < q.x + q.width && q.x < r.x + r.width && r.y < q.y + q.height && q.y < r.y + r.height);
  return changes.filter((c) => !touches(c.box));
}

const quote = (s: string) => `'${s.length > 80 ? `${s.slice(0, 77)}...` : s}'`;

/**
 * Two long texts quoted from a little before their first difference ("...with key-value" → "...with
 * key-Edited"), so the words that changed are shown rather than a beginning both share. A difference
 * past the recorded beginning of a text over MAX_TEXT (only its hash differs) is said as such.
 */
function quoteChange(before: string, after: string): string {
  let i = 0;
  while (i < before.length && i < after.length && before[i] === after[i]) i++;
  const recorded = MAX_TEXT - HASH_MARK_LENGTH;
  if (HASH_MARK.test(before) && HASH_MARK.test(after) && i >= recorded) {
    return `${quote(before.replace(HASH_MARK, ''))}, past its first ${recorded} characters`;
  }
  if (i <= 40) return `${quote(before)} → ${quote(after)}`;
  const from = i - 30;
  return `${quote(`...${before.slice(from)}`)} → ${quote(`...${after.slice(from)}`)}`;
}

/** One change in words: "h1 text changed: 'Harbour News' → 'Harbour Daily' (main > h1)". */
export function describeTextChange(c: TextChange): string {
  if (c.kind === 'changed') return `${c.tag} text changed: ${quoteChange(c.before!, c.after!)} (${c.selector})`;
  if (c.kind === 'added') return `${c.tag} text added: ${quote(c.after!)} (${c.selector})`;
  return `${c.tag} text removed: ${quote(c.before!)} (${c.selector})`;
}
