/** Notifications the CLI sends when a scan ends: channels from --notify flags or the config file. */
import type { ProjectConfig } from '../config-file.js';
import type { ScanResults } from '../follow.js';
import { scanEvents, sendAll, type Channel, type DeliveryResult } from '../../notifications/index.js';
import type { RunSettings } from './run-settings.js';
import { UsageError } from '../usage-error.js';
import { checkHttpUrl, list, seconds, str, type Values } from './values.js';

export function parseChannels(notify: string[] = [], headers: string[] = [], secret?: string): Channel[] {
  const hdrs: Record<string, string> = {};
  for (const h of headers) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`--notify-header must be "Name: value", got "${h}"`);
    hdrs[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return notify.map((n) => {
    const i = n.indexOf('=');
    const kind = n.slice(0, Math.max(0, i));
    const url = n.slice(i + 1);
    if (i <= 0 || !['slack', 'teams', 'webhook'].includes(kind)) throw new UsageError(`--notify must be slack=<url>, teams=<url> or webhook=<url>, got "${n}"`);
    checkHttpUrl(`--notify ${kind}`, url);
    return kind === 'webhook' ? { kind, url, headers: hdrs, ...(secret ? { secret } : {}) } : { kind: kind as 'slack' | 'teams', url };
  });
}

export function notifySettings(v: Values, cfg: ProjectConfig): { channels: Channel[]; notifyTimeoutMs: number } {
  let channels = parseChannels(list(v, 'notify'), list(v, 'notify-header'), str(v, 'notify-secret'));
  if (!channels.length && cfg.notifications) {
    channels = cfg.notifications.map((n, i): Channel => {
      checkHttpUrl(`notifications.${i}.url`, n.url);
      return n.kind === 'webhook'
        ? { kind: 'webhook' as const, url: n.url, headers: n.headers ?? {}, ...(n.secret ? { secret: n.secret } : {}) }
        : { kind: n.kind, url: n.url };
    });
  }
  return { channels, notifyTimeoutMs: seconds('notify-timeout', str(v, 'notify-timeout'), 10) };
}

/** Sends the scan's end to the channels (3 attempts each); a failed delivery is a warning, never an exit code. */
export async function notifyScanEnd(s: RunSettings, results: ScanResults, thresholdReached: boolean, log: (line: string) => void): Promise<DeliveryResult[]> {
  if (!s.channels.length) return [];
  // Links open the dashboard of the server the scan ran on, unless VIGIL_APP_URL names another.
  const appUrl = process.env.VIGIL_APP_URL ?? `${s.client.config.url.replace(/\/api\/v1$/, '')}/app`;
  const deliveries = await sendAll(
    s.channels,
    scanEvents({ ...results, url: results.url ?? s.target ?? '', spec_url: s.specLabel ?? results.spec_url ?? null }, { appUrl, thresholdReached }),
    { timeoutMs: s.notifyTimeoutMs, attempts: 3, backoffMs: 500 },
  );
  for (const d of deliveries) if (!d.ok) log(`warning: notification ${d.event} to ${d.channel} failed after ${d.attempts} attempt(s): ${d.error}\n`);
  return deliveries;
}
