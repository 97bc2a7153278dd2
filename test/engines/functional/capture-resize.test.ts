/**
 * Chromium resizes the window to 1x1 and back around a full-page capture. A responsive script that
 * collapses a sidebar on narrow windows (as admin templates do under 480 px) must not see that: the
 * screenshot shows the page as a visitor at the scan's viewport sees it, and a real resize still
 * reaches the page's handlers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Admin</title>
<style>body{margin:0;font:16px sans-serif}#side{position:absolute;left:0;top:0;width:220px;height:1400px;background:#c00000}main{margin-left:240px}.collapsed #side{display:none}</style></head>
<body><nav id="side" aria-label="Sections"></nav><main><h1>Dashboard</h1><p>Figures of the day.</p></main>
<script>
  // Like SB Admin 2: a narrow window collapses the sidebar, and only the toggle button opens it again.
  window.addEventListener('resize', () => { if (window.innerWidth < 480) document.body.classList.add('collapsed'); });
</script></body></html>`;

let server: Server;
let url: string;
const engine = createFunctionalEngine();

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await engine.close();
  server.close();
});

describe('full-page capture of a page with resize handlers', () => {
  it('captures the sidebar the viewport shows, however Chromium resizes the window to capture', async () => {
    const artifacts = new MemoryArtifacts();
    const out = await engine.run(functionalContext({ url, options: { pages: [url], throttling: 'none' } }, { artifacts, baselines: new MemoryBaselines() }));
    expect(out.functional?.visual.length).toBe(1);
    const shot = [...artifacts.items.values()].find((a) => a.contentType === 'image/png');
    expect(shot).toBeDefined();
    const png = PNG.sync.read(shot!.bytes);
    const at = (x: number, y: number) => Array.from(png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3));
    expect(png.width).toBe(1280);
    expect(at(100, 300)).toEqual([0xc0, 0, 0]);
  }, 120_000);
});
