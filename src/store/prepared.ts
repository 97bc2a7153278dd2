import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { pgPoolOf, sqliteFileOf } from './database.js';

/** Names of the PostgreSQL prepared statements, one per query template of this process. */
let statementCount = 0;

/**
 * A hot query compiled once. Kysely builds and compiles every query afresh, which costs more than
 * running a small indexed query; here the query is compiled on first use with sentinel arguments, and
 * later calls reuse its SQL text with the real arguments put where the sentinels were. The SQL comes
 * from Kysely for the store's own dialect, so both dialects stay correct. Outside a transaction the
 * statement runs without Kysely: on SQLite directly on the file; on PostgreSQL through the pool as a named
 * prepared statement, which each connection parses and plans once. A named statement keeps the result
 * columns it was parsed with, so a query given here names its columns (no `select *`): a column a later
 * migration adds to the table does not change what it returns.
 */
export function preparedQuery<Args extends unknown[], Row>(build: (...args: Args) => Compilable<Row>) {
  let template: { sql: string; name: string; slots: Array<number | { value: unknown }> } | undefined;
  const statements = new WeakMap<SQLite.Database, SQLite.Statement>();
  return async <DB>(db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    if (!template) {
      const sentinels = args.map((_, i) => `\u0000vigil-arg-${i}\u0000`) as Args;
      const compiled = build(...sentinels).compile();
      template = {
        sql: compiled.sql,
        name: `vigil_q${(statementCount += 1)}`,
        slots: compiled.parameters.map((p) => {
          const index = sentinels.indexOf(p);
          return index >= 0 ? index : { value: p };
        }),
      };
      if (!sentinels.every((s) => compiled.parameters.includes(s))) throw new Error('preparedQuery: every argument must be a bound value');
    }
    const parameters = template.slots.map((slot) => (typeof slot === 'number' ? args[slot] : slot.value));
    const file = sqliteFileOf(db);
    if (file && !file.inTransaction) {
      // Outside a transaction a read on SQLite's one connection runs in autocommit and sees the last committed
      // state, exactly as it would once Kysely's connection lock is free: run it now, without the lock's round
      // of promises. Inside a transaction (this request's or another's) the query waits for the lock.
      let statement = statements.get(file);
      if (!statement) statements.set(file, (statement = file.prepare(template.sql)));
      if (statement.reader) return statement.all(parameters) as Row[];
    }
    const pool = pgPoolOf(db);
    if (pool) return (await pool.query({ name: template.name, text: template.sql, values: parameters })).rows as Row[];
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
