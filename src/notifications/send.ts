/**
 * Delivery: one POST per event and channel, a per-attempt timeout (10 s by default), bounded
 * retries with exponential backoff on timeouts, network errors, 429 and 5xx. Never throws:
 * every delivery ends in a result the caller may log; a scan's outcome never depends on it.
 */
import { signBody, slackBody, teamsBody, type Channel } from './channels.js';
import type { FindingEvent, NotificationEvent } from './events.js';

export interface SendOptions {
  timeoutMs?: number;
  /** Attempts in total (first try included). Default 3. */
  attempts?: number;
  /** Delay before retry n (1-based): base * 2^(n-1). Default 1000 ms. */
  backoffMs?: number;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Hosted mode: throws when the URL's host resolves to a forbidden address. */
  checkUrl?: (url: URL) => Promise<void>;
  userAgent?: string;
}

export interface DeliveryResult {
  channel: Channel['kind'];
  url: string;
  event: string;
  ok: boolean;
  attempts: number;
  status: number | null;
  error: string | null;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Serialized body for a channel. Finding lists (for chat cards of scan events) come from the other events of the batch. */
export function renderFor(channel: Channel, event: NotificationEvent, findings: FindingEvent['finding'][] = []): string {
  if (channel.kind === 'slack') return JSON.stringify(slackBody(event, findings));
  if (channel.kind === 'teams') return JSON.stringify(teamsBody(event, findings).body);
  return JSON.stringify(event);
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? '/…' : '/'}`;
  } catch {
    return '(invalid url)';
  }
}

export async function deliver(channel: Channel, event: NotificationEvent, body: string, options: SendOptions = {}): Promise<DeliveryResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = Math.max(1, Math.min(options.attempts ?? 3, 10));
  const backoff = options.backoffMs ?? 1000;
  const doFetch = options.fetchImpl ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const result: DeliveryResult = { channel: channel.kind, url: redactUrl(channel.url), event: event.event, ok: false, attempts: 0, status: null, error: null };
  let url: URL;
  try {
    url = new URL(channel.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('only http(s) URLs');
    await options.checkUrl?.(url);
  } catch (error) {
    result.error = (error as Error).message;
    return result;
  }
  const headers: Record<string, string> = {
    ...(channel.kind === 'webhook' ? channel.headers : {}),
    'content-type': 'application/json',
    'user-agent': options.userAgent ?? 'Vigil-Notifications/1',
    'x-vigil-event': event.event,
  };
  if (channel.kind === 'webhook' && channel.secret) headers['x-vigil-signature'] = signBody(channel.secret, body);
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    result.attempts = attempt;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let retryable = false;
    try {
      const res = await doFetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      result.status = res.status;
      // Read (and discard) the body under the same deadline.
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) {
        result.ok = true;
        result.error = null;
        return result;
      }
      result.error = `HTTP ${res.status}`;
      retryable = res.status >= 500 || res.status === 429;
    } catch (error) {
      result.status = null;
      result.error = controller.signal.aborted ? `timeout: no answer within ${timeoutMs} ms` : (error as Error).message;
      retryable = true;
    } finally {
      clearTimeout(timer);
    }
    if (!retryable || attempt === attempts) break;
    await sleep(backoff * 2 ** (attempt - 1));
  }
  return result;
}

/** Sends every event to every channel that wants it, channels in parallel. */
export async function sendAll(channels: Channel[], events: NotificationEvent[], options: SendOptions = {}): Promise<DeliveryResult[]> {
  const findings = events.filter((e): e is FindingEvent => e.event === 'finding_critical' || e.event === 'finding_high').map((e) => e.finding);
  const jobs = channels.map(async (channel) => {
    const out: DeliveryResult[] = [];
    for (const event of events) {
      if (channel.events && !channel.events.includes(event.event)) continue;
      // Chat channels: one message per finding would flood a channel; they get the scan events with the list inline.
      if (channel.kind !== 'webhook' && !channel.events && (event.event === 'finding_critical' || event.event === 'finding_high')) continue;
      const list = event.event === 'scan_complete' || event.event === 'scan_failed' ? findings : [];
      try {
        out.push(await deliver(channel, event, renderFor(channel, event, list), options));
      } catch (error) {
        out.push({
          channel: channel.kind,
          url: redactUrl(channel.url),
          event: event.event,
          ok: false,
          attempts: 0,
          status: null,
          error: (error as Error).message,
        });
      }
    }
    return out;
  });
  return (await Promise.all(jobs)).flat();
}
