import { getTableColumns, is, Param, sql, type SQL } from 'drizzle-orm';
import { SQLiteAsyncDialect, type SQLiteInsertConfig } from 'drizzle-orm/sqlite-core';
import pg, { type QueryConfig, type QueryResult } from 'pg';
import type { Executor } from './session.ts';

/** What can run a query: a pool, or the client a unit of work holds. */
export interface Queryable {
  query(config: QueryConfig): Promise<QueryResult>;
}

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

/** Runs built statements on PostgreSQL through whatever `target()` answers (a unit's client, or the pool). */
export function postgresExecutor(target: () => Queryable): Executor {
  const query = (text: string, values: unknown[], arrayMode: boolean) =>
    target().query({ text: bareConflictTarget(text), values, ...(arrayMode ? { rowMode: 'array' } : {}) });
  return {
    run: async (text, params) => ({ changes: (await query(text, params, false)).rowCount ?? 0 }),
    all: async (text, params, arrayMode) => (await query(text, params, arrayMode)).rows,
    get: async (text, params, arrayMode) => (await query(text, params, arrayMode)).rows[0],
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
