import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type AddressInfo, type Socket } from 'node:net';
import { guardedLookup, isPublicAddress } from './address-guard.js';

/**
 * A forward proxy on loopback that only connects to public addresses, checked at connect time
 * (after DNS, so rebinding cannot slip through). Hosted functional scans send all of Chromium's
 * traffic through it: page loads, redirects, subresources, fetches and websockets (CONNECT).
 */
export interface GuardedProxy {
  /** e.g. http://127.0.0.1:41234, for Chromium's proxy setting. */
  url: string;
  /** Connections refused because they led to a non-public address. */
  readonly refused: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);
const REFUSAL = 'Vigil refused this request: the address is not public, and hosted scans may not reach it.';

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(authority) ?? /^([^:]+)(?::(\d+))?$/.exec(authority);
  if (!m) return undefined;
  const port = m[2] ? Number(m[2]) : defaultPort;
  return port > 0 && port < 65536 ? { host: m[1]!, port } : undefined;
}

export async function startGuardedProxy(options: { allowPrivate?: boolean } = {}): Promise<GuardedProxy> {
  const allowPrivate = options.allowPrivate ?? false;
  const lookup = guardedLookup(allowPrivate);
  let refused = 0;
  const literalBlocked = (host: string) => !allowPrivate && isIP(host) !== 0 && !isPublicAddress(host);
  const isBlockError = (err: unknown) => (err as { code?: string }).code === 'EADDRBLOCKED';

  const refuse = (res: ServerResponse) => {
    refused += 1;
    if (!res.headersSent) res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
    res.end(REFUSAL);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('absolute URL expected');
      return;
    }
    if (target.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('only http is proxied this way; https uses CONNECT');
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (literalBlocked(host)) return refuse(res);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = httpRequest(
      { host, port: Number(target.port) || 80, method: req.method, path: `${target.pathname}${target.search}`, headers, lookup: lookup as never },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (isBlockError(err)) return refuse(res);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end();
    });
    req.pipe(upstream);
  };

  const onConnect = (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = splitHostPort(req.url ?? '', 443);
    const fail = (status: string) => {
      client.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    };
    client.on('error', () => undefined);
    if (!target) return fail('400 Bad Request');
    if (literalBlocked(target.host)) {
      refused += 1;
      return fail('403 Forbidden');
    }
    const upstream = connect({ host: target.host, port: target.port, lookup: lookup as never });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (isBlockError(err)) {
        refused += 1;
        return fail('403 Forbidden');
      }
      if (upstream.connecting || !client.writableEnded) fail('502 Bad Gateway');
    });
    client.on('close', () => upstream.destroy());
  };

  const server = createServer(onRequest);
  server.on('connect', onConnect);
  // Plain-http websocket upgrades through a proxy are not used by Chromium (it tunnels with CONNECT).
  server.on('upgrade', (_req, socket: Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
