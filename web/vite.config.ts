import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard (docs/dashboard.md): built into dist/web, served by the API server at /app. Offline build:
 * no plugin downloads anything; no inline script (the strict CSP forbids it), no asset inlined as data.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: true,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
