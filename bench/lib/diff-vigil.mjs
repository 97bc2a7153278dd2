// One Vigil image diff in its own process, as the functional engine runs it: read both PNGs, decode,
// compare (noise and region rules), encode the diff image and its thumbnail, write the diff image.
// Prints one JSON line: { ms, changedPixels, noisePixels, regions, diffDetected, diffBytes }.
import { readFileSync, writeFileSync } from 'node:fs';
import { comparePngsAsync } from '../../dist/engines/functional/visual/diff.js';

const [a, b, out] = process.argv.slice(2);
const t0 = performance.now();
const r = await comparePngsAsync(readFileSync(a), readFileSync(b), { thresholdPercent: 0.5, minRegionPx: 150 });
if (r.diffImage) writeFileSync(out, r.diffImage);
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ ms, changedPixels: r.changedPixels, noisePixels: r.noisePixels, regions: r.regionCount, diffDetected: r.diffDetected, diffBytes: r.diffImage?.length ?? 0 })}\n`,
);
