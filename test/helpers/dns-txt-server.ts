/**
 * A minimal authoritative DNS server on loopback UDP for tests (RFC 1035 wire format): answers TXT
 * questions from a table the test fills, NXDOMAIN for names it does not know, an empty answer (NODATA) for
 * other types of a known name, and SERVFAIL for names the test marks as failing. Enough for node:dns's
 * resolveTxt, with no dependency and no network beyond 127.0.0.1.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';

export interface DnsTxtServer {
  /** `127.0.0.1:<port>`, as VIGIL_DNS_SERVERS takes it. */
  address: string;
  /** Publishes (replaces) the TXT records of a name; each value is one record. */
  setTxt(name: string, values: string[]): void;
  /** Makes the server answer SERVFAIL for a name (a broken or unreachable zone). */
  fail(name: string): void;
  /** Names asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

const TYPE_TXT = 16;
const RCODE = { ok: 0, servfail: 2, nxdomain: 3 } as const;

/** The question's name (lower-case, no trailing dot), its type and where the question section ends. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (message[at] !== 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  at += 1;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at), end: at + 4 };
}

/** One TXT resource record pointing at the question's name, its text split into strings of at most 255 bytes. */
function txtRecord(value: string): Buffer {
  const text = Buffer.from(value, 'utf8');
  const strings: Buffer[] = [];
  for (let i = 0; i === 0 || i < text.length; i += 255) {
    const part = text.subarray(i, i + 255);
    strings.push(Buffer.from([part.length]), part);
  }
  const rdata = Buffer.concat(strings);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  head.writeUInt16BE(TYPE_TXT, 2);
  head.writeUInt16BE(1, 4); // class IN
  head.writeUInt32BE(60, 6); // TTL
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

export async function startDnsTxtServer(): Promise<DnsTxtServer> {
  const records = new Map<string, string[]>();
  const failing = new Set<string>();
  const asked: string[] = [];
  const socket = createSocket('udp4');

  socket.on('message', (message: Buffer, from: RemoteInfo) => {
    if (message.length < 17) return;
    const question = readQuestion(message);
    asked.push(question.name);
    const values = records.get(question.name);
    const rcode = failing.has(question.name) ? RCODE.servfail : values ? RCODE.ok : RCODE.nxdomain;
    const answers = rcode === RCODE.ok && question.type === TYPE_TXT ? values!.map(txtRecord) : [];
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2); // id
    const recursionDesired = message[2]! & 0x01;
    header.writeUInt16BE(0x8400 | (recursionDesired << 8) | 0x0080 | rcode, 2); // response, authoritative, RD echoed, RA
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, message.subarray(12, question.end), ...answers]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));

  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, values) => {
      records.set(name.toLowerCase(), values);
      failing.delete(name.toLowerCase());
    },
    fail: (name) => failing.add(name.toLowerCase()),
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
