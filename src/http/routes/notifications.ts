/** GET/PUT /notifications: a tenant's outbound notification channels (team and enterprise plans). */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { lookup } from 'node:dns/promises';
import { planHasFeature } from '../../domain/plans.js';
import { isPublicAddress } from '../../net/address-guard.js';
import { EVENT_KINDS } from '../../notifications/events.js';
import { redactSettings, type NotificationSettings } from '../../notifications/settings.js';
import { validationError as fieldsError } from '../errors.js';
import { CONTROL_MESSAGE, HEADER_VALUE_MESSAGE, hasControlCharacter, isHeaderValue } from '../text-rules.js';

const validationError = (message: string) => {
  const i = message.indexOf(': ');
  return fieldsError([{ field: message.slice(0, i), message: message.slice(i + 2) }]);
};
import { tenantOf } from '../plugins/auth.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, StringEnum, errorResponses } from '../schemas.js';
import type { Services } from '../services.js';
import { featureNotAvailable } from './scans.js';

const ChannelIn = Type.Object(
  {
    kind: StringEnum(['slack', 'teams', 'webhook'] as const, { description: 'slack: Slack-compatible chat webhook; teams: Teams-compatible card (<= 28 KB); webhook: generic JSON POST signed with X-Vigil-Signature' }),
    url: Type.String({ format: 'uri', maxLength: 2048, description: 'http(s) URL; in hosted deployments it must resolve to a public address' }),
    events: Type.Optional(Type.Array(StringEnum(EVENT_KINDS), { uniqueItems: true, description: 'Event kinds to send; all when absent' })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 1024 }), { additionalProperties: false, maxProperties: 20, description: 'webhook only: extra request headers (names: letters, digits and -, at most 64; at most 20 headers)' })),
    secret: Type.Optional(Type.String({ minLength: 8, maxLength: 256, description: 'webhook only: HMAC-SHA256 key for X-Vigil-Signature: sha256=<hex>' })),
  },
  { additionalProperties: false },
);
const SettingsIn = Type.Object(
  { enabled: Type.Optional(Type.Boolean({ default: true })), channels: Type.Array(ChannelIn, { maxItems: 20 }) },
  {
    additionalProperties: false,
    examples: [{ enabled: true, channels: [{ kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXX', events: ['scan_failed', 'finding_critical'] }, { kind: 'webhook', url: 'https://ci.example.com/vigil', headers: { Authorization: 'Token abc' }, secret: 'a-long-shared-secret' }] }],
  },
);
const SettingsOut = Type.Object(
  {
    enabled: Type.Boolean(),
    channels: Type.Array(
      Type.Object({
        kind: Type.String(),
        url: Type.String({ description: 'Scheme and host only; the rest is a secret' }),
        events: Type.Union([Type.Array(Type.String()), Type.Null()]),
        headers: Type.Record(Type.String(), Type.String(), { description: 'Header names; values redacted' }),
        has_secret: Type.Boolean(),
      }),
    ),
  },
  { examples: [{ enabled: true, channels: [{ kind: 'slack', url: 'https://hooks.slack.com/***', events: ['scan_failed', 'finding_critical'], headers: {}, has_secret: false }] }] },
);

function requireFeature(services: Services, request: FastifyRequest) {
  const tenant = tenantOf(request);
  if (!planHasFeature(tenant.plan, 'outbound_webhooks')) throw featureNotAvailable(services, 'outbound_webhooks', 'Outbound notifications need the team plan or above');
  return tenant;
}

async function checkUrl(services: Services, raw: string, field: string): Promise<void> {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw validationError(`${field}: only http and https URLs`);
  if (services.config.deployment !== 'hosted') return;
  if (url.protocol !== 'https:') throw validationError(`${field}: hosted deployments send notifications over https only`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw validationError(`${field}: ${host} does not resolve`);
  }
  if (addresses.some((a) => !isPublicAddress(a.address))) throw validationError(`${field}: ${host} is not a public address`);
}

export async function notificationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const repo = services.notificationSettings;
  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Outbound notification channels (team and enterprise)',
        description: 'Channel URLs, header values and secrets are stored encrypted and never shown again: only the URL host, header names and `has_secret`.',
        response: { 200: { ...SettingsOut, headers: RATE_LIMIT_HEADERS }, ...errorResponses({ ...AUTHENTICATED_ERRORS, 402: 'FEATURE_NOT_AVAILABLE (with upgrade_url): plan below team' }) },
      },
    },
    async (request) => {
      const tenant = requireFeature(services, request);
      return redactSettings(await repo.get(tenant.id));
    },
  );

  app.put<{ Body: Static<typeof SettingsIn> }>(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Replace the outbound notification channels',
        description:
          'Replaces the whole list (send secrets again when changing it). Events: scan_complete, scan_failed, finding_critical, finding_high, compliance_report_ready. ' +
          'Sent by the worker when a scan finishes; 10 s timeout per attempt, retries with backoff on 5xx and timeouts; delivery never changes a scan.',
        body: SettingsIn,
        response: { 200: { ...SettingsOut, headers: RATE_LIMIT_HEADERS }, ...errorResponses({ ...AUTHENTICATED_ERRORS, 402: 'FEATURE_NOT_AVAILABLE (with upgrade_url): plan below team', 422: 'Invalid channel (URL, kind, event, header)' }) },
      },
    },
    async (request) => {
      const tenant = requireFeature(services, request);
      const body = request.body;
      for (const [i, c] of body.channels.entries()) {
        if (hasControlCharacter(c.url)) throw validationError(`channels[${i}].url: ${CONTROL_MESSAGE}`);
        for (const [name, value] of Object.entries(c.headers ?? {})) {
          if (!isHeaderValue(value)) throw validationError(`channels[${i}].headers.${name}: ${HEADER_VALUE_MESSAGE}`);
        }
        await checkUrl(services, c.url, `channels[${i}].url`);
        if (c.kind !== 'webhook' && (c.headers || c.secret)) throw validationError(`channels[${i}]: headers and secret apply to webhook channels only`);
      }
      const settings: NotificationSettings = {
        enabled: body.enabled ?? true,
        channels: body.channels.map((c) => ({ kind: c.kind, url: c.url, ...(c.events ? { events: c.events } : {}), ...(c.headers ? { headers: c.headers } : {}), ...(c.secret ? { secret: c.secret } : {}) })),
      };
      await repo.put(tenant.id, settings);
      return redactSettings(settings);
    },
  );
}
