import { AsyncResource } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import { asyncDb, type AsyncDb } from './session.ts';
import { sqliteExecutor, type SyncExecutor } from './sqlite-executor.ts';
import { sqliteSql } from './sqlite-sql.ts';
import { started, UnitContext, type Store } from './store.ts';

/** A transaction running on the connection: statements in its async context join it while it is open. */
interface Unit {
  open: boolean;
  /** Savepoints open inside it, which names the next one. */
  savepoints: number;
}

interface SavepointStatements {
  open: Database.Statement;
  release: Database.Statement;
  rollback: Database.Statement;
}

interface QueuedWork {
  work: () => unknown;
  /**
   * The async context of whoever queued it (its log fields), which the work runs in: the group runs
   * on its own turn. An AsyncResource, not AsyncLocalStorage.snapshot(): on Node 20 a snapshot cost
   * several times as much (measured in the publishing run, ~5% of its CPU).
   */
  queuer: AsyncResource;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * One writer at a time on the connection, waited for in order. Held for a whole unit, and taken for
 * each statement made outside a unit while one runs: better-sqlite3 runs every statement at once,
 * so without it a statement of another request, made between two awaits of an open unit, would
 * run inside that unit's transaction (a read seeing writes that may yet roll back, a write
 * committed or rolled back with work not its own).
 */
class WriterLock {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  get isHeld(): boolean {
    return this.held;
  }

  /** Settles when the lock is the caller's; without a wait when it is free. */
  acquire(): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/**
 * The SQLite store: one better-sqlite3 connection (synchronous, so each statement's promise is
 * settled when returned), its statements prepared once per text, writes grouped into one
 * IMMEDIATE transaction per turn of the event loop (group commit), and a writer lock so that
 * nothing outside a unit runs on the connection while the unit's transaction is open.
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  readonly sql = sqliteSql;
  readonly db: AsyncDb;
  private readonly units = new UnitContext<Unit>(this);
  private readonly writer = new WriterLock();
  private readonly statements: SyncExecutor;
  private queue: QueuedWork[] | null = null;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly savepointsByDepth: SavepointStatements[] = [];

  constructor(readonly connection: Database.Database) {
    this.statements = sqliteExecutor(connection);
    this.begin = connection.prepare('begin immediate');
    this.commit = connection.prepare('commit');
    this.rollback = connection.prepare('rollback');
    const { statements } = this;
    this.db = asyncDb({
      run: (sql, params) =>
        this.inUnit() ? statements.run(sql, params) : this.alone(() => statements.run(sql, params)),
      all: (sql, params, arrayMode) =>
        this.inUnit()
          ? statements.all(sql, params, arrayMode)
          : this.alone(() => statements.all(sql, params, arrayMode)),
      get: (sql, params, arrayMode) =>
        this.inUnit()
          ? statements.get(sql, params, arrayMode)
          : this.alone(() => statements.get(sql, params, arrayMode)),
    });
  }

  inUnit(): boolean {
    return this.units.getStore()?.open === true;
  }

  /**
   * A statement outside any unit: run at once when the connection is free (its answer returned
   * as it is), else after the unit running now (a promise of it).
   */
  private alone<T>(statement: () => T): T | Promise<T> {
    const wait = this.writer.acquire();
    const run = () => {
      try {
        return statement();
      } finally {
        this.writer.release();
      }
    };
    return wait ? wait.then(run) : run();
  }

  /** Every unit holds the one writer of the file, across processes: the lock is always the caller's. */
  async tryLock(_key: string): Promise<boolean> {
    return true;
  }

  async lock(_key: string): Promise<void> {}

  async waitForLocksAtMost(_ms: number): Promise<void> {}

  /** At once: a statement made outside the unit waits for it to end (the one writer), so it reads what the unit wrote. */
  whenCommitted(fn: () => void): void {
    fn();
  }

  autocommit<T>(work: () => Promise<T> | T): Promise<T> {
    return this.inNextCommit(work);
  }

  inNextCommit<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    return new Promise<T>((resolve, reject) => {
      if (!this.queue) {
        const group: QueuedWork[] = [];
        this.queue = group;
        setImmediate(() => void this.commitGroup(group));
      }
      this.queue.push({
        work,
        queuer: new AsyncResource('StoreWork'),
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
  }

  private async commitGroup(group: QueuedWork[]): Promise<void> {
    if (this.queue === group) this.queue = null;
    const settlements: Array<() => void> = [];
    try {
      await this.inTransaction(async (unit) => {
        for (const { work, queuer, resolve, reject } of group) {
          try {
            const value = await queuer.runInAsyncScope(() => this.runInUnit(unit, work));
            settlements.push(() => resolve(value));
          } catch (error) {
            settlements.push(() => reject(error));
          }
        }
      });
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    for (const settle of settlements) settle();
  }

  transaction<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    return this.inTransaction((unit) => this.runInUnit(unit, work));
  }

  /**
   * Runs `work` with `unit` as its unit. drizzle's raw queries (`db.run(sql)`) are lazy thenables that
   * run when `then` is called: a thenable `work` answers is started here, still inside the unit, not
   * by whoever awaits it later (outside, where it would wait for this very unit).
   */
  private runInUnit<T>(unit: Unit, work: () => Promise<T> | T): Promise<T> {
    return this.units.run(unit, () => started(work));
  }

  async savepoint<T>(work: () => Promise<T> | T): Promise<T> {
    const unit = this.units.getStore();
    if (!unit?.open) return this.transaction(work);
    const depth = ++unit.savepoints;
    const statements = this.savepointStatements(depth);
    statements.open.run();
    try {
      const value = await started(work);
      statements.release.run();
      return value;
    } catch (error) {
      // Rolled back to and released: the unit goes on as it was before the savepoint.
      if (this.connection.inTransaction) {
        statements.rollback.run();
        statements.release.run();
      }
      throw error;
    } finally {
      unit.savepoints--;
    }
  }

  /** The savepoint statements of nesting depth `depth` (1 for the outermost), prepared once: every write request opens one. */
  private savepointStatements(depth: number): SavepointStatements {
    let statements = this.savepointsByDepth[depth];
    if (!statements) {
      const name = `s${depth}`;
      statements = {
        open: this.connection.prepare(`savepoint ${name}`),
        release: this.connection.prepare(`release ${name}`),
        rollback: this.connection.prepare(`rollback to ${name}`),
      };
      this.savepointsByDepth[depth] = statements;
    }
    return statements;
  }

  /** Takes the writer, runs `work` in an IMMEDIATE transaction and commits it, or rolls it back when `work` throws. */
  private async inTransaction<T>(work: (unit: Unit) => Promise<T> | T): Promise<T> {
    const wait = this.writer.acquire();
    if (wait) await wait;
    const unit: Unit = { open: true, savepoints: 0 };
    try {
      this.begin.run();
      try {
        const value = await work(unit);
        this.commit.run();
        return value;
      } catch (error) {
        if (this.connection.inTransaction) this.rollback.run();
        throw error;
      }
    } finally {
      unit.open = false;
      this.writer.release();
    }
  }

  async close(): Promise<void> {
    if (this.connection.open) this.connection.close();
  }
}
