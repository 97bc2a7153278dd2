/** `vigil tenants create|list` and `vigil keys rotate`: the operator works on the store directly (DATABASE_URL / VIGIL_DATA_DIR). */
import { loadConfig } from '../app/config.js';
import { isPlan, PLANS } from '../domain/plans.js';
import { openStore } from '../store/database.js';
import { TenantExistsError, TenantRepository } from '../store/tenants.js';
import { parseCommandArgs, UsageError } from '../cli/usage-error.js';

const TENANTS_HELP = `Usage:
  vigil tenants create --plan <free|pro|team|enterprise> [--id <id>] [--email <email>] [--json]
  vigil tenants list [--json]

Works directly on the store named by DATABASE_URL / VIGIL_DATA_DIR.

Examples:
  vigil tenants create --plan pro --id acme --email ops@acme.example
  vigil tenants list --json`;

const KEYS_HELP = `Usage: vigil keys rotate --tenant <id> [--json]

Issues a new API key for the tenant and revokes its current key at once, on every instance.

Example:
  vigil keys rotate --tenant acme`;

async function withTenants<T>(fn: (tenants: TenantRepository) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    return await fn(new TenantRepository(store.db));
  } finally {
    await store.close();
  }
}

function print(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

export async function tenantsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseCommandArgs(rest, {
    plan: { type: 'string' },
    id: { type: 'string' },
    email: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || !sub || sub === '--help' || sub === '-h') {
    process.stdout.write(`${TENANTS_HELP}\n`);
    return sub ? 0 : 3;
  }
  if (sub === 'create') {
    if (!isPlan(values.plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
    const plan = values.plan;
    return withTenants(async (tenants) => {
      try {
        const { tenant, apiKey } = await tenants.create({ id: values.id, email: values.email, plan });
        print(
          values.json,
          { tenant_id: tenant.id, plan: tenant.plan, api_key: apiKey },
          `Created tenant ${tenant.id} (${tenant.plan}). API key (shown once):\n${apiKey}`,
        );
        return 0;
      } catch (error) {
        if (error instanceof TenantExistsError) throw new UsageError(`tenant ${values.id} already exists`);
        throw error;
      }
    });
  }
  if (sub === 'list') {
    return withTenants(async (tenants) => {
      const rows = await tenants.list();
      const table = rows.map((t) => `${t.id.padEnd(24)} ${t.plan.padEnd(10)} ${t.status.padEnd(8)} ${t.key_prefix ?? '-'}…  ${t.created_at}`);
      print(
        values.json,
        rows.map((t) => ({ tenant_id: t.id, plan: t.plan, status: t.status, email: t.email, key_prefix: t.key_prefix, created_at: t.created_at })),
        [`${'TENANT'.padEnd(24)} ${'PLAN'.padEnd(10)} ${'STATUS'.padEnd(8)} KEY`, ...table].join('\n'),
      );
      return 0;
    });
  }
  throw new UsageError(`unknown subcommand "tenants ${sub}"; see vigil tenants --help`);
}

export async function keysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseCommandArgs(rest, { tenant: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (values.help || !sub || sub === '--help' || sub === '-h') {
    process.stdout.write(`${KEYS_HELP}\n`);
    return sub ? 0 : 3;
  }
  if (sub !== 'rotate') throw new UsageError(`unknown subcommand "keys ${sub}"; see vigil keys --help`);
  if (!values.tenant) throw new UsageError('--tenant is required');
  const tenantId = values.tenant;
  return withTenants(async (tenants) => {
    const apiKey = await tenants.rotateKey(tenantId);
    if (!apiKey) throw new UsageError(`no tenant ${tenantId}`);
    print(values.json, { tenant_id: tenantId, api_key: apiKey }, `New API key for ${tenantId} (the old one no longer works):\n${apiKey}`);
    return 0;
  });
}
