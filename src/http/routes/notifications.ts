/** GET/PUT /notifications: a tenant's outbound notification channels (team and enterprise plans). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { lookup } from 'node:dns/promises';
import { planHasFeature } from '../../domain/plans.js';
import { isPublicAddress } from '../../net/address-guard.js';
import { redactSettings, type NotificationSettings } from '../../notifications/settings.js';
import { validationError } from '../errors.js';
import { tenantOf } from '../plugins/auth.js';
import { featureNotAvailable } from '../route-context.js';
import { AUTHENTICATED_ERRORS, RATE_LIMIT_HEADERS, errorResponses } from '../schemas/common.js';
import { SettingsIn, SettingsOut } from '../schemas/notifications.js';
import type { TypeBoxTypeProvider } from '../schemas/type-provider.js';
import type { Services } from '../services.js';
import { CONTROL_MESSAGE, HEADER_VALUE_MESSAGE, hasControlCharacter, isHeaderValue } from '../text-rules.js';

const invalid = (field: string, message: string) => validationError([{ field, message }]);

function requireFeature(services: Services, request: FastifyRequest) {
  const tenant = tenantOf(request);
  if (!planHasFeature(tenant.plan, 'outbound_webhooks'))
    throw featureNotAvailable(services, 'outbound_webhooks', 'Outbound notifications need the team plan or above');
  return tenant;
}

async function checkUrl(services: Services, raw: string, field: string): Promise<void> {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(field, 'only http and https URLs');
  if (services.config.deployment !== 'hosted') return;
  if (url.protocol !== 'https:') throw invalid(field, 'hosted deployments send notifications over https only');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw invalid(field, `${host} does not resolve`);
  }
  if (addresses.some((a) => !isPublicAddress(a.address))) throw invalid(field, `${host} is not a public address`);
}

export async function notificationRoutes(fastify: FastifyInstance, services: Services): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const repo = services.notificationSettings;
  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Outbound notification channels (team and enterprise)',
        description: 'Channel URLs, header values and secrets are stored encrypted and never shown again: only the URL host, header names and `has_secret`.',
        response: {
          200: { ...SettingsOut, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({ ...AUTHENTICATED_ERRORS, 402: 'FEATURE_NOT_AVAILABLE (with upgrade_url): plan below team' }),
        },
      },
    },
    async (request) => {
      const tenant = requireFeature(services, request);
      return redactSettings(await repo.get(tenant.id));
    },
  );

  app.put(
    '/notifications',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['notifications'],
        summary: 'Replace the outbound notification channels',
        description:
          'Replaces the whole list (send secrets again when changing it). Events: scan_complete, scan_failed, finding_critical, finding_high, compliance_report_ready. ' +
          'Sent by the worker when a scan finishes; 10 s timeout per attempt, retries with backoff on 5xx and timeouts; delivery never changes a scan.',
        body: SettingsIn,
        response: {
          200: { ...SettingsOut, headers: RATE_LIMIT_HEADERS },
          ...errorResponses({
            ...AUTHENTICATED_ERRORS,
            402: 'FEATURE_NOT_AVAILABLE (with upgrade_url): plan below team',
            422: 'Invalid channel (URL, kind, event, header)',
          }),
        },
      },
    },
    async (request) => {
      const tenant = requireFeature(services, request);
      const body = request.body;
      for (const [i, c] of body.channels.entries()) {
        if (hasControlCharacter(c.url)) throw invalid(`channels[${i}].url`, CONTROL_MESSAGE);
        for (const [name, value] of Object.entries(c.headers ?? {})) {
          if (!isHeaderValue(value)) throw invalid(`channels[${i}].headers.${name}`, HEADER_VALUE_MESSAGE);
        }
        await checkUrl(services, c.url, `channels[${i}].url`);
        if (c.kind !== 'webhook' && (c.headers || c.secret)) throw invalid(`channels[${i}]`, 'headers and secret apply to webhook channels only');
      }
      const settings: NotificationSettings = {
        enabled: body.enabled ?? true,
        channels: body.channels.map((c) => ({
          kind: c.kind,
          url: c.url,
          ...(c.events ? { events: c.events } : {}),
          ...(c.headers ? { headers: c.headers } : {}),
          ...(c.secret ? { secret: c.secret } : {}),
        })),
      };
      await repo.put(tenant.id, settings);
      return redactSettings(settings);
    },
  );
}
