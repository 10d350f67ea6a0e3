import { AsyncLocalStorage } from 'node:async_hooks';
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
   * Runs `work` whose statements need no transaction to hold them together, each being whole on its
   * own (a read request's rate-limit take and its reads, a single insert): on SQLite in the next
   * group commit, where its one writer commits a group at the cost of one; on PostgreSQL with each
   * statement committing by itself, which spares the transaction's `begin` and `commit`. Inside a
   * unit it joins the unit.
   */
  autocommit<T>(work: () => Promise<T> | T): Promise<T>;
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
   * once across processes: a workspace's quota counted at claim time, its AI credits. On SQLite
   * every unit already holds the one writer of the file, so the lock is always the caller's.
   */
  tryLock(key: string): Promise<boolean>;
  /**
   * As tryLock, but waits for the lock when another unit holds it. Only for a unit that holds no
   * other lock while it waits (take it first; several always in the same order), so that no two
   * units can wait for each other.
   */
  lock(key: string): Promise<void>;
  /**
   * Calls `fn` once what the running unit wrote can be read by a statement made outside it: after
   * its commit (never when it rolls back), or at once outside a unit. For a wake-up of this
   * process's schedulers, whose next read must find the work that woke them.
   */
  whenCommitted(fn: () => void): void;
  /**
   * Inside a unit: from now to its end, a statement that waits longer than `ms` for a lock another
   * unit holds fails, which fails the unit. For a unit that takes its locks in another order than
   * requests do (the publishing claim holds items, then takes a workspace's rate-limit row; a
   * request holds that row, then writes an item): it gives way at once instead of deadlocking and
   * waiting for the server to break the cycle, which may fail the request instead. On SQLite
   * nothing: the unit holds the one writer and waits for no lock.
   */
  waitForLocksAtMost(ms: number): Promise<void>;
  /**
   * Tells the other processes on this database that `job` has work due. Inside a unit it is sent
   * with the unit's commit (and dropped if the unit rolls back); outside, right after. On SQLite
   * absent: the processes sharing a file poll it, which covers them.
   */
  notify?(job: string): void;
  /**
   * Hears the jobs other processes `notify` (never this process's own), over one connection per
   * store that is reopened after a failure; `onGap` once it is back, since what was sent while it
   * was down is lost. Returns the function that stops; close() ends the connection.
   */
  listen?(onJob: (job: string) => void, onGap?: () => void): () => void;
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
  /** The number at `key` (a name written in the code, not input) of `object`, a JSON object column; null where it has none. */
  jsonNumberAt(object: SQL, key: string): SQL;
  /** A JSON column as its text, to search with `like` (PostgreSQL's jsonb is no text of its own). */
  jsonText(json: SQL): SQL;
  /**
   * For an outbox row's `xact` column, where its writer stands in commit order when seq alone does not
   * say: on PostgreSQL the writing transaction's id (pg_current_xact_id as a bigint; identities are
   * handed out before commit, so a lower seq may commit after a higher one), on SQLite null (the one
   * writer commits in the order it writes).
   */
  readonly writingTransaction: SQL;
  /**
   * Whether an outbox row (`xact` from writingTransaction, `seq` its identity) comes after the cursor
   * (`cursor.xact`, `cursor.seq`, the last row read) and can be read now without skipping a row that
   * would commit later before it: on PostgreSQL (xact, seq) past the cursor and xact below the oldest
   * transaction still running in this database (other databases' transactions of the same server
   * are passed over), so no transaction that could still write a row before it is running; on SQLite
   * seq past the cursor. Read in `outboxOrder`.
   */
  outboxAfter(row: { xact: SQL; seq: SQL }, cursor: { xact: SQL; seq: SQL }): SQL;
  /**
   * Whether an outbox row comes after the cursor, readable now or not: outboxAfter without its bound
   * on running transactions. A committed row past the cursor that outboxAfter does not yet pass is
   * held back by a transaction still running, and must be read again once that one ends.
   */
  outboxPast(row: { xact: SQL; seq: SQL }, cursor: { xact: SQL; seq: SQL }): SQL;
  /** The order outboxAfter reads in: (xact, seq) on PostgreSQL, seq on SQLite. */
  outboxOrder(row: { xact: SQL; seq: SQL }): SQL;
  /**
   * Where a row of `table` (a name or alias in the statement) is, to find it again in a later
   * statement without the primary key's index: SQLite's rowid; on PostgreSQL null (a row's ctid
   * moves with every update), and the later statement finds the row by its key alone.
   */
  rowAddress(table: string): SQL;
  /** Whether the row of `table` is at `address` (from rowAddress): on PostgreSQL always true, the key's own condition beside it finding the row. */
  atRowAddress(table: string, address: SQL): SQL;
  /** A select of the newest migration applied, as `at` (its folder's time in ms, null when none): the migrations' own table, which the engines keep in different places. */
  readonly newestMigrationApplied: SQL;
}

/**
 * The database could not be reached: the connection was refused, broke or timed out (the server
 * restarting, the network down). Nothing of the unit that met it was kept (a broken connection ends
 * its transaction), and the same work may succeed once the database is back, so the doors answer it
 * as a temporary refusal, not as a fault of the service. `cause` is the driver's own error.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  constructor(cause: unknown) {
    super('the database cannot be reached', { cause });
  }
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

/**
 * The unit a statement runs in, found from its async context. One AsyncLocalStorage for every store
 * in the process: on Node 20 each enabled one adds work to every promise made anywhere (its store is
 * copied onto each new promise), and a process may open many stores (tests open hundreds).
 */
const currentUnit = new AsyncLocalStorage<{ owner: object; unit: unknown }>();

/** One store's view of the current unit: only a unit of `owner`'s counts as its own. */
export class UnitContext<U> {
  constructor(private readonly owner: object) {}

  getStore(): U | undefined {
    const current = currentUnit.getStore();
    return current?.owner === this.owner ? (current.unit as U) : undefined;
  }

  run<R>(unit: U, fn: () => R): R {
    return currentUnit.run({ owner: this.owner, unit }, fn);
  }
}
