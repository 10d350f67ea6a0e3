import { getTableColumns, is, Param, sql, type SQL } from 'drizzle-orm';
import { SQLiteAsyncDialect, type SQLiteInsertConfig } from 'drizzle-orm/sqlite-core';
import pg, { type QueryConfig, type QueryResult } from 'pg';
import type { Executor } from './session.ts';

/** What can run a query: the unit of work holding a client, or the shared connections outside units. */
export interface Queryable {
  query(config: QueryConfig): Promise<QueryResult>;
  /**
   * True where statements go out one behind the other in one transaction (a unit's), so several can
   * be sent before the first answers; outside a unit each commits on its own, so a batch goes one by
   * one and stops at the first that fails.
   */
  readonly pipelines?: boolean;
}

/** Distinct statement texts that get a name (a server-side prepared statement on each connection); past it, statements go unnamed. */
const MAX_NAMED_STATEMENTS = 500;

/**
 * The builder's SQL, rendered for PostgreSQL. For the statements core builds, drizzle's SQLite and
 * PostgreSQL renderings differ in three ways, made alike here: parameters are numbered (`$1`, not
 * `?`); a value an insert leaves out is `default` (SQLite can only say `null`, which it also reads as
 * "assign" for a rowid key and PostgreSQL reads as NULL); and a conflict target names bare columns.
 */
export class PostgresDialect extends SQLiteAsyncDialect {
  override escapeParam(num: number): string {
    return `$${num + 1}`;
  }

  override buildInsertQuery(config: SQLiteInsertConfig): SQL {
    if (!Array.isArray(config.values)) return super.buildInsertQuery(config);
    // Columns drizzle fills itself (a default, a default function, an update function) keep that. An
    // integer primary key is marked `hasDefault` but drizzle fills it with `null` (SQLite's rowid), so
    // it is left out here by what drizzle fills, not by that mark: on PostgreSQL its identity assigns it.
    const bare = Object.entries(getTableColumns(config.table)).filter(
      ([, column]) => column.default === undefined && column.defaultFn === undefined && column.onUpdateFn === undefined,
    );
    const values = config.values.map((row) => {
      const filled = { ...row };
      for (const [key] of bare) {
        const value = row[key];
        if (value === undefined || (is(value, Param) && value.value === undefined)) filled[key] = sql`default`;
      }
      return filled;
    });
    return super.buildInsertQuery({ ...config, values });
  }
}

/** `on conflict ("t"."a", "t"."b")` as PostgreSQL takes it: `on conflict ("a", "b")`. */
export const bareConflictTarget = (text: string): string =>
  text.replace(
    / on conflict \(([^)]*)\)/g,
    (_, columns: string) => ` on conflict (${columns.replace(/"[^"]*"\./g, '')})`,
  );

/**
 * Runs built statements on PostgreSQL through whatever `target()` answers (a unit's connection, or
 * the shared connections outside units). A statement prepared once in the code (`reusable`) is sent named, so each connection
 * parses and plans it once and then only binds and runs it; a statement built for one call goes
 * unnamed (its text may be new each time, and a named one stays on the server until the connection closes).
 */
export function postgresExecutor(target: () => Queryable): Executor {
  const names = new Map<string, { text: string; name: string }>();
  const statement = (text: string, reusable: boolean): { text: string; name?: string } => {
    if (!reusable) return { text: bareConflictTarget(text) };
    let named = names.get(text);
    if (!named) {
      if (names.size >= MAX_NAMED_STATEMENTS) return { text: bareConflictTarget(text) };
      named = { text: bareConflictTarget(text), name: `s${names.size}` };
      names.set(text, named);
    }
    return named;
  };
  const query = (on: Queryable, text: string, values: unknown[], arrayMode: boolean, reusable: boolean) =>
    on.query({ ...statement(text, reusable), values, ...(arrayMode ? { rowMode: 'array' } : {}) });
  return {
    run: async (text, params, reusable) => ({
      changes: (await query(target(), text, params, false, reusable)).rowCount ?? 0,
    }),
    all: async (text, params, arrayMode, reusable) => (await query(target(), text, params, arrayMode, reusable)).rows,
    get: async (text, params, arrayMode, reusable) =>
      (await query(target(), text, params, arrayMode, reusable)).rows[0],
    async runEach(text, list, reusable) {
      const on = target();
      if (on.pipelines) {
        // All sent at once; answered in order. One that fails aborts the unit, and those behind it fail with it.
        const answers = await Promise.all(list.map((params) => query(on, text, params, false, reusable)));
        return answers.reduce((changes, answer) => changes + (answer.rowCount ?? 0), 0);
      }
      let changes = 0;
      for (const params of list) changes += (await query(on, text, params, false, reusable)).rowCount ?? 0;
      return changes;
    },
  };
}

const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;

/**
 * How values come back from PostgreSQL, so they decode as SQLite's do: epoch milliseconds and
 * counts (`bigint`, `numeric`) as numbers, and JSON as its text, which the builder's JSON columns
 * parse themselves. A number past 2^53 would lose digits, so it is refused instead.
 */
export const postgresTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return exactNumber;
    if (oid === JSON_OID || oid === JSONB) return (value) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

function exactNumber(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) && !(Number.isFinite(value) && text.includes('.'))) {
    throw new RangeError(`PostgreSQL returned ${text}, which a JavaScript number cannot hold exactly`);
  }
  return value;
}
