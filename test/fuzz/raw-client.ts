import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * One request on its own connection, bytes exactly as given (no header or URL validation, unlike
 * fetch or http.request), `Connection: close`. Unlike test/helpers/raw-http.ts it takes binary bodies,
 * decodes chunked responses and gives up after `timeoutMs`. Resolves `null` when the server closed
 * the connection without an answer.
 */
export function exchange(port: number, head: string, body: Buffer, timeoutMs = 30_000): Promise<RawResponse | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    };
    socket.on('connect', () => {
      // The server may answer (413, 400) and close before it has read a large body: writing then fails, which is fine.
      socket.write(head);
      if (body.length > 0) socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', finish);
  });
}

function parseResponse(raw: Buffer): RawResponse | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  // An interim answer (100 Continue) comes before the final one.
  if (status >= 100 && status < 200) return parseResponse(raw.subarray(end + 4));
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
