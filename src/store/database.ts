import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type DatabaseConnection, type Driver } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Whether a text value can be stored at all: PostgreSQL text cannot hold NUL (SQLite can), and a query
 * with one fails. No stored row can equal such a value, so a lookup by it finds nothing on either store.
 */
export function storableText(value: string): boolean {
  return !value.includes('\u0000');
}

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string;
}

/** The only place that knows which database is behind Kysely. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.dataDir);
  await migrate(store);
  return store;
}

function openSqlite(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = new SQLite(join(dataDir, 'vigil.db'));
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new ImmediateTransactionsSqliteDialect({ database: withStatementCache(file) }) });
  sqliteFiles.set(db, file);
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** The SQLite file behind each SQLite store's Kysely instance (not its transactions). */
const sqliteFiles = new WeakMap<object, SQLite.Database>();

/** The SQLite file `db` queries directly, when `db` is a SQLite store's root Kysely instance. */
export function sqliteFileOf(db: object): SQLite.Database | undefined {
  return sqliteFiles.get(db);
}

/**
 * Transactions begin IMMEDIATE: they take the write lock at the start, waiting for it under
 * busy_timeout. A plain (deferred) BEGIN reads first and upgrades at its first write; if another process
 * wrote in between, SQLite cannot wait (the snapshot is stale) and fails at once with "database is
 * locked". Every transaction here writes, and several processes may share the file (api, workers, CLI).
 */
class ImmediateTransactionsSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

/**
 * Kysely prepares every query afresh; preparing is most of the cost of a small SQLite query. Statements
 * are reusable, so keep the most recent ones by SQL text (queries are parameterised, so the set is small).
 */
function withStatementCache(file: SQLite.Database, capacity = 512): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  return new Proxy(file, {
    get(target, property, receiver) {
      if (property !== 'prepare') {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        let statement = cache.get(source);
        if (statement) {
          cache.delete(source);
        } else {
          statement = target.prepare(source);
          if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
        }
        cache.set(source, statement);
        return statement;
      };
    },
  });
}

function openPostgres(databaseUrl: string): Store {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // A lost connection must not crash the process; the next query reconnects or fails cleanly.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

async function migrate(store: Store): Promise<void> {
  const db = store.db;
  // Kysely's migrator looks for its own tables in an explicit schema; on PostgreSQL that is the
  // connection's current schema (set with DATABASE_URL's search_path), not always "public".
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const { error, results } = await new Migrator({ db, provider: migrationProvider, migrationTableSchema }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`);
  }
}

/** True when the database answers a trivial query. */
export async function storeIsHealthy(store: Store): Promise<boolean> {
  try {
    await sql`select 1`.execute(store.db);
    return true;
  } catch {
    return false;
  }
}
