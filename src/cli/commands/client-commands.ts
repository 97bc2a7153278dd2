/** `vigil scans list|show|cancel|export`, `vigil usage`, `vigil billing status`, `vigil live`. */
import { writeFileSync } from 'node:fs';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFrom, guarded, printJson, table } from '../common.js';
import { ApiFailure, exitCodeFor } from '../client.js';
import { isObject } from '../unchecked.js';
import { toJunit } from '../../reports/junit.js';
import { toSarif } from '../../reports/sarif.js';
import { didYouMean, parseCommandArgs, UsageError } from '../usage-error.js';
import { formatFor } from '../scan/report-formats.js';
import { cliVersion } from '../version.js';

export const SCANS_HELP = `Usage: vigil scans <list|show|cancel|export> [options]

  list [--page N] [--per-page N] [--status S]   Your scans, newest first
  show <scan_id>                               Status and results of one scan
  cancel <scan_id>                             Cancel a queued or running scan
  export <scan_id> --output <file> [--format html|json|csv|sarif|junit]
  wait <scan_id> [gate and output options]     Follow a scan started earlier (--no-wait) and judge it like vigil scan
${CONNECTION_HELP}

Examples:
  vigil scans list --json
  vigil scans show scn_Vq3b9xk2Lm0aP1cD
  vigil scans export scn_Vq3b9xk2Lm0aP1cD --output findings.sarif`;

const SCANS_OPTIONS = {
  ...CONNECTION_OPTIONS,
  page: { type: 'string' },
  'per-page': { type: 'string' },
  status: { type: 'string' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
} as const;

export async function scansCommand(args: string[]): Promise<number> {
  if (args[0] === 'wait') return (await import('./scan.js')).waitCommand(args.slice(1));
  const { values: v, positionals } = parseCommandArgs(args, SCANS_OPTIONS, true);
  const [sub, id] = positionals;
  if (v.help || !sub) {
    process.stdout.write(`${SCANS_HELP}\n`);
    return v.help ? 0 : 3;
  }
  const json = Boolean(v.json);
  const needId = () => {
    if (!id) throw new UsageError(`vigil scans ${sub} needs a scan id`);
    return id;
  };
  if (!['list', 'show', 'cancel', 'export'].includes(sub))
    throw new UsageError(
      `unknown scans subcommand "${sub}"${didYouMean(sub, ['list', 'show', 'cancel', 'export', 'wait'])} (list, show, cancel, export, wait)`,
    );
  if (sub === 'export' && !v.output) throw new UsageError('vigil scans export needs --output <file>');
  const format = sub === 'export' ? formatFor(v.output!, v.format) : undefined;
  const scan = sub === 'list' ? { id: '' } : { id: needId() };
  const client = clientFrom(v);
  return guarded(json, async () => {
    if (sub === 'list') {
      const { body } = await client.call('get', '/scans', { query: { page: v.page, per_page: v['per-page'], status: v.status } });
      if (json) printJson(body);
      else {
        const rows = [
          ['scan_id', 'status', 'mode', 'url', 'created_at', 'failed/total'],
          ...body.scans.map((s) => [s.scan_id, s.status, s.mode, s.url, s.created_at, `${s.failed ?? 0}/${s.total ?? 0}`]),
        ];
        process.stdout.write(`${table(rows)}\npage ${body.page} of ${body.total_pages} (${body.total} scans)\n`);
      }
      return 0;
    }
    if (sub === 'show') {
      const { body } = await client.call('get', '/scan/{id}/results', { path: scan });
      if (json) printJson(body);
      else {
        const c: Partial<NonNullable<typeof body.severity_counts>> = body.severity_counts ?? {};
        process.stdout.write(
          `${table([
            ['scan', body.scan_id],
            ['status', body.status],
            ['mode', String(body.mode)],
            ['url', String(body.url)],
            ['progress', `${body.progress_percent ?? 0}%`],
            ['tasks', `${body.passed} passed, ${body.failed} failed, ${body.total} total`],
            ['findings', (['critical', 'high', 'medium', 'low', 'info'] as const).map((s) => `${s} ${c[s] ?? 0}`).join(', ')],
          ])}\n`,
        );
      }
      return 0;
    }
    if (sub === 'cancel') {
      const { body } = await client.call('post', '/scan/{id}/cancel', { path: scan });
      if (json) printJson(body);
      else process.stdout.write(`scan ${body?.scan_id ?? id} ${body?.status ?? 'cancelled'}\n`);
      return 0;
    }
    let content: string;
    if (format === 'sarif' || format === 'junit') {
      const { body } = await client.call('get', '/scan/{id}/results', { path: scan });
      content = format === 'sarif' ? `${JSON.stringify(toSarif(body, cliVersion()), null, 2)}\n` : toJunit(body);
    } else content = (await client.call('get', '/scan/{id}/export', { path: scan, query: { format } })).text;
    writeFileSync(v.output!, content);
    if (json) printJson({ scan_id: id, format, output: v.output, bytes: Buffer.byteLength(content) });
    else process.stdout.write(`wrote ${v.output} (${format})\n`);
    return 0;
  });
}

export const USAGE_HELP = `Usage: vigil usage [options]

Quota use in the current period per scan kind.
${CONNECTION_HELP}

Examples:
  vigil usage
  vigil usage --json | jq .`;

export async function usageCommand(args: string[]): Promise<number> {
  const { values: v } = parseCommandArgs(args, CONNECTION_OPTIONS);
  if (v.help) {
    process.stdout.write(`${USAGE_HELP}\n`);
    return 0;
  }
  const client = clientFrom(v);
  return guarded(Boolean(v.json), async () => {
    const { body } = await client.call('get', '/usage');
    if (v.json) printJson(body);
    else process.stdout.write(`${describe(body)}\n`);
    return 0;
  });
}

/** A readable, flat rendering of a JSON object (key: value lines, nested keys dotted). */
function describe(value: unknown, prefix = ''): string {
  if (value === null || typeof value !== 'object') return `${prefix}: ${value === null ? 'unlimited/none' : String(value)}`;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(describe(v, key));
    else lines.push(`${key}: ${Array.isArray(v) ? JSON.stringify(v) : v === null ? '-' : String(v)}`);
  }
  return lines.join('\n');
}

export const BILLING_HELP = `Usage: vigil billing status [options]

Plan and subscription of your tenant (GET /billing/status).
${CONNECTION_HELP}

Examples:
  vigil billing status
  vigil billing status --json`;

export async function billingCommand(args: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(args, CONNECTION_OPTIONS, true);
  if (v.help || positionals[0] !== 'status') {
    process.stdout.write(`${BILLING_HELP}\n`);
    if (!v.help && positionals.length) throw new UsageError(`unknown billing subcommand "${positionals[0]}" (status)`);
    return v.help ? 0 : 3;
  }
  const client = clientFrom(v);
  return guarded(Boolean(v.json), async () => {
    const { body } = await client.call('get', '/billing/status');
    if (v.json) printJson(body);
    else process.stdout.write(`${describe(body)}\n`);
    return 0;
  });
}

export const LIVE_HELP = `Usage: vigil live [--count N] [options]

Prints live usage events (usage_update, alerts) from /ws/live, one line each (JSON lines with --json),
until interrupted or --count events were printed.
${CONNECTION_HELP}

Examples:
  vigil live
  vigil live --json --count 1`;

export async function liveCommand(args: string[]): Promise<number> {
  const { values: v } = parseCommandArgs(args, { ...CONNECTION_OPTIONS, count: { type: 'string' } });
  if (v.help) {
    process.stdout.write(`${LIVE_HELP}\n`);
    return 0;
  }
  const count = v.count === undefined ? Infinity : Number(v.count);
  if (!(count > 0)) throw new UsageError('--count must be a positive integer');
  const client = clientFrom(v);
  const { default: WebSocket } = await import('ws');
  const wsUrl = new URL(client.config.url.replace(/\/api\/v1$/, '') + '/ws/live');
  wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  return new Promise<number>((resolve) => {
    let seen = 0;
    const ws = new WebSocket(wsUrl, { headers: { 'X-API-Key': client.config.apiKey } });
    ws.on('open', () => {
      process.stderr.write(`connected to ${wsUrl.host}; waiting for events\n`);
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = {};
        }
        // The socket's refusal is the API's error body ({error, message}) when Vigil answered.
        const refusal = isObject(parsed) ? parsed : {};
        const code = typeof refusal.error === 'string' ? refusal.error : undefined;
        const message = typeof refusal.message === 'string' ? refusal.message : undefined;
        process.stderr.write(`error ${code ?? `HTTP_${res.statusCode}`}: ${message ?? 'live socket refused'}\n`);
        resolve(exitCodeFor(new ApiFailure(res.statusCode ?? 0, code ?? '', message ?? '', parsed, null)));
      });
    });
    ws.on('message', (data) => {
      const text = data.toString();
      if (v.json) process.stdout.write(`${text}\n`);
      else {
        try {
          const m = JSON.parse(text);
          process.stdout.write(
            `${new Date().toISOString()} ${m.type ?? 'event'} ${JSON.stringify(Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'type')))}\n`,
          );
        } catch {
          process.stdout.write(`${text}\n`);
        }
      }
      seen += 1;
      if (seen >= count) {
        ws.close();
        resolve(0);
      }
    });
    ws.on('error', (error) => {
      process.stderr.write(`error CONNECTION_FAILED: ${error.message}\n`);
      resolve(2);
    });
    ws.on('close', () => resolve(seen >= count ? 0 : 2));
    process.once('SIGINT', () => {
      ws.close();
      resolve(0);
    });
  });
}
