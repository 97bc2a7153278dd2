import pg from 'pg';

/**
 * PostgreSQL runs: each test server gets its own schema `vt_<run>_<random>` (see freshStore). They are
 * dropped here after the whole run, not while test files run: Kysely's migrator introspects every
 * schema, and a schema dropped under it mid-query fails that migration. Leftovers of runs older than
 * an hour (interrupted ones) are dropped at the start.
 */
export async function dropTestSchemas(filter: (runStartedAt: number, run: string) => boolean = () => true): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>("select nspname from pg_namespace where nspname like 'vt\\_%'");
    for (const { nspname } of rows) {
      const run = nspname.split('_')[1] ?? '';
      if (filter(parseInt(run, 36), run)) await client.query(`drop schema if exists "${nspname}" cascade`);
    }
  } finally {
    await client.end();
  }
}

export async function setup(): Promise<void> {
  // Each vitest project runs this setup; the run (and its schemas) is one.
  if (process.env.VIGIL_TEST_RUN) return;
  process.env.VIGIL_TEST_RUN = Date.now().toString(36);
  await dropTestSchemas((startedAt) => !(startedAt > Date.now() - 3600_000));
}

export async function teardown(): Promise<void> {
  const run = process.env.VIGIL_TEST_RUN;
  await dropTestSchemas((_, r) => r === run);
}
