import type Database from 'better-sqlite3';
import type { Executor, RunResult } from './session.ts';

/** An executor that always answers at once. */
export interface SyncExecutor extends Executor {
  run(sql: string, params: unknown[]): RunResult;
  all(sql: string, params: unknown[], arrayMode: boolean): unknown[];
  get(sql: string, params: unknown[], arrayMode: boolean): unknown;
}

/** Statements kept prepared per connection; past this many distinct texts the cache starts over. */
const MAX_CACHED_STATEMENTS = 2000;

/**
 * Runs built statements on one better-sqlite3 connection. Each distinct SQL text is prepared once
 * and kept, in two forms: rows as objects (raw SQL without selected fields) and rows as arrays (what
 * the builder decodes). better-sqlite3 is synchronous: each answer is returned at once (an error
 * is thrown), and the prepared query makes the one promise its caller awaits.
 */
export function sqliteExecutor(sqlite: Database.Database): SyncExecutor {
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
    run: (sql, params) => ({ changes: statement(sql, false).run(...params).changes }),
    all: (sql, params, arrayMode) => statement(sql, arrayMode).all(...params),
    get: (sql, params, arrayMode) => statement(sql, arrayMode).get(...params),
  };
}
