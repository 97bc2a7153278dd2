/**
 * Thumbnails of screenshots for the HTML report: the top of the page, THUMBNAIL_WIDTH px wide and at
 * most THUMBNAIL_MAX_HEIGHT tall (a 32,000 px page keeps its first screens, not a sliver), as PNG.
 */
import { downscale } from '../engines/functional/visual/draw.js';
import { decodePngAsync, encodePng } from '../engines/functional/visual/png.js';

export const THUMBNAIL_WIDTH = 320;
export const THUMBNAIL_MAX_HEIGHT = 640;

/** A PNG thumbnail of a PNG screenshot; undefined when the bytes are not a PNG that decodes. */
export async function screenshotThumbnail(png: Buffer): Promise<Buffer | undefined> {
  let img;
  try {
    img = await decodePngAsync(png);
  } catch {
    return undefined;
  }
  const scale = Math.min(1, THUMBNAIL_WIDTH / img.width);
  const rows = Math.min(img.height, Math.ceil(THUMBNAIL_MAX_HEIGHT / scale));
  const top = { width: img.width, height: rows, data: img.data.subarray(0, rows * img.width * 4) };
  return encodePng(scale < 1 ? downscale(top, scale) : top, 6);
}
