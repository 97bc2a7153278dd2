/**
 * Security engine benchmark against a local target: engine throughput at concurrency 5 and 50
 * beside a plain undici loop sending the same number of requests, and wall time + peak RSS for
 * a 50- and a 200-operation spec with every check (growth should be linear).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent, request } from 'undici';
import { createSecurityEngine } from '../src/engines/security/index.js';
import type { EngineContext } from '../src/engines/engine.js';

function specWith(ops: number) {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < ops; i++) {
    const kind = i % 4;
    if (kind === 0) paths[`/items${i}/{id}`] = { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', example: 1 } }], responses: { '200': { description: 'ok' } } } };
    else if (kind === 1) paths[`/search${i}`] = { get: { parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string', example: 'x' } }], responses: { '200': { description: 'ok' } } } };
    else if (kind === 2) paths[`/create${i}`] = { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', example: 'n' }, size: { type: 'integer', example: 2 } } } } } }, responses: { '201': { description: 'ok' } } } };
    else paths[`/secure${i}`] = { get: { security: [{ b: [] }], responses: { '200': { description: 'ok' } } } };
  }
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'bench', version: '1' }, components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } }, paths });
}

function ctx(url: string, specText: string, concurrency: number): EngineContext {
  return {
    scanId: 'bench',
    tenantId: 'bench',
    input: {
      url,
      mode: 'security',
      spec_text: specText,
      auth: { type: 'bearer', token: 'bench-token-123456' },
      reset_baseline: false,
      options: { concurrency, timeout: 10, exclude: [], max_pages: 10, diff_threshold_percent: 0.5, min_region_px: 150, viewport: { width: 1, height: 1 }, device: 'desktop', accessibility_profile: 'wcag21aa', default_branch: 'main' },
    },
    signal: new AbortController().signal,
    progress: () => undefined,
    deployment: 'self-hosted',
    artifacts: { put: async () => '', get: async () => undefined },
    baselines: { get: async () => undefined, set: async () => undefined },
    logger: pino({ level: 'silent' }),
  };
}

export async function run(): Promise<void> {
  let hits = 0;
  // While `recording`, the server keeps every request the engine sends so the plain loop can replay them.
  let recording: { method: string; path: string; headers: Record<string, string>; body?: Buffer }[] | undefined;
  const server = createServer((req, res) => {
    hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => recording && chunks.push(c));
    req.on('end', () => {
      if (recording) {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k)) headers[k] = v;
        recording.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      }
      const status = req.url?.startsWith('/secure') && req.headers.authorization !== 'Bearer bench-token-123456' ? 401 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ ok: status === 200, path: req.url?.slice(0, 40) }));
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Throughput: the plain loop replays exactly the requests the engine sent (methods, paths,
  // headers, bodies; recorded by the server), through one undici Agent with the same connection
  // count. The first pass is reported as "cold" and, with the next three (the engine has far more
  // code for the JIT to warm than the loop: its per-request CPU keeps falling for several passes),
  // discarded; then five alternating passes, whose medians are compared (steady state, as in a
  // long-running worker).
  const spec100 = specWith(100);
  const WARMUP = 4;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const concurrency of [5, 50]) {
    const engineRates: number[] = [];
    const plainRates: number[] = [];
    // CPU time per request (this process: engine or loop, plus the in-process target) is steadier
    // than wall time on a shared machine; reported beside it.
    const engineCpu: number[] = [];
    const plainCpu: number[] = [];
    const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;
    let n = 0;
    for (let pass = 0; pass < WARMUP + 5; pass++) {
      const engine = createSecurityEngine({ tuning: { onlyChecks: ['server-errors', 'misconfiguration', 'data-exposure', 'auth-enforcement', 'sql-injection'] } });
      hits = 0;
      const sent: NonNullable<typeof recording> = (recording = []);
      let c0 = process.cpuUsage();
      let t0 = performance.now();
      await engine.run(ctx(url, spec100, concurrency));
      const engineMs = performance.now() - t0;
      const engineCpuUs = cpuUs(process.cpuUsage(c0));
      recording = undefined;
      n = hits;
      const agent = new Agent({ connections: concurrency });
      let next = 0;
      c0 = process.cpuUsage();
      t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < sent.length) {
            const r = sent[next++];
            const res = await request(url + r.path, { method: r.method as 'GET', headers: r.headers, body: r.body, dispatcher: agent });
            await res.body.text();
          }
        }),
      );
      const plainMs = performance.now() - t0;
      const plainCpuUs = cpuUs(process.cpuUsage(c0));
      await agent.close();
      if (pass === 0) console.log(`concurrency ${String(concurrency).padStart(2)}, cold pass (discarded): engine ${(n / (engineMs / 1000)).toFixed(0)} req/s, plain undici ${(n / (plainMs / 1000)).toFixed(0)} req/s`);
      if (pass < WARMUP) continue;
      engineRates.push(n / (engineMs / 1000));
      plainRates.push(n / (plainMs / 1000));
      engineCpu.push(engineCpuUs / n);
      plainCpu.push(plainCpuUs / n);
    }
    const e = median(engineRates);
    const p = median(plainRates);
    console.log(`concurrency ${String(concurrency).padStart(2)}: engine ${e.toFixed(0)} req/s (${n} requests, median of 5 after ${WARMUP} warm-up passes), plain undici ${p.toFixed(0)} req/s, ratio ${((e / p) * 100).toFixed(0)}%`);
    const ec = median(engineCpu);
    const pc = median(plainCpu);
    console.log(`concurrency ${String(concurrency).padStart(2)}: CPU per request engine ${ec.toFixed(0)} us, plain undici ${pc.toFixed(0)} us (target included), ratio ${((pc / ec) * 100).toFixed(0)}%`);
  }

  const sizes: Record<number, { ms: number; rss: number; requests: number }> = {};
  for (const ops of [50, 200]) {
    const engine = createSecurityEngine({ tuning: { timeDelayMs: 500, rateLimitBurst: 20 } });
    global.gc?.();
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    hits = 0;
    const t0 = performance.now();
    const out = await engine.run(ctx(url, specWith(ops), 5));
    const ms = performance.now() - t0;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    sizes[ops] = { ms, rss: peak, requests: hits };
    console.log(`${ops} operations, all checks, concurrency 5: ${(ms / 1000).toFixed(2)} s wall, ${hits} requests, ${out.tasks.length} tasks, peak RSS ${(peak / 1048576).toFixed(0)} MB`);
  }
  console.log(`growth 50 -> 200 operations (4x): time x${(sizes[200].ms / sizes[50].ms).toFixed(2)}, requests x${(sizes[200].requests / sizes[50].requests).toFixed(2)}, peak RSS x${(sizes[200].rss / sizes[50].rss).toFixed(2)}`);
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}
