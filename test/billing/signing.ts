import { createHmac } from 'node:crypto';

/**
 * The provider's webhook signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with
 * the endpoint's signing secret>`. Extra `v1=` values (a rolled secret) may follow.
 */
export function signatureHeader(payload: string, secret: string, options: { timestamp?: number; extraSignatures?: string[] } = {}): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return [`t=${timestamp}`, ...(options.extraSignatures ?? []).map((s) => `v1=${s}`), `v1=${v1}`].join(',');
}

/** POSTs a raw body to the webhook with the given headers. */
export async function postWebhook(api: string, payload: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api}/billing/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: payload,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}
