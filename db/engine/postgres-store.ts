import type pg from 'pg';
import { PostgresDialect, postgresExecutor } from './postgres-executor.ts';
import { postgresSql } from './postgres-sql.ts';
import { PostgresWakeups } from './postgres-wakeups.ts';
import { asyncDb, type AsyncDb } from './session.ts';
import { started, UnitContext, type Store } from './store.ts';

/** A transaction open on one pooled connection: statements in its async context run on that connection. */
interface Unit {
  client: pg.PoolClient;
  open: boolean;
  /** Savepoints open inside it, which names the next one. */
  savepoints: number;
  /** Called once it has committed (whenCommitted). */
  committed: (() => void)[];
}

/**
 * The PostgreSQL store: a pool of connections, each unit a transaction on one connection it holds
 * until commit (READ COMMITTED, PostgreSQL's default), each statement outside a unit a transaction
 * of its own on whichever connection is free. Units run side by side, one per connection; what must
 * not interleave says so in its SQL: claims lock rows (skip locked), a workspace's quota and credits
 * take an advisory lock, maintenance claims its tick in job_ticks.
 *
 * There is no group commit: each unit commits on its own. Group commit saves SQLite's one writer a
 * transaction per request; here writers run in parallel and a commit costs the server one WAL flush,
 * which PostgreSQL groups across connections itself (commit_delay aside).
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  readonly sql = postgresSql;
  readonly db: AsyncDb;
  private readonly units = new UnitContext<Unit>(this);

  constructor(readonly pool: pg.Pool) {
    this.db = asyncDb(
      postgresExecutor(() => {
        const unit = this.units.getStore();
        return unit?.open ? unit.client : pool;
      }),
      new PostgresDialect(),
    );
    this.wakeups = new PostgresWakeups(pool, () => {
      const unit = this.units.getStore();
      return unit?.open ? unit.client : undefined;
    });
  }

  inUnit(): boolean {
    return this.units.getStore()?.open === true;
  }

  /**
   * A transaction of its own. As in a group, work that throws has left the transaction as it found
   * it except for what it meant to keep (a failed request's rate-limit take), so the transaction
   * still commits and then the work's error is thrown. A statement that failed on the server has
   * aborted the transaction already: its commit is then a rollback, as the failure demands.
   */
  async inNextCommit<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    let failure: { error: unknown } | undefined;
    let value: T | undefined;
    try {
      value = await this.transaction(async () => {
        try {
          return await started(work);
        } catch (error) {
          failure = { error };
          return undefined;
        }
      });
    } catch (error) {
      // The work's own failure (which aborted the transaction) is the one to report.
      if (failure && error instanceof TransactionRolledBack) throw failure.error;
      throw error;
    }
    if (failure) throw failure.error;
    return value as T;
  }

  async transaction<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    const client = await this.pool.connect();
    const unit: Unit = { client, open: true, savepoints: 0, committed: [] };
    let broken: Error | undefined;
    let value: T;
    try {
      await client.query('begin');
      try {
        value = await this.units.run(unit, () => started(work));
        // A transaction a failed statement aborted answers its COMMIT with ROLLBACK, not an error.
        const { command } = await client.query('commit');
        if (command === 'ROLLBACK') throw new TransactionRolledBack();
      } catch (error) {
        await client.query('rollback').catch((rollbackFailed: unknown) => {
          // The connection itself failed (the server went away): it leaves the pool.
          broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
        });
        throw error;
      }
    } catch (error) {
      if (!broken && isConnectionError(error)) broken = error as Error;
      throw error;
    } finally {
      unit.open = false;
      client.release(broken);
    }
    for (const fn of unit.committed) fn();
    return value;
  }

  /** A transaction-scoped advisory lock on the key's hash (a collision only makes one key's holder defer the other's work). */
  async tryLock(key: string): Promise<boolean> {
    const unit = this.units.getStore();
    if (!unit?.open)
      throw new Error('tryLock is for inside a unit: outside one the lock would end with its own statement');
    const { rows } = await unit.client.query<{ locked: boolean }>({
      text: 'select pg_try_advisory_xact_lock(hashtext($1)) as locked',
      values: [key],
    });
    return rows[0]?.locked === true;
  }

  async lock(key: string): Promise<void> {
    const unit = this.units.getStore();
    if (!unit?.open)
      throw new Error('lock is for inside a unit: outside one the lock would end with its own statement');
    await unit.client.query({ text: 'select pg_advisory_xact_lock(hashtext($1))', values: [key] });
  }

  /** lock_timeout for the rest of the transaction (SET LOCAL); its failure is SQLSTATE 55P03. */
  async waitForLocksAtMost(ms: number): Promise<void> {
    const unit = this.units.getStore();
    if (!unit?.open) throw new Error('waitForLocksAtMost is for inside a unit');
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new Error(`waitForLocksAtMost needs a positive integer of ms, not ${ms}`);
    await unit.client.query(`set local lock_timeout = ${ms}`);
  }

  /** After the unit's commit; one asked for in a savepoint that rolled back still runs (a wake-up is a hint). */
  whenCommitted(fn: () => void): void {
    const unit = this.units.getStore();
    if (unit?.open) unit.committed.push(fn);
    else fn();
  }

  async savepoint<T>(work: () => Promise<T> | T): Promise<T> {
    const unit = this.units.getStore();
    if (!unit?.open) return this.transaction(work);
    const name = `s${++unit.savepoints}`;
    await unit.client.query(`savepoint ${name}`);
    try {
      const value = await started(work);
      await unit.client.query(`release savepoint ${name}`);
      return value;
    } catch (error) {
      // Rolled back to and released: the unit goes on as it was before the savepoint.
      await unit.client.query(`rollback to savepoint ${name}`);
      await unit.client.query(`release savepoint ${name}`);
      throw error;
    } finally {
      unit.savepoints--;
    }
  }

  async close(): Promise<void> {
    await this.wakeups.close();
    if (!this.pool.ended) await this.pool.end();
  }

  /** NOTIFY and one LISTEN connection (db/engine/postgres-wakeups.ts); the unit's connection carries a notify made inside one. */
  readonly wakeups: PostgresWakeups;

  notify(job: string): void {
    this.wakeups.notify(job);
  }

  listen(onJob: (job: string) => void, onGap?: () => void): () => void {
    return this.wakeups.listen({ onJob, onGap });
  }
}

/** An error of the connection itself (not of a statement): the server went away or the socket broke. */
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 (connection exception) and 57P01–57P03 (the server shutting down), or a socket error.
  if (typeof code === 'string') return /^08|^57P0[1-3]$|^E[A-Z]+$/.test(code);
  return /Connection terminated|connection .*closed|Client has encountered a connection error/i.test(error.message);
}

/** A COMMIT the server answered with ROLLBACK: a statement of the unit failed, and nothing of it was kept. */
export class TransactionRolledBack extends Error {
  override readonly name = 'TransactionRolledBack';
  constructor() {
    super('the transaction was rolled back at commit: a statement in it had failed');
  }
}
