// The pixelmatch + pngjs baseline in its own process: read, decode (pngjs), pixelmatch, encode (pngjs), write.
import { readFileSync, writeFileSync } from 'node:fs';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

const [a, b, out] = process.argv.slice(2);
const t0 = performance.now();
const pa = PNG.sync.read(readFileSync(a));
const pb = PNG.sync.read(readFileSync(b));
const diff = new PNG({ width: pa.width, height: pa.height });
const changed = pixelmatch(pa.data, pb.data, diff.data, pa.width, pa.height, { threshold: 0.1 });
writeFileSync(out, PNG.sync.write(diff));
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, changedPixels: changed })}\n`);
