import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { deflateSync, inflate, inflateSync } from 'node:zlib';
import type { PNG as PngJs } from 'pngjs';
import type Sharp from 'sharp';

const inflateAsync = promisify(inflate);
// sharp through its CommonJS entry: its ES module entry took about 60 ms more CPU to load (ten modules
// and a JSON import), a third of a one-diff process's start-up. pngjs is only for the rare formats the
// code below does not decode, so it is loaded when first needed.
const require = createRequire(import.meta.url);
const sharp = require('sharp') as typeof Sharp;
let pngjs: typeof PngJs | undefined;
const pngJs = (): typeof PngJs => (pngjs ??= (require('pngjs') as { PNG: typeof PngJs }).PNG);

/**
 * PNG codecs for screenshots. The asynchronous pair (what the engine uses on full pages) is libvips
 * through sharp, on libuv's thread pool: on a text-rich 3000x10000 page it decodes 2-3x and encodes
 * over 10x faster than the code below (bench/image-diff.bench.ts), and two images decode in parallel
 * off the event loop. The synchronous pair (small images: motion probes, speed-index frames, tests) is
 * native zlib plus tight unfilter loops for 8-bit RGB/RGBA, not interlaced; anything else (palette,
 * 16-bit, grey, interlaced) falls back to pngjs.
 */

// Full-page images are used once: libvips's operation cache would only keep 120 MB buffers alive.
sharp.cache(false);

export interface RawImage {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, row-major. */
  data: Buffer;
}

/** An 8-bit palette image: one byte per pixel, row-major, each an index into `palette`. */
export interface IndexedImage {
  width: number;
  height: number;
  data: Buffer;
  /** 256 RGB triplets (768 bytes). */
  palette: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(SIGNATURE) || bytes.readUInt32BE(12) !== 0x49484452) {
    throw new Error('not a PNG image');
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const HIGH = 0x80808080;
const LOW = 0x7f7f7f7f;
/** Four independent byte additions mod 256 in one 32-bit word (SWAR): a PNG RGBA pixel at a time. */
const addBytes = (x: number, y: number): number => (((x & LOW) + (y & LOW)) ^ ((x ^ y) & HIGH)) >>> 0;
/** Four independent byte subtractions mod 256 in one 32-bit word. */
const subBytes = (x: number, y: number): number => (((x | HIGH) - (y & LOW)) ^ ((x ^ ~y) & HIGH)) >>> 0;

/** A 32-bit view of a buffer when it is word-aligned (large Buffers are), else undefined. */
function words(buf: Buffer): Uint32Array | undefined {
  return buf.byteOffset % 4 === 0 && buf.length % 4 === 0 ? new Uint32Array(buf.buffer, buf.byteOffset, buf.length / 4) : undefined;
}

interface PngLayout {
  width: number;
  height: number;
  colorType: number;
  compressed: Buffer;
}

/** The header fields and the concatenated IDAT data, or a decoded image for formats pngjs handles. */
function layoutOf(bytes: Buffer): PngLayout | RawImage {
  const { width, height } = pngSize(bytes);
  const bitDepth = bytes[24];
  const colorType = bytes[25];
  const interlace = bytes[28];
  if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0) {
    const png = pngJs().sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  }
  const idat: Buffer[] = [];
  let off = 8;
  while (off + 8 <= bytes.length) {
    const len = bytes.readUInt32BE(off);
    const type = bytes.readUInt32BE(off + 4);
    if (type === 0x49444154) idat.push(bytes.subarray(off + 8, off + 8 + len));
    else if (type === 0x49454e44) break;
    off += 12 + len;
  }
  return { width, height, colorType, compressed: idat.length === 1 ? idat[0]! : Buffer.concat(idat) };
}

export function decodePng(bytes: Buffer): RawImage {
  const layout = layoutOf(bytes);
  if (!('compressed' in layout)) return layout;
  return unfilter(layout, inflateSync(layout.compressed));
}

/**
 * Like decodePng, decoded by libvips on libuv's thread pool: two images decode in parallel. 8-bit RGB and
 * RGBA (what browsers write) only; other formats take decodePng's path, with the inflate off the event loop.
 */
export async function decodePngAsync(bytes: Buffer): Promise<RawImage> {
  const { width, height } = pngSize(bytes);
  const bitDepth = bytes[24];
  const colorType = bytes[25];
  if (bitDepth === 8 && (colorType === 2 || colorType === 6)) {
    const { data, info } = await sharp(bytes, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    if (info.width !== width || info.height !== height || info.channels !== 4) throw new Error('unexpected PNG decode result');
    return { width, height, data };
  }
  const layout = layoutOf(bytes);
  if (!('compressed' in layout)) return layout;
  return unfilter(layout, await inflateAsync(layout.compressed));
}

/** Like encodePng (8-bit RGBA, fast deflate), encoded by libvips on libuv's thread pool. */
export async function encodePngAsync(img: RawImage): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 }, limitInputPixels: false })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
}

/**
 * Like encodeIndexedPng, deflated by libvips on libuv's thread pool: libvips writes the indices as an 8-bit
 * grey PNG, whose image data is byte for byte that of an 8-bit palette PNG, and the header is changed to
 * say palette, with the PLTE chunk added. A quarter of the bytes of RGBA to deflate: on the 3000x10000
 * bench page about a third of the CPU, and a diff image of 2 MB instead of 9.5 MB.
 */
export async function encodeIndexedPngAsync(img: IndexedImage, level = 2): Promise<Buffer> {
  const grey = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 }, limitInputPixels: false })
    .toColourspace('b-w')
    .png({ compressionLevel: level, adaptiveFiltering: false })
    .toBuffer();
  const { width, height } = pngSize(grey);
  if (width !== img.width || height !== img.height || grey[24] !== 8 || grey[25] !== 0 || grey[28] !== 0) {
    throw new Error('unexpected grey PNG from libvips');
  }
  const parts: Buffer[] = [SIGNATURE, chunk('IHDR', indexedHeader(width, height)), chunk('PLTE', img.palette)];
  let off = 8;
  while (off + 8 <= grey.length) {
    const len = grey.readUInt32BE(off);
    const type = grey.readUInt32BE(off + 4);
    if (type === 0x49444154) parts.push(grey.subarray(off, off + 12 + len));
    else if (type === 0x49454e44) break;
    off += 12 + len;
  }
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

function indexedHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  return ihdr;
}

/** An 8-bit palette PNG, rows unfiltered (the usual choice for palette images), native zlib. */
export function encodeIndexedPng(img: IndexedImage, level = 2): Buffer {
  const { width, height, data } = img;
  const raw = Buffer.allocUnsafe((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    data.copy(raw, y * (width + 1) + 1, y * width, (y + 1) * width);
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', indexedHeader(width, height)),
    chunk('PLTE', img.palette),
    chunk('IDAT', deflateSync(raw, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function unfilter({ width, height, colorType }: PngLayout, raw: Buffer): RawImage {
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  if (raw.length < (stride + 1) * height) throw new Error('truncated PNG data');
  // Unfilter in place into `cur` rows; `prev` is the previous unfiltered row.
  const pixels = colorType === 6 ? Buffer.allocUnsafe(width * height * 4) : Buffer.allocUnsafe(stride * height);
  const px32 = colorType === 6 ? words(pixels) : undefined;
  let prevStart = -1;
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    const p = prevStart;
    switch (filter) {
      case 0:
        raw.copy(pixels, dst, src, src + stride);
        break;
      case 1:
        if (px32) {
          raw.copy(pixels, dst, src, src + stride);
          const end = (dst + stride) >> 2;
          for (let j = (dst >> 2) + 1; j < end; j++) px32[j] = addBytes(px32[j], px32[j - 1]);
          break;
        }
        for (let i = 0; i < bpp; i++) pixels[dst + i] = raw[src + i];
        for (let i = bpp; i < stride; i++) pixels[dst + i] = (raw[src + i] + pixels[dst + i - bpp]) & 0xff;
        break;
      case 2:
        if (p < 0) raw.copy(pixels, dst, src, src + stride);
        else if (px32) {
          raw.copy(pixels, dst, src, src + stride);
          const end = (dst + stride) >> 2;
          for (let j = dst >> 2, k = p >> 2; j < end; j++, k++) px32[j] = addBytes(px32[j], px32[k]);
        } else for (let i = 0; i < stride; i++) pixels[dst + i] = (raw[src + i] + pixels[p + i]) & 0xff;
        break;
      case 3:
        if (p < 0) {
          for (let i = 0; i < bpp; i++) pixels[dst + i] = raw[src + i];
          for (let i = bpp; i < stride; i++) pixels[dst + i] = (raw[src + i] + (pixels[dst + i - bpp] >> 1)) & 0xff;
        } else {
          for (let i = 0; i < bpp; i++) pixels[dst + i] = (raw[src + i] + (pixels[p + i] >> 1)) & 0xff;
          for (let i = bpp; i < stride; i++) {
            pixels[dst + i] = (raw[src + i] + ((pixels[dst + i - bpp] + pixels[p + i]) >> 1)) & 0xff;
          }
        }
        break;
      case 4:
        if (p < 0) {
          // Paeth with no previous row degenerates to Sub.
          for (let i = 0; i < bpp; i++) pixels[dst + i] = raw[src + i];
          for (let i = bpp; i < stride; i++) pixels[dst + i] = (raw[src + i] + pixels[dst + i - bpp]) & 0xff;
        } else {
          for (let i = 0; i < bpp; i++) pixels[dst + i] = (raw[src + i] + pixels[p + i]) & 0xff;
          for (let i = bpp; i < stride; i++) {
            const a = pixels[dst + i - bpp];
            const b = pixels[p + i];
            const c = pixels[p + i - bpp];
            const pa = Math.abs(b - c);
            const pb = Math.abs(a - c);
            const pc = Math.abs(a + b - c - c);
            const pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            pixels[dst + i] = (raw[src + i] + pred) & 0xff;
          }
        }
        break;
      default:
        throw new Error(`bad PNG filter ${filter}`);
    }
    prevStart = dst;
  }
  if (colorType === 6) return { width, height, data: pixels };
  const rgba = Buffer.allocUnsafe(width * height * 4);
  for (let i = 0, j = 0; i < pixels.length; i += 3, j += 4) {
    rgba[j] = pixels[i];
    rgba[j + 1] = pixels[i + 1];
    rgba[j + 2] = pixels[i + 2];
    rgba[j + 3] = 255;
  }
  return { width, height, data: rgba };
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** RGBA PNG with the Sub filter and a fast deflate level: diff images are mostly flat. */
export function encodePng(img: RawImage, level = 1): Buffer {
  const { width, height, data } = img;
  const stride = width * 4;
  const raw = Buffer.allocUnsafe((stride + 1) * height);
  const data32 = words(data);
  const row32 = data32 ? new Uint32Array(width) : undefined;
  const rowBytes = row32 ? Buffer.from(row32.buffer, 0, stride) : undefined;
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1);
    const s = y * stride;
    raw[o] = 1;
    if (data32 && row32 && rowBytes) {
      // Sub filter a pixel at a time into an aligned row, then one copy into the unaligned slot.
      const base = s >> 2;
      row32[0] = data32[base];
      for (let x = 1; x < width; x++) row32[x] = subBytes(data32[base + x], data32[base + x - 1]);
      rowBytes.copy(raw, o + 1);
      continue;
    }
    for (let i = 0; i < 4; i++) raw[o + 1 + i] = data[s + i];
    for (let i = 4; i < stride; i++) raw[o + 1 + i] = (data[s + i] - data[s + i - 4]) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A PNG recompressed for keeping (deflate level 6, on libuv's thread pool): captures are taken with
 * Chromium's fastest encoding (visual/capture.ts), about 1.5 times the size of a default one.
 */
export async function compactPngAsync(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { limitInputPixels: false }).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
}
