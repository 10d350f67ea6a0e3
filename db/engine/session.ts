import { entityKind, fillPlaceholders, type Query } from 'drizzle-orm';
import { NoopCache } from 'drizzle-orm/cache/core';
import {
  BaseSQLiteDatabase,
  SQLiteAsyncDialect,
  SQLitePreparedQuery,
  SQLiteSession,
  type SelectedFieldsOrdered,
  type SQLiteExecuteMethod,
  type SQLiteTransactionConfig,
} from 'drizzle-orm/sqlite-core';
import * as drizzleUtils from 'drizzle-orm/utils';
import type * as schema from '../schema/index.ts';

type Fields = SelectedFieldsOrdered;
/**
 * drizzle's own decoding of a row of selected fields (every driver of its uses it); internal to
 * drizzle's typings, so it is taken by name, as its drivers import it.
 */
const mapResultRow = (
  drizzleUtils as unknown as {
    mapResultRow(fields: Fields, row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined): unknown;
  }
).mapResultRow;

/** What a write answers on either engine: the rows it changed. */
export interface RunResult {
  changes: number;
}

/**
 * Where a built statement runs: one implementation per engine. `arrayMode` asks for each row as an
 * array of column values in the selected order (how a query with known fields is decoded); raw SQL
 * without fields gets rows as objects keyed by column name, as better-sqlite3 gives them.
 */
export interface Executor {
  run(sql: string, params: unknown[]): Promise<RunResult>;
  all(sql: string, params: unknown[], arrayMode: boolean): Promise<unknown[]>;
  get(sql: string, params: unknown[], arrayMode: boolean): Promise<unknown>;
}

/** The query builder core uses on both engines: drizzle's SQLite builder in its async mode. */
export type AsyncDb = BaseSQLiteDatabase<'async', RunResult, typeof schema>;

class ExecutorPreparedQuery extends SQLitePreparedQuery<{
  type: 'async';
  run: RunResult;
  all: unknown[];
  get: unknown;
  values: unknown[][];
  execute: unknown;
}> {
  static override readonly [entityKind]: string = 'ExecutorPreparedQuery';

  constructor(
    private executor: Executor,
    query: Query,
    private fields: SelectedFieldsOrdered | undefined,
    executeMethod: SQLiteExecuteMethod,
    private customResultMapper?: (rows: unknown[][]) => unknown,
  ) {
    super('async', executeMethod, query, new NoopCache(), undefined, undefined);
  }

  /** Which joined tables may be absent from a row (set by drizzle on a query with joins). */
  private nullableJoins(): Record<string, boolean> | undefined {
    return (this as unknown as { joinsNotNullableMap?: Record<string, boolean> }).joinsNotNullableMap;
  }

  async run(placeholders?: Record<string, unknown>): Promise<RunResult> {
    return this.executor.run(this.query.sql, fillPlaceholders(this.query.params, placeholders ?? {}));
  }

  async all(placeholders?: Record<string, unknown>): Promise<unknown[]> {
    const params = fillPlaceholders(this.query.params, placeholders ?? {});
    if (!this.fields && !this.customResultMapper) return this.executor.all(this.query.sql, params, false);
    const rows = (await this.executor.all(this.query.sql, params, true)) as unknown[][];
    if (this.customResultMapper) return this.customResultMapper(rows) as unknown[];
    return rows.map((row) => mapResultRow(this.fields!, row, this.nullableJoins()));
  }

  async get(placeholders?: Record<string, unknown>): Promise<unknown> {
    const params = fillPlaceholders(this.query.params, placeholders ?? {});
    if (!this.fields && !this.customResultMapper) return this.executor.get(this.query.sql, params, false);
    const row = (await this.executor.get(this.query.sql, params, true)) as unknown[] | undefined;
    if (row === undefined) return undefined;
    if (this.customResultMapper) return this.customResultMapper([row]);
    return mapResultRow(this.fields!, row, this.nullableJoins());
  }

  async values(placeholders?: Record<string, unknown>): Promise<unknown[][]> {
    const params = fillPlaceholders(this.query.params, placeholders ?? {});
    return (await this.executor.all(this.query.sql, params, true)) as unknown[][];
  }

  /** @internal drizzle asks this of a relational query's statement. */
  isResponseInArrayMode(): boolean {
    return true;
  }
}

class ExecutorSession extends SQLiteSession<'async', RunResult, typeof schema, never> {
  static override readonly [entityKind]: string = 'ExecutorSession';

  constructor(
    private executor: Executor,
    dialect: SQLiteAsyncDialect,
  ) {
    super(dialect);
  }

  prepareQuery(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    executeMethod: SQLiteExecuteMethod,
    _isResponseInArrayMode: boolean,
    customResultMapper?: (rows: unknown[][]) => unknown,
  ) {
    return new ExecutorPreparedQuery(this.executor, query, fields, executeMethod, customResultMapper);
  }

  override transaction<T>(_transaction: unknown, _config?: SQLiteTransactionConfig): Promise<T> {
    // Transactions belong to the store (group commit on SQLite, a pooled client on PostgreSQL).
    throw new Error('transactions are opened by the store, not by the query builder');
  }
}

/** drizzle's async SQLite query builder over `executor`, rendering SQL with `dialect`. */
export function asyncDb(executor: Executor, dialect: SQLiteAsyncDialect = new SQLiteAsyncDialect()): AsyncDb {
  const session = new ExecutorSession(executor, dialect);
  return new BaseSQLiteDatabase('async', dialect, session as never, undefined) as unknown as AsyncDb;
}
