// The baseline of the API bench: a bare Fastify route in its own process, no logger, answering a body of
// the size of GET /usage's. Started by bench/api.bench.ts with PORT set.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({
  tenant_id: 'ten_0123456789abcdef',
  plan: 'enterprise',
  scans_used: 1,
  scans_limit: null,
  scans_remaining: null,
  security_scan_count: 0,
  monthly_security_scan_quota: null,
  security_scans_remaining: null,
  approaching_limit: false,
  quota_reset_date: '2026-12-01T00:00:00.000Z',
  period_start: '2026-11-01T00:00:00.000Z',
  period_end: '2026-12-01T00:00:00.000Z',
}));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
