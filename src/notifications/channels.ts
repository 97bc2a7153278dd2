/** How each channel renders an event: Slack-compatible, Teams-compatible (<= 28 KB), generic webhook (the event itself). */
import { createHmac } from 'node:crypto';
import type { FindingEvent, NotificationEvent } from './events.js';

export const CHANNEL_KINDS = ['slack', 'teams', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export interface Channel {
  kind: ChannelKind;
  url: string;
  /** Generic webhook: extra request headers. */
  headers?: Record<string, string>;
  /** Generic webhook: HMAC-SHA256 key for X-Vigil-Signature. */
  secret?: string;
  /** Event kinds to send; all when absent. */
  events?: string[];
}

export const TEAMS_MAX_BYTES = 28 * 1024;

function title(e: NotificationEvent): string {
  switch (e.event) {
    case 'scan_complete':
      return `Vigil scan ${e.scan_id} ${e.status}: ${e.summary.total} finding(s) on ${e.target}`;
    case 'scan_failed':
      return `Vigil scan ${e.scan_id} failed (${e.status}) on ${e.target}`;
    case 'finding_critical':
    case 'finding_high':
      return `${e.finding.severity.toUpperCase()} finding in scan ${e.scan_id}: ${e.finding.title}`;
    case 'compliance_report_ready':
      return `Compliance report ${e.report.framework} for scan ${e.report.scan_id}: score ${e.report.score}`;
    case 'payment_failed':
      return `Vigil payment failed for ${e.tenant_id}: update the payment method`;
  }
}

function facts(e: NotificationEvent): Array<[string, string]> {
  if (e.event === 'scan_complete' || e.event === 'scan_failed') {
    const s = e.summary;
    return [
      ['Target', e.target],
      ['Status', e.status],
      ['Findings', `critical ${s.critical}, high ${s.high}, medium ${s.medium}, low ${s.low}, info ${s.info} (total ${s.total})`],
      ['Duration', `${e.duration_seconds} s`],
    ];
  }
  if (e.event === 'compliance_report_ready')
    return [
      ['Framework', e.report.framework],
      ['Score', String(e.report.score)],
    ];
  if (e.event === 'payment_failed') {
    const amount = e.amount_due !== null ? `${(e.amount_due / 100).toFixed(2)} ${(e.currency ?? '').toUpperCase()}`.trim() : '-';
    return [
      ['Amount due', amount],
      ['Attempts', String(e.attempt_count ?? '-')],
      ['Next attempt', e.next_payment_attempt ?? '-'],
      ['Note', e.message],
    ];
  }
  const f = (e as FindingEvent).finding;
  return [
    ['Severity', f.severity],
    ['Endpoint', f.endpoint ?? '-'],
    ['Parameter', f.parameter ?? '-'],
    ['CWE', f.cwe ?? '-'],
    ['OWASP', f.owasp ?? '-'],
  ];
}

function link(e: NotificationEvent): string {
  if (e.event === 'compliance_report_ready') return e.report.download_url;
  if (e.event === 'payment_failed') return e.hosted_invoice_url ?? e.billing_url;
  return e.dashboard_url;
}

/** Slack incoming-webhook body (text + blocks); the raw event rides along under `vigil`. */
export function slackBody(e: NotificationEvent, findings: FindingEvent['finding'][] = []): unknown {
  const lines = facts(e).map(([k, v]) => `*${k}:* ${v}`);
  const shown = findings.slice(0, 20).map((f) => `• [${f.severity}] ${f.title}${f.endpoint ? ` — ${f.endpoint}` : ''}`);
  if (findings.length > shown.length) shown.push(`…and ${findings.length - shown.length} more`);
  return {
    text: title(e),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${title(e)}*\n${lines.join('\n')}` } },
      ...(shown.length ? [{ type: 'section', text: { type: 'mrkdwn', text: shown.join('\n').slice(0, 2900) } }] : []),
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Vigil' }, url: link(e) }] },
    ],
    vigil: e,
  };
}

/**
 * Teams Adaptive Card message. Finding lists are truncated until the serialized body fits in
 * 28 KB, with a line saying how many were left out.
 */
export function teamsBody(e: NotificationEvent, findings: FindingEvent['finding'][] = []): { body: unknown; omitted: number } {
  const build = (n: number) => {
    const rows = findings.slice(0, n).map((f) => ({
      type: 'TextBlock',
      wrap: true,
      spacing: 'None',
      text: `[${f.severity}] ${f.title}${f.endpoint ? ` — ${f.endpoint}` : ''}${f.parameter ? ` (${f.parameter})` : ''}`.slice(0, 500),
    }));
    const omitted = findings.length - n;
    const card = {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'TextBlock', size: 'Medium', weight: 'Bolder', wrap: true, text: title(e).slice(0, 1000) },
              { type: 'FactSet', facts: facts(e).map(([t, v]) => ({ title: t, value: v })) },
              ...rows,
              ...(omitted > 0 ? [{ type: 'TextBlock', wrap: true, isSubtle: true, text: `…and ${omitted} more finding(s) not shown` }] : []),
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open in Vigil', url: link(e) }],
          },
        },
      ],
    };
    return { body: card, omitted: Math.max(0, omitted) };
  };
  let n = findings.length;
  let out = build(n);
  while (n > 0 && Buffer.byteLength(JSON.stringify(out.body)) > TEAMS_MAX_BYTES) {
    // Shrink geometrically first, then one by one near the limit.
    const size = Buffer.byteLength(JSON.stringify(out.body));
    n = size > TEAMS_MAX_BYTES * 1.2 ? Math.floor((n * TEAMS_MAX_BYTES) / size) : n - 1;
    out = build(n);
  }
  return out;
}

/** `sha256=<hex>` HMAC-SHA256 of the exact body bytes. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
