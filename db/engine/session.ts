import { Column, entityKind, is, Param, Placeholder, SQL, sql, type Query } from 'drizzle-orm';
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
 * without fields gets rows as objects keyed by column name, as better-sqlite3 gives them. An
 * executor may answer at once (SQLite, when its connection is free) or with a promise: the prepared
 * query then makes one promise per statement instead of one per layer. `reusable` marks a statement
 * prepared once in the code (`.prepare()`, prepareSql), as against one built for a single call.
 */
export interface Executor {
  run(sql: string, params: unknown[], reusable: boolean): RunResult | Promise<RunResult>;
  all(sql: string, params: unknown[], arrayMode: boolean, reusable: boolean): unknown[] | Promise<unknown[]>;
  get(sql: string, params: unknown[], arrayMode: boolean, reusable: boolean): unknown | Promise<unknown>;
  /** Runs `sql` once per parameter list, in order, answering the rows changed in all; where absent, run() once each. */
  runEach?(sql: string, list: unknown[][], reusable: boolean): Promise<number>;
}

/** The query builder core uses on both engines: drizzle's SQLite builder in its async mode. */
export type AsyncDb = BaseSQLiteDatabase<'async', RunResult, typeof schema>;

type Bind = (values: Record<string, unknown>) => unknown;
type Decoder = { mapFromDriverValue(value: unknown): unknown };

class ExecutorPreparedQuery extends SQLitePreparedQuery<{
  type: 'async';
  run: RunResult;
  all: unknown[];
  get: unknown;
  values: unknown[][];
  execute: unknown;
}> {
  static override readonly [entityKind]: string = 'ExecutorPreparedQuery';
  /** How each parameter is filled, worked out once (drizzle's fillPlaceholders walks each class on every call). */
  private readonly binds: Bind[];
  /**
   * Each selected column's key and decoder, when every field is a plain top-level one; else null and
   * rows go through drizzle's own mapResultRow (a join nesting its fields by table). Measured in the
   * publishing run, drizzle's per-call class checks cost more than SQLite spent on the reads.
   */
  private readonly columns: { keys: string[]; decoders: Decoder[] } | null;

  constructor(
    private executor: Executor,
    query: Query,
    private fields: SelectedFieldsOrdered | undefined,
    executeMethod: SQLiteExecuteMethod,
    private customResultMapper: ((rows: unknown[][]) => unknown) | undefined,
    /** Prepared once and run many times (see Executor), not built for this one call. */
    private readonly reusable: boolean,
  ) {
    super('async', executeMethod, query, new NoopCache(), undefined, undefined);
    this.binds = query.params.map(binding);
    this.columns = fields && !customResultMapper ? plainColumns(fields) : null;
  }

  /** Which joined tables may be absent from a row (set by drizzle on a query with joins). */
  private nullableJoins(): Record<string, boolean> | undefined {
    return (this as unknown as { joinsNotNullableMap?: Record<string, boolean> }).joinsNotNullableMap;
  }

  private bound(values: Record<string, unknown> | undefined): unknown[] {
    const { binds } = this;
    const params = new Array<unknown>(binds.length);
    for (let i = 0; i < binds.length; i++) params[i] = binds[i]!(values ?? NO_VALUES);
    return params;
  }

  private decode(row: unknown[]): unknown {
    const { columns } = this;
    if (columns) {
      const result: Record<string, unknown> = {};
      const { keys, decoders } = columns;
      for (let i = 0; i < keys.length; i++) {
        const value = row[i];
        result[keys[i]!] = value === null ? null : decoders[i]!.mapFromDriverValue(value);
      }
      return result;
    }
    if (this.customResultMapper) return this.customResultMapper([row]);
    return mapResultRow(this.fields!, row, this.nullableJoins());
  }

  run(placeholders?: Record<string, unknown>): Promise<RunResult> {
    try {
      return settled(this.executor.run(this.query.sql, this.bound(placeholders), this.reusable));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  all(placeholders?: Record<string, unknown>): Promise<unknown[]> {
    try {
      const params = this.bound(placeholders);
      if (!this.fields && !this.customResultMapper)
        return settled(this.executor.all(this.query.sql, params, false, this.reusable));
      const rows = this.executor.all(this.query.sql, params, true, this.reusable) as unknown[][] | Promise<unknown[][]>;
      return rows instanceof Promise
        ? rows.then((answered) => this.decodeAll(answered))
        : settled(this.decodeAll(rows));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private decodeAll(rows: unknown[][]): unknown[] {
    if (this.customResultMapper) return this.customResultMapper(rows) as unknown[];
    return rows.map((row) => this.decode(row));
  }

  get(placeholders?: Record<string, unknown>): Promise<unknown> {
    try {
      const params = this.bound(placeholders);
      if (!this.fields && !this.customResultMapper)
        return settled(this.executor.get(this.query.sql, params, false, this.reusable));
      const row = this.executor.get(this.query.sql, params, true, this.reusable) as
        unknown[] | undefined | Promise<unknown[] | undefined>;
      if (row instanceof Promise)
        return row.then((answered) => (answered === undefined ? undefined : this.decode(answered)));
      return settled(row === undefined ? undefined : this.decode(row));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs the statement once for each entry of `list`, in order, and answers the rows changed in all.
   * One promise for them all: where the executor answers at once (SQLite inside a unit), a batch of
   * rows costs one await instead of one per row.
   */
  runEach(list: readonly Record<string, unknown>[]): Promise<number> {
    try {
      const { executor } = this;
      // An executor that answers later (PostgreSQL) sends them its own way: all at once where its
      // connection pipelines them.
      if (executor.runEach)
        return executor.runEach(
          this.query.sql,
          list.map((values) => this.bound(values)),
          this.reusable,
        );
      let changes = 0;
      for (let i = 0; i < list.length; i++) {
        const answer = executor.run(this.query.sql, this.bound(list[i]), this.reusable);
        if (answer instanceof Promise)
          return answer.then((first) => this.runFrom(list, i + 1, changes + first.changes));
        changes += answer.changes;
      }
      return Promise.resolve(changes);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async runFrom(list: readonly Record<string, unknown>[], from: number, changes: number): Promise<number> {
    for (let i = from; i < list.length; i++)
      changes += (await this.executor.run(this.query.sql, this.bound(list[i]), this.reusable)).changes;
    return changes;
  }

  values(placeholders?: Record<string, unknown>): Promise<unknown[][]> {
    try {
      return settled(this.executor.all(this.query.sql, this.bound(placeholders), true, this.reusable) as unknown[][]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** @internal drizzle asks this of a relational query's statement. */
  isResponseInArrayMode(): boolean {
    return true;
  }
}

const NO_VALUES: Record<string, unknown> = {};

/** An executor's answer as a promise: itself when it is one, else one already resolved. */
function settled<T>(answer: T | Promise<T>): Promise<T> {
  return answer instanceof Promise ? answer : Promise.resolve(answer);
}

/** How drizzle's fillPlaceholders fills one parameter, decided once. */
function binding(param: unknown): Bind {
  if (is(param, Placeholder)) return valueOf(param.name, (value) => value);
  if (is(param, Param) && is(param.value, Placeholder)) {
    const encoder = param.encoder as { mapToDriverValue(value: unknown): unknown };
    return valueOf(param.value.name, (value) => encoder.mapToDriverValue(value));
  }
  return () => param;
}

const valueOf =
  (name: string, map: (value: unknown) => unknown): Bind =>
  (values) => {
    if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
    return map(values[name]);
  };

/** The keys and decoders of fields that are all top-level columns or SQL with a decoder, else null. */
function plainColumns(fields: SelectedFieldsOrdered): { keys: string[]; decoders: Decoder[] } | null {
  const keys: string[] = [];
  const decoders: Decoder[] = [];
  for (const { path, field } of fields) {
    const decoder = decoderOf(field);
    if (path.length !== 1 || !decoder) return null;
    keys.push(path[0]!);
    decoders.push(decoder);
  }
  return { keys, decoders };
}

/** The decoder drizzle's mapResultRow uses for a selected field. */
function decoderOf(field: unknown): Decoder | null {
  if (is(field, Column)) return field as unknown as Decoder;
  // `decoder` is drizzle's internal field, as mapResultRow reads it.
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  return null;
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
    return new ExecutorPreparedQuery(this.executor, query, fields, executeMethod, customResultMapper, true);
  }

  /** A statement built to run once (drizzle's `.all()` on a builder, not `.prepare()`). */
  override prepareOneTimeQuery(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    executeMethod: SQLiteExecuteMethod,
    _isResponseInArrayMode: boolean,
    customResultMapper?: (rows: unknown[][]) => unknown,
  ) {
    return new ExecutorPreparedQuery(this.executor, query, fields, executeMethod, customResultMapper, false);
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

/** A raw statement prepared once: its placeholders (`sql.placeholder`) filled on each call, rows as objects. */
export interface PreparedSql<Row, Values = Record<string, unknown>> {
  all(values?: Values): Promise<Row[]>;
  get(values?: Values): Promise<Row | undefined>;
  run(values?: Values): Promise<RunResult>;
  /** Runs it once per entry, in order, as one promise; answers the rows changed in all (see ExecutorPreparedQuery.runEach). */
  runEach(list: readonly Values[]): Promise<number>;
}

/**
 * `statement` rendered once by `db`'s dialect and kept, for raw SQL run on a hot path (building an
 * `sql` template costs far more than running it). Its rows come back as objects keyed by column name.
 */
export function prepareSql<Row, Values = Record<string, unknown>>(
  db: AsyncDb,
  statement: SQL,
): PreparedSql<Row, Values> {
  const { session, dialect } = db as unknown as { session: ExecutorSession; dialect: SQLiteAsyncDialect };
  return session.prepareQuery(dialect.sqlToQuery(statement), undefined, 'all', false) as unknown as PreparedSql<
    Row,
    Values
  >;
}

/**
 * `text`, raw SQL naming its values `@name`, prepared once (prepareSql): each `@name` is filled
 * from the object a call passes, whatever the engine's own parameter syntax.
 */
export function prepareText<Values extends Record<string, unknown>, Row = never>(
  db: AsyncDb,
  text: string,
): PreparedSql<Row, Values> {
  const chunks: SQL[] = [];
  let from = 0;
  for (const match of text.matchAll(/@(\w+)/g)) {
    chunks.push(sql.raw(text.slice(from, match.index)), sql`${sql.placeholder(match[1]!)}`);
    from = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(from)));
  return prepareSql<Row, Values>(db, sql.join(chunks));
}
