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

/** The SQLite file of the embedded store in `dataDir`. */
export function sqliteFileIn(dataDir: string): string {
  return join(dataDir, 'vigil.db');
}

function openSqlite(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = new SQLite(sqliteFileIn(dataDir));
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
    // SQLite rolls a transaction back by itself on some errors (SQLITE_FULL: a full disk). Kysely's own
    // ROLLBACK then fails with "no transaction is active", and that error would replace the real one.
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      try {
        await rollback(connection);
      } catch (error) {
        if (!/no transaction is active/.test(String((error as Error).message))) throw error;
      }
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

/**
 * A client that gives up connecting after CONNECT_TIMEOUT_MS. The pool itself gets no timeout: pg-pool
 * applies its connectionTimeoutMillis to waiting for a free client as well, so a burst of transactions
 * queued on one row lock (200 starts of one tenant, serialised by its admission lock) failed with 503
 * once the queue took longer than the timeout, though the database was up all along.
 */
class TimedConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig = {}) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/** The connection pool behind each PostgreSQL store's Kysely instance (not its transactions). */
const pgPools = new WeakMap<object, pg.Pool>();

/** The pool `db` queries through, when `db` is a PostgreSQL store's root Kysely instance. */
export function pgPoolOf(db: object): pg.Pool | undefined {
  return pgPools.get(db);
}

function openPostgres(databaseUrl: string): Store {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, Client: TimedConnectClient });
  // A lost connection must not crash the process. The pool listens on idle clients only; a client that is
  // checked out (between the statements of a transaction, or just before its query) when PostgreSQL
  // restarts emits 'error' with no listener, which ends the process. Every client gets its own listener:
  // its pending or next query fails (a StoreUnavailableError at the edge), and the pool drops it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pgPools.set(db, pool);
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** How long a query waits for a new connection while the database is down, before failing (503). */
const CONNECT_TIMEOUT_MS = 5000;

/** PostgreSQL SQLSTATE classes and codes that mean the database is unreachable or going away, not a bad query. */
const UNAVAILABLE_SQLSTATES = /^(08|57P0[1-4]|53300)/;
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly|Client was closed|Cannot use a pool after calling end/i;

/**
 * True when `error` says the database could not be reached or dropped the connection (a restart, a
 * failover, a network cut), so the request may succeed when retried: the API answers 503, not 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}

/**
 * True when `error` says the disk under the store or the data directory is full: SQLite's SQLITE_FULL,
 * PostgreSQL's disk_full (53100), or ENOSPC from a file write. The operator must act; the client may retry.
 */
export function isDiskFull(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code } = error as { code?: unknown };
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === '53100';
}

async function migrate(store: Store): Promise<void> {
  const db = store.db;
  // Kysely's migrator looks for its own tables in an explicit schema; on PostgreSQL that is the
  // connection's current schema (set with DATABASE_URL's search_path), not always "public".
  const migrationTableSchema =
    store.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
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
