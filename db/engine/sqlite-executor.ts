import type Database from 'better-sqlite3';
import type { Executor } from './session.ts';

/** Statements kept prepared per connection; past this many distinct texts the cache starts over. */
const MAX_CACHED_STATEMENTS = 2000;

/**
 * Runs built statements on one better-sqlite3 connection. Each distinct SQL text is prepared once
 * and kept, in two forms: rows as objects (raw SQL without selected fields) and rows as arrays (what
 * the builder decodes). better-sqlite3 is synchronous, so each promise is already settled when
 * returned: an awaited statement costs a microtask, not a turn of the event loop.
 */
export function sqliteExecutor(sqlite: Database.Database): Executor {
  const byText = [new Map<string, Database.Statement>(), new Map<string, Database.Statement>()];
  const statement = (sql: string, arrayMode: boolean): Database.Statement => {
    const cache = byText[arrayMode ? 1 : 0]!;
    let prepared = cache.get(sql);
    if (!prepared) {
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.clear();
      prepared = sqlite.prepare(sql);
      if (arrayMode && prepared.reader) prepared.raw(true);
      cache.set(sql, prepared);
    }
    return prepared;
  };
  return {
    run: async (sql, params) => ({ changes: statement(sql, false).run(...params).changes }),
    all: async (sql, params, arrayMode) => statement(sql, arrayMode).all(...params),
    get: async (sql, params, arrayMode) => statement(sql, arrayMode).get(...params),
  };
}
