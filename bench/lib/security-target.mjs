// The security bench's target in its own process: answers every request with a JSON body of a real API's
// size (about 1 KB), 401 on /secure* and on paths of operations that declare security when the bearer
// token is missing. Controlled over IPC: {record: true} starts keeping every request (method, path,
// headers, body) so the plain loop can replay exactly what the engine sent; {dump: true} answers with them.
import { createServer } from 'node:http';

const TOKEN = 'Bearer bench-token-123456';
const filler = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}`, tags: ['a', 'b'], created_at: '2026-11-26T10:00:00.000Z' }));
let recording;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => recording && chunks.push(c));
  req.on('end', () => {
    if (recording) {
      const headers = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k)) headers[k] = v;
      recording.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body: chunks.length ? Buffer.concat(chunks).toString('base64') : undefined,
      });
    }
    const secured = req.url?.startsWith('/secure') || req.url?.includes('/api/v1/');
    const status = secured && req.headers.authorization !== TOKEN && !req.headers['x-api-key'] ? 401 : 200;
    res.writeHead(status, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    res.end(
      JSON.stringify(
        status === 200 ? { ok: true, path: req.url?.slice(0, 40), items: filler } : { error: { code: 'UNAUTHORIZED', message: 'missing credentials' } },
      ),
    );
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.record) {
    recording = [];
    process.send({ recording: true });
  }
  if (m.dump) {
    process.send({ requests: recording ?? [] });
    recording = undefined;
  }
  if (m.stop) server.close(() => process.exit(0)), server.closeAllConnections();
});
