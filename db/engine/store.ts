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
  close(): Promise<void>;
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
