import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * A hot query compiled once. Kysely builds and compiles every query afresh, which costs more than
 * running a small indexed query; here the query is compiled on first use with sentinel arguments, and
 * later calls reuse its SQL text with the real arguments put where the sentinels were. The SQL comes
 * from Kysely for the store's own dialect, so both dialects stay correct.
 */
export function preparedQuery<Args extends unknown[], Row>(build: (...args: Args) => Compilable<Row>) {
  let template: { sql: string; slots: Array<number | { value: unknown }> } | undefined;
  return async <DB>(db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    if (!template) {
      const sentinels = args.map((_, i) => `\u0000vigil-arg-${i}\u0000`) as Args;
      const compiled = build(...sentinels).compile();
      template = {
        sql: compiled.sql,
        slots: compiled.parameters.map((p) => {
          const index = sentinels.indexOf(p);
          return index >= 0 ? index : { value: p };
        }),
      };
      if (!sentinels.every((s) => compiled.parameters.includes(s))) throw new Error('preparedQuery: every argument must be a bound value');
    }
    const parameters = template.slots.map((slot) => (typeof slot === 'number' ? args[slot] : slot.value));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
