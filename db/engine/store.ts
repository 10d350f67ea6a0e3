import type { SQL } from 'drizzle-orm';
import type { AsyncDb } from './session.ts';

export type Engine = 'sqlite' | 'postgres';

/**
 * Where core's statements run, one implementation per engine. Core builds its statements with
 * `db` (drizzle's SQLite builder in async mode) and groups its writes in units: a statement made
 * while a unit runs (in its async context, across awaits) runs inside that unit's transaction; one
 * made outside any unit runs on its own. Units nest: a transaction, a savepoint or a group commit
 * asked for inside a unit joins it. Work inside a unit awaits only the database: no network, no
 * worker thread, no timer, since on SQLite the one writer is held for the whole unit.
 */
export interface Store {
  readonly engine: Engine;
  readonly db: AsyncDb;
  /**
   * Group commit: runs `work` in one transaction with the other work asked for in the same turn of
   * the event loop, in order, each seeing the ones before it; settles once that transaction has
   * committed. Work that throws must leave the transaction as it found it (run its writes in a
   * savepoint) and fails alone; only a failure of the transaction itself fails the whole group.
   */
  inNextCommit<T>(work: () => Promise<T> | T): Promise<T>;
  /**
   * Runs `work` in a transaction of its own that takes the write lock up front, or inside the unit
   * already running. A failure aborts the outermost transaction: let it propagate.
   */
  transaction<T>(work: () => Promise<T> | T): Promise<T>;
  /** Runs `work` in a savepoint of the running unit (a transaction of its own outside one): when it throws, its writes roll back and the unit goes on. */
  savepoint<T>(work: () => Promise<T> | T): Promise<T>;
  /** Whether the caller runs inside a unit of this store. */
  inUnit(): boolean;
  /** The SQL that must differ between the engines, named for what it does (db/engine/*-sql.ts). */
  readonly sql: EngineSql;
  /**
   * Inside a unit: takes the lock named `key` until the unit ends and answers true, or answers false
   * at once when another unit (in this process or another) holds it. For what must not run twice at
   * once across processes: a workspace's quota counted at claim time, a maintenance pass. On SQLite
   * every unit already holds the one writer of the file, so the lock is always the caller's.
   */
  tryLock(key: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * SQL fragments whose spelling differs between the engines. Each is built into a statement once
 * (preparedStatements), so the statement text is fixed per engine.
 */
export interface EngineSql {
  /** A boolean column's true and false as a comparison takes them (`= 1` on SQLite keeps its partial indexes matching). */
  readonly true: SQL;
  readonly false: SQL;
  /**
   * Ends a select whose rows the unit will update: on PostgreSQL `for update skip locked` (the rows
   * are the unit's until it ends, rows another unit holds are passed over), on SQLite nothing (the
   * unit holds the one writer of the file).
   */
  readonly lockRowsSkipLocked: SQL;
  /** Whether `array` (a JSON array of strings: a column or a bound JSON text) holds `value`. */
  jsonArrayHas(array: SQL, value: SQL): SQL;
  /** The strings of `array` (a JSON array: a column or a bound JSON text) as a subquery of one column, for `x in (…)`. */
  jsonArrayValues(array: SQL): SQL;
}

/**
 * Calls `work` now, in the caller's unit, and answers its outcome as a promise. A lazy thenable it
 * answers (drizzle's raw queries) is started here too, not by whoever awaits it later.
 */
export function started<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    const value = work();
    if (value instanceof Promise) return value;
    const then = (value as { then?: unknown } | null)?.then;
    if (typeof then !== 'function') return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => (value as PromiseLike<T>).then(resolve, reject));
  } catch (error) {
    return Promise.reject(error);
  }
}
