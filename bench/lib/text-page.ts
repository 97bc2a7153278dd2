/**
 * A text-rich full-page screenshot pair, generated: 3000x10000 RGBA with a sidebar, headings and lines of
 * glyph-like strokes with anti-aliased edges on every row, as a long documentation page renders. The
 * second image changes what a release changes: one paragraph reworded, a banner recoloured, and a block of
 * text moved down by one pixel (text-rendering noise, which Vigil must not count).
 */
import { deflateSync } from 'node:zlib';

export interface TextPage {
  width: number;
  height: number;
  data: Buffer;
}

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fill(img: TextPage, x0: number, y0: number, w: number, h: number, r: number, g: number, b: number): void {
  for (let y = Math.max(0, y0); y < Math.min(img.height, y0 + h); y++) {
    for (let x = Math.max(0, x0); x < Math.min(img.width, x0 + w); x++) {
      const i = (y * img.width + x) * 4;
      img.data[i] = r;
      img.data[i + 1] = g;
      img.data[i + 2] = b;
      img.data[i + 3] = 255;
    }
  }
}

/** One line of "text": glyphs of random widths, dark strokes with grey anti-aliased edges. */
function textLine(img: TextPage, x0: number, x1: number, y0: number, size: number, rand: () => number, ink: number): void {
  let x = x0;
  while (x < x1) {
    const word = 3 + Math.floor(rand() * 8);
    for (let c = 0; c < word && x < x1; c++) {
      const gw = Math.max(3, Math.floor(size * (0.4 + rand() * 0.35)));
      const ascender = rand() < 0.3 ? Math.floor(size * 0.3) : 0;
      const top = y0 + Math.floor(size * 0.3) - ascender;
      const h = size - Math.floor(size * 0.3) + ascender;
      // Two vertical stems and a bar: enough structure for anti-aliasing detection to matter.
      fill(img, x, top, 2, h, ink, ink, ink);
      fill(img, x + gw - 2, top + Math.floor(h / 3), 2, h - Math.floor(h / 3), ink, ink, ink);
      fill(img, x, top + Math.floor(h / 2), gw, 1, ink, ink, ink);
      const edge = 128 + Math.floor(rand() * 90);
      fill(img, x + 2, top, 1, h, edge, edge, edge);
      fill(img, x - 1, top, 1, h, 200, 200, 200);
      x += gw + 2;
    }
    x += Math.floor(size * 0.6);
  }
}

/** The page: every row carries content (sidebar gradient, headings, text lines at 22 px pitch). */
export function textPage(width: number, height: number, variant: 'baseline' | 'changed'): TextPage {
  const img: TextPage = { width, height, data: Buffer.alloc(width * height * 4, 255) };
  const rand = random(42);
  const sidebar = 360;
  for (let y = 0; y < height; y++) {
    const v = 236 - ((y >> 5) % 12);
    fill(img, 0, y, sidebar, 1, v, v + 2, v + 6);
  }
  for (let y = 40; y + 24 < height; y += 22) {
    const isHeading = y % 880 === 40;
    const lineRand = random(y);
    // The sidebar's navigation entries.
    if (y % 44 === 40) textLine(img, 24, 24 + 120 + Math.floor(lineRand() * 180), y, 14, lineRand, 60);
    const size = isHeading ? 20 : 15;
    const right = isHeading ? sidebar + 600 + Math.floor(rand() * 900) : width - 80 - Math.floor(rand() * 400);
    textLine(img, sidebar + 60, right, y, size, lineRand, isHeading ? 20 : 40);
  }
  if (variant === 'changed') {
    // A banner recoloured.
    fill(img, sidebar + 40, 3000, 1800, 60, 255, 236, 200);
    textLine(img, sidebar + 60, sidebar + 1600, 3020, 15, random(7), 40);
    // A paragraph reworded.
    fill(img, sidebar + 40, 5500, width - sidebar - 80, 220, 255, 255, 255);
    for (let y = 5500; y < 5720; y += 22) textLine(img, sidebar + 60, width - 200, y, 15, random(y * 31), 40);
    // A block of text moved down one pixel (noise).
    const from = 8000;
    const to = 8400;
    for (let y = to; y > from; y--) img.data.copy(img.data, y * width * 4 + sidebar * 4, (y - 1) * width * 4 + sidebar * 4, y * width * 4);
  }
  return img;
}

/** PNG as a browser's screenshot writes it: 8-bit RGBA, filter Sub on every row, zlib level 6. */
export function encodeScreenshotPng(img: TextPage): Buffer {
  const { width, height, data } = img;
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1);
    raw[o] = 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) raw[o + 1 + i] = (data[row + i]! - (i >= 4 ? data[row + i - 4]! : 0)) & 255;
  }
  const crcTable = new Int32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  const crc = (buf: Buffer) => {
    let c = -1;
    for (const b of buf) c = crcTable[(c ^ b) & 255]! ^ (c >>> 8);
    return (c ^ -1) >>> 0;
  };
  const chunk = (type: string, body: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    const tb = Buffer.concat([Buffer.from(type, 'ascii'), body]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(tb));
    return Buffer.concat([len, tb, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
