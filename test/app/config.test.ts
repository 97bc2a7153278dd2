import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicUrlNotice } from '../../src/app/config.js';

describe('configuration', () => {
  it('has working defaults for an embedded self-hosted instance', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', role: 'all', deployment: 'self-hosted', workerConcurrency: 2, rateLimitWindowSeconds: 60 });
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.databaseUrl).toBeUndefined();
    expect(Object.values(config.rateLimits).every((v) => v === null)).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ VIGIL_ROLE: 'both' }, 'VIGIL_ROLE'],
    [{ VIGIL_DEPLOYMENT: 'cloud' }, 'VIGIL_DEPLOYMENT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://localhost' }, 'REDIS_URL'],
    [{ VIGIL_PUBLIC_URL: 'ftp://x' }, 'VIGIL_PUBLIC_URL'],
    // A worker's links (notification dashboard_url, compliance download_url) would name its own address.
    [{ VIGIL_ROLE: 'worker' }, 'VIGIL_PUBLIC_URL'],
    [{ VIGIL_ROLE: 'worker', DATABASE_URL: 'postgres://u@h/db' }, 'VIGIL_PUBLIC_URL'],
    [{ VIGIL_WORKER_CONCURRENCY: '0' }, 'VIGIL_WORKER_CONCURRENCY'],
    [{ VIGIL_BROWSER_MAX_PAGES: '0' }, 'VIGIL_BROWSER_MAX_PAGES'],
    [{ VIGIL_BROWSER_RECYCLE_PAGES: 'many' }, 'VIGIL_BROWSER_RECYCLE_PAGES'],
    [{ VIGIL_RATE_LIMITS: 'gold=5' }, 'VIGIL_RATE_LIMITS'],
    [{ VIGIL_DEPLOYMENT: 'hosted' }, 'PAYMENT_SECRET_KEY'],
    [{ VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk' }, 'PAYMENT_WEBHOOK_SECRET'],
    [{ PAYMENT_API_BASE: 'localhost:12111' }, 'PAYMENT_API_BASE'],
    [{ VIGIL_METRICS_TOKEN: 'short' }, 'VIGIL_METRICS_TOKEN'],
    [{ VIGIL_METRICS_TOKEN: 'a token with spaces in it' }, 'VIGIL_METRICS_TOKEN'],
    [{ VIGIL_METRICS_PORT: '9100x' }, 'VIGIL_METRICS_PORT'],
    [{ VIGIL_METRICS_PORT: '70000' }, 'VIGIL_METRICS_PORT'],
    [{ VIGIL_METRICS_PORT: '8080' }, 'VIGIL_METRICS_PORT'],
    [{ PORT: '9000', VIGIL_METRICS_PORT: '9000' }, 'VIGIL_METRICS_PORT'],
    // A worker serves no HTTP: a token alone would expose its metrics nowhere.
    [{ VIGIL_ROLE: 'worker', VIGIL_PUBLIC_URL: 'https://vigil.example.com', VIGIL_METRICS_TOKEN: 'x'.repeat(32) }, 'VIGIL_METRICS_PORT'],
  ])('refuses %j with one line naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(variable);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('start-up names where links point: a worker with VIGIL_PUBLIC_URL says it, an api without it is warned', () => {
    expect(publicUrlNotice(loadConfig({ VIGIL_ROLE: 'worker', VIGIL_PUBLIC_URL: 'https://vigil.example.com' }))).toEqual({
      level: 'info',
      message: expect.stringContaining('VIGIL_PUBLIC_URL=https://vigil.example.com'),
    });
    const api = publicUrlNotice(loadConfig({ VIGIL_ROLE: 'api' }));
    expect(api.level).toBe('warn');
    expect(api.message).toContain('a worker refuses to start without it');
  });

  it('reads the DNS servers of the email-domain proof (VIGIL_DNS_SERVERS) and refuses names or bad ports', () => {
    expect(loadConfig({}).dnsServers).toBeUndefined();
    expect(loadConfig({ VIGIL_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.2,::1,[::1]:53' }).dnsServers).toEqual(['127.0.0.1:5353', '10.0.0.2', '::1', '[::1]:53']);
    expect(() => loadConfig({ VIGIL_DNS_SERVERS: 'dns.example.com' })).toThrow(/VIGIL_DNS_SERVERS must list IP addresses/);
    expect(() => loadConfig({ VIGIL_DNS_SERVERS: '127.0.0.1:70000' })).toThrow(/VIGIL_DNS_SERVERS/);
  });

  it('never echoes credentials from a bad database URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(/DATABASE_URL/);
    try {
      loadConfig({ DATABASE_URL: 'postgres//user:hunter2@db' });
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });

  it('hosted uses the plan rate limits; self-hosted can configure its own', () => {
    const hosted = loadConfig({ VIGIL_DEPLOYMENT: 'hosted', PAYMENT_SECRET_KEY: 'sk', PAYMENT_WEBHOOK_SECRET: 'wh' });
    expect(hosted.rateLimits).toEqual({ free: 10, pro: 60, team: 200, enterprise: 1000 });
    const custom = loadConfig({ VIGIL_RATE_LIMITS: 'free=5, pro=unlimited' });
    expect(custom.rateLimits).toEqual({ free: 5, pro: null, team: null, enterprise: null });
  });

  it('serves metrics only when configured: a token on the API server, or a port of their own (a worker may use the port)', () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined });
    const token = 'f'.repeat(64);
    expect(loadConfig({ VIGIL_METRICS_TOKEN: ` ${token} ` }).metrics).toEqual({ token, port: undefined });
    expect(loadConfig({ VIGIL_METRICS_PORT: '9464' }).metrics).toEqual({ token: undefined, port: 9464 });
    expect(
      loadConfig({ VIGIL_ROLE: 'worker', VIGIL_PUBLIC_URL: 'https://vigil.example.com', PORT: '9464', VIGIL_METRICS_PORT: '9464', VIGIL_METRICS_TOKEN: token })
        .metrics,
    ).toEqual({ token, port: 9464 });
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      VIGIL_DATA_DIR: '/tmp/vigil-x',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://h:6379',
      VIGIL_ROLE: 'worker',
      VIGIL_PUBLIC_URL: 'https://vigil.example.com/',
      VIGIL_APP_URL: 'https://app.example.com',
      SERVICE_APP_SYNC_KEY: 'sync',
      PAYMENT_SECRET_KEY: 'sk',
      PAYMENT_WEBHOOK_SECRET: 'wh',
      PAYMENT_PRICE_ID_PRO: 'price_pro',
      PAYMENT_PRICE_ID_TEAM: 'price_team',
      PAYMENT_PRICE_ID_ENTERPRISE: 'price_ent',
      PAYMENT_API_BASE: 'http://127.0.0.1:12111',
      CHROMIUM_PATH: '/opt/chromium',
      VIGIL_WORKER_CONCURRENCY: '4',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/vigil-x',
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://h:6379',
      role: 'worker',
      publicUrl: 'https://vigil.example.com',
      appUrl: 'https://app.example.com',
      syncKey: 'sync',
      payment: {
        secretKey: 'sk',
        webhookSecret: 'wh',
        priceIds: { pro: 'price_pro', team: 'price_team', enterprise: 'price_ent' },
        apiBase: 'http://127.0.0.1:12111',
      },
      chromiumPath: '/opt/chromium',
      workerConcurrency: 4,
    });
  });
});
